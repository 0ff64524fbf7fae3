import { ApiError } from '../api';
import { CIBenchModel } from '../model';
import { IPanelActions } from '../panel/actions';
import { CIBenchPanel } from '../panel/panel';
import { consentForm, formBody } from '../study/consent';
import { StudyController } from '../study/controller';
import { StudyList } from '../study/list';
import { StudyModel } from '../study/model';
import { IStudyActions, StudyView } from '../study/view';
import {
  fieldErrors,
  itemStatusText,
  paragraphs,
  progressLine,
  stateText,
  studyParam
} from '../study/words';
import { attemptView } from './fixtures';
import { fakeHost, PLAYING, study } from './studyfixtures';

describe('study words', () => {
  it('reads the link parameter', () => {
    expect(studyParam('?cibench-study=pilot&reset')).toBe('pilot');
    expect(studyParam('?other=1')).toBeNull();
    expect(studyParam('?cibench-study=')).toBeNull();
  });

  it('says where the participant stands', () => {
    expect(progressLine(study())).toBe('2 tasks · consent first');
    expect(progressLine(study(PLAYING))).toBe('Task 1 of 2 · in progress');
    expect(
      progressLine(
        study({ ...PLAYING, state: 'ready', current: null, next: 1 })
      )
    ).toBe('Task 2 of 2 · next');
    const ended = { done: 2, finished: 1, quit: 1 };
    expect(progressLine(study({ state: 'finished', ...ended }))).toBe(
      'All 2 tasks ended · 1 of 2 finished, 1 quit'
    );
    const row = { state: 'playing' as const, n_items: 3, quit: 0 };
    expect(stateText({ ...row, done: 0, finished: 0 })).toBe(
      'task 1 of 3 in progress'
    );
    expect(stateText({ ...row, done: 1, finished: 1 })).toBe(
      'task 2 of 3 in progress · 1 of 3 finished'
    );
    expect(
      stateText({
        state: 'finished',
        n_items: 2,
        ...ended,
        finished: 2,
        quit: 0
      })
    ).toBe('finished: 2 of 2');
    expect(stateText({ state: 'finished', n_items: 2, ...ended })).toBe(
      'ended: 1 of 2 finished, 1 quit'
    );
    expect(itemStatusText(PLAYING.items![0])).toBe('in progress · 1m 05s');
    expect(itemStatusText(PLAYING.items![1])).toBe('to do');
  });

  it('splits a 400 by form field', () => {
    expect(
      fieldErrors('answers.years: must be a number; code: 1-64 letters; other')
    ).toEqual({
      fields: { 'answers.years': 'must be a number', code: '1-64 letters' },
      rest: 'other'
    });
    expect(paragraphs('a\n\n  \nb\nc')).toEqual(['a', 'b\nc']);
  });
});

describe('the consent form', () => {
  it('labels every field and shows each error under its field', () => {
    const view = study({ participant_code: true, participant: null });
    const form = consentForm(
      view,
      { 'answers.years': 'must be ≥ 0', code: 'bad code' },
      () => {}
    );
    document.body.appendChild(form);
    const controls = Array.from(form.querySelectorAll('input, select'));
    expect(controls.map(c => c.getAttribute('name'))).toEqual([
      'code',
      'answers.expertise',
      'answers.years',
      'accept'
    ]);
    for (const control of controls) {
      const label = form.querySelector(`label[for="${control.id}"]`);
      expect(label?.textContent).toBeTruthy();
    }
    const years = form.querySelector('[name="answers.years"]')!;
    expect(years.getAttribute('aria-invalid')).toBe('true');
    const described = years.getAttribute('aria-describedby')!;
    expect(document.getElementById(described)?.textContent).toBe('must be ≥ 0');
    expect(
      form
        .querySelector('[name="answers.expertise"]')!
        .hasAttribute('aria-invalid')
    ).toBe(false);
    expect(form.querySelector('label[for$="-q0"]')?.textContent).toBe(
      'Expertise (required)'
    );
    form.remove();
  });

  it('sends what was filled in, numbers as numbers', () => {
    const view = study({ participant_code: true, participant: null });
    const sent: unknown[] = [];
    const form = consentForm(view, {}, body => sent.push(body));
    (form.querySelector('[name="code"]') as HTMLInputElement).value = ' P01 ';
    (
      form.querySelector('[name="answers.expertise"]') as HTMLSelectElement
    ).value = 'high';
    (form.querySelector('[name="answers.years"]') as HTMLInputElement).value =
      '4.5';
    (form.querySelector('[name="accept"]') as HTMLInputElement).checked = true;
    form.dispatchEvent(new Event('submit', { cancelable: true }));
    expect(sent).toEqual([
      { accept: true, code: 'P01', answers: { expertise: 'high', years: 4.5 } }
    ]);
    expect(
      formBody(
        consentForm(study(), {}, () => {}),
        study()
      )
    ).toEqual({ accept: false, answers: {} });
  });
});

function fakeActions(): IStudyActions & { calls: string[] } {
  const calls: string[] = [];
  const record = (name: string) => async () => void calls.push(name);
  return {
    calls,
    consent: async () => void calls.push('consent'),
    startNext: record('start'),
    openItem: async item => void calls.push(`open ${item.index}`),
    quit: record('quit'),
    handOver: record('handOver'),
    results: record('results'),
    back: () => void calls.push('back')
  };
}

describe('the study view and list', () => {
  it('shows the consent form until it is accepted, then the plan and its actions', () => {
    const model = new StudyModel();
    const actions = fakeActions();
    const view = new StudyView(model, actions);
    model.show(study());
    expect(view.node.querySelector('form.jp-CIBench-consent')).not.toBeNull();
    model.show(study({ ...PLAYING, participant_code: true }));
    expect(view.node.querySelector('form')).toBeNull();
    expect(view.node.querySelector('[role="status"]')?.textContent).toBe(
      'Task 1 of 2 · in progress'
    );
    const buttons = Array.from(view.node.querySelectorAll('button')).map(
      b => b.textContent
    );
    expect(buttons).toEqual([
      'All tasks',
      'Open task',
      'Quit task',
      'Hand over'
    ]);
    view.node.querySelector<HTMLButtonElement>('.jp-CIBench-openItem')!.click();
    expect(actions.calls).toEqual(['open 0']);
    model.show(study({ ...PLAYING, state: 'ready', current: null, next: 1 }));
    expect(view.node.querySelector('.jp-CIBench-startNext')?.textContent).toBe(
      'Start next task'
    );
  });

  it('keeps what was typed when the form comes back with its errors', () => {
    const model = new StudyModel();
    const view = new StudyView(model, fakeActions());
    model.show(study({ participant_code: true, participant: null }));
    const code = () =>
      view.node.querySelector<HTMLInputElement>('[name="code"]')!;
    code().value = 'P01';
    view.node.querySelector<HTMLInputElement>('[name="accept"]')!.checked =
      true;
    model.show(study({ participant_code: true, participant: null }), {
      'answers.expertise': 'required'
    });
    expect(code().value).toBe('P01');
    expect(
      view.node.querySelector<HTMLInputElement>('[name="accept"]')!.checked
    ).toBe(true);
    expect(view.node.querySelector('.jp-CIBench-fieldError')?.textContent).toBe(
      'required'
    );
  });

  it('lists the studies only when the server has some', () => {
    const model = new StudyModel();
    const opened: string[] = [];
    const list = new StudyList(model, id => opened.push(id));
    expect(list.node.hidden).toBe(true);
    model.studies = [
      {
        id: 'pilot',
        title: 'Pilot',
        protocol: 'practice',
        state: 'ready',
        done: 2,
        finished: 1,
        quit: 1,
        n_items: 3,
        participant_code: false
      }
    ];
    expect(list.node.hidden).toBe(false);
    expect(list.node.querySelector('.jp-CIBench-studyState')?.textContent).toBe(
      '1 of 3 finished, 1 quit'
    );
    list.node.querySelector<HTMLButtonElement>('[data-study="pilot"]')!.click();
    expect(opened).toEqual(['pilot']);
  });
});

describe('the study controller', () => {
  it("keeps the form's errors by field and the rest on the panel's error line", async () => {
    const model = new StudyModel();
    const host = fakeHost({
      study: async () => study(),
      consent: async () => {
        throw new ApiError(
          'answers.expertise: required; the server said more',
          400
        );
      }
    });
    const controller = new StudyController(model, host);
    await controller.open('pilot');
    expect(host.lab.view).toBe('study');
    await controller.consent({ accept: true, answers: {} });
    expect(model.errors).toEqual({ 'answers.expertise': 'required' });
    expect(host.lab.error).toBe('the server said more');
  });

  it("shows every field's error at once, each beside its field, the first focused", async () => {
    const model = new StudyModel();
    const sent: unknown[] = [];
    const host = fakeHost({
      study: async () => study({ participant_code: true, participant: null }),
      consent: async (_id: string, body: unknown) => {
        sent.push(body);
        throw new ApiError(
          'code: 1-64 letters; answers.expertise: required; answers.years: must be ≥ 0; ' +
            'accept: the consent must be accepted to take part',
          400
        );
      }
    });
    const controller = new StudyController(model, host);
    const view = new StudyView(model, controller);
    document.body.appendChild(view.node);
    try {
      await controller.open('pilot');
      await controller.consent({ accept: false, answers: { years: -1 } });
      expect(sent).toEqual([{ accept: false, answers: { years: -1 } }]); // asked, though unaccepted
      const wrong = Array.from(
        view.node.querySelectorAll<HTMLElement>('[aria-invalid="true"]')
      );
      expect(wrong.map(c => c.getAttribute('name'))).toEqual([
        'code',
        'answers.expertise',
        'answers.years',
        'accept'
      ]);
      const said = wrong.map(control => {
        const id = control.getAttribute('aria-describedby')!.split(' ').pop();
        const error = document.getElementById(id!)!;
        expect(error.closest('.jp-CIBench-field')).toBe(
          control.closest('.jp-CIBench-field')
        );
        return error.textContent;
      });
      expect(said).toEqual([
        '1-64 letters',
        'required',
        'must be ≥ 0',
        'the consent must be accepted to take part'
      ]);
      expect(document.activeElement).toBe(wrong[0]);
      expect(host.lab.error).toBeNull();
    } finally {
      view.node.remove();
    }
  });

  it('reloads the attempts and the studies once a participant signed in', async () => {
    const model = new StudyModel();
    const row = {
      id: 'pilot',
      title: 'Pilot',
      protocol: 'model-parity' as const,
      state: 'ready' as const,
      done: 0,
      finished: 0,
      quit: 0,
      n_items: 2,
      participant_code: true
    };
    const host = fakeHost({
      study: async () => study({ participant_code: true, participant: null }),
      consent: async () =>
        study({ ...PLAYING, state: 'ready', current: null, next: 0 }),
      studies: async () => [row]
    });
    const controller = new StudyController(model, host);
    await controller.open('pilot');
    await controller.consent({ accept: true, code: 'P01', answers: {} });
    expect(host.calls).toContain('refresh');
    expect(model.studies).toEqual([row]);
    expect(model.study?.state).toBe('ready');
    expect(host.lab.error).toBeNull();
  });

  it('draws the study a reloaded panel reopened on, or the task list when it is gone', async () => {
    const model = new StudyModel();
    const asked: string[] = [];
    const host = fakeHost({
      study: async (id: string) => {
        asked.push(id);
        if (id === 'gone') {
          throw new ApiError("unknown study 'gone'", 404);
        }
        return study();
      }
    });
    const controller = new StudyController(model, host);
    host.lab.study = 'pilot'; // as src/panel/restore.ts does after a reload
    host.lab.view = 'study';
    await controller.resume();
    expect(asked).toContain('pilot');
    expect(model.study?.id).toBe('pilot');
    expect(host.lab.view).toBe('study');

    const fresh = new StudyModel();
    const other = fakeHost({ study: host.api.study });
    const again = new StudyController(fresh, other);
    other.lab.study = 'gone';
    other.lab.view = 'study';
    await again.resume();
    expect(fresh.study).toBeNull();
    expect(other.lab.view).toBe('tasks');
    expect(other.lab.error).toBe("unknown study 'gone'");
  });

  it('opens the attempt Start next task started', async () => {
    const model = new StudyModel();
    const attempt = attemptView();
    const host = fakeHost({
      study: async () =>
        study({ ...PLAYING, state: 'ready', current: null, next: 1 }),
      start: async () => ({ study: study(PLAYING), attempt })
    });
    const controller = new StudyController(model, host);
    await controller.open('pilot');
    await controller.startNext();
    expect(host.calls).toContain(`open ${attempt.id} ${attempt.notebook_path}`);
    expect(model.study?.state).toBe('playing');
  });

  it('counts a quit task in the study list at once', async () => {
    const model = new StudyModel();
    const row = {
      id: 'pilot',
      title: 'Pilot',
      protocol: 'model-parity' as const,
      state: 'playing' as const,
      done: 0,
      finished: 0,
      quit: 0,
      n_items: 2,
      participant_code: false
    };
    const ended = { done: 1, finished: 0, quit: 1 };
    const host = fakeHost({
      study: async () => study(PLAYING),
      quit: async () =>
        study({ ...PLAYING, ...ended, state: 'ready', current: null, next: 1 }),
      studies: async () => [{ ...row, ...ended, state: 'ready' as const }]
    });
    model.studies = [row];
    const controller = new StudyController(model, host);
    await controller.open('pilot');
    await controller.quit();
    expect(host.calls).toContain(`close ${PLAYING.items![0].notebook_path}`);
    expect(model.studies[0].quit).toBe(1);
    expect(host.calls).toContain('refresh'); // the panel's attempts list it quit
    expect(new StudyList(model, () => undefined).node.textContent).toContain(
      '0 of 2 finished, 1 quit'
    );
  });
});

describe('the panel with the study parts', () => {
  it('shows the study view alone, without the action bar, and the list with the tasks', () => {
    const lab = new CIBenchModel();
    const panel = new CIBenchPanel(lab, {} as unknown as IPanelActions);
    const view = document.createElement('div');
    const list = document.createElement('section');
    panel.addView('study', view, () => view.focus());
    panel.addAboveTasks(list);
    const bar = panel.node.querySelector<HTMLElement>('.jp-CIBench-actionBar')!;
    expect(view.hidden).toBe(true);
    expect(list.parentElement!.hidden).toBe(false);
    lab.view = 'study';
    expect(view.hidden).toBe(false);
    expect(bar.hidden).toBe(true);
    expect(list.parentElement!.hidden).toBe(true);
    lab.view = 'tasks';
    expect(view.hidden).toBe(true);
    expect(bar.hidden).toBe(false);
    panel.dispose();
  });
});

describe("the study view's Results button", () => {
  it('is shown to researchers only, before the consent too', () => {
    const model = new StudyModel();
    const actions = fakeActions();
    const view = new StudyView(model, actions);
    const results = () =>
      view.node.querySelector<HTMLButtonElement>('.jp-CIBench-results');
    model.show(study({ state: 'consent', researcher: false }));
    expect(results()).toBeNull();
    model.show(study({ state: 'consent', researcher: true }));
    results()!.click();
    expect(actions.calls).toEqual(['results']);
  });
});
