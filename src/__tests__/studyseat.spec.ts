/**
 * A shared study machine and the way on from a study task: a code signed in
 * (or handed over) leaves nothing of anyone else's open; the study list's
 * counts follow what ended; a finished study task offers the next one.
 */
import { StudyController } from '../study/controller';
import { StudyList } from '../study/list';
import { StudyModel } from '../study/model';
import { IWayOnActions, StudyWayOn } from '../study/wayon';
import { attemptRow, attemptView } from './fixtures';
import { fakeHost, PLAYING, study } from './studyfixtures';

const MINE = attemptRow({
  id: 'mine',
  notebook_path: 'cibench-attempts/m/m.ipynb'
});

const ROW = {
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

/** The plan after its first task finished: the second is next. */
const FIRST_DONE = study({
  ...PLAYING,
  state: 'ready',
  current: null,
  next: 1,
  done: 1,
  finished: 1,
  items: [{ ...PLAYING.items![0], status: 'done' }, PLAYING.items![1]]
});

const tick = () => new Promise(resolve => setTimeout(resolve, 0));

describe('a shared seat', () => {
  it("closes every tab but the participant's own when their code signs in, and drops another's attempt", async () => {
    const host = fakeHost({
      study: async () => study({ participant_code: true, participant: null }),
      consent: async () =>
        study({
          participant_code: true,
          participant: 'P01',
          state: 'ready',
          next: 0
        }),
      studies: async () => [ROW]
    });
    host.refresh = async () => {
      host.lab.attempts = [MINE]; // the participant's attempts, as the server lists them
    };
    host.lab.attempt = attemptView({ id: 'organisers', status: 'done' });
    const controller = new StudyController(new StudyModel(), host);
    await controller.open('pilot');
    await controller.consent({ accept: true, code: 'P01', answers: {} });
    expect(host.calls).toContain(`close tabs but ${MINE.notebook_path}`);
    expect(host.lab.attempt).toBeNull();
  });

  it('closes every tab at a hand over', async () => {
    const host = fakeHost({
      study: async () => study({ ...PLAYING, participant_code: true }),
      handOver: async () =>
        study({ participant_code: true, participant: null }),
      studies: async () => [ROW]
    });
    const controller = new StudyController(new StudyModel(), host);
    await controller.open('pilot');
    await controller.handOver();
    expect(host.calls).toContain('close tabs but ');
  });
});

describe("the study list's counts", () => {
  it('follow the study view shown: finished and quit too', () => {
    const model = new StudyModel();
    model.studies = [ROW];
    const list = new StudyList(model, () => undefined);
    model.show(FIRST_DONE);
    expect(list.node.textContent).toContain('1 of 2 finished');
  });

  it("are read again when the panel's attempts are (an attempt ended, Refresh)", async () => {
    const model = new StudyModel();
    const host = fakeHost({
      studies: async () => [{ ...ROW, done: 1, finished: 1 }]
    });
    new StudyController(model, host);
    model.studies = [ROW];
    host.lab.attempts = [MINE];
    await tick();
    expect(model.studies[0].finished).toBe(1);
  });
});

describe('the way on from a study task', () => {
  function setUp(view = FIRST_DONE) {
    const lab = fakeHost({}).lab;
    const calls: string[] = [];
    const actions: IWayOnActions = {
      study: async () => view,
      startNext: async id => void calls.push(`start ${id}`),
      openItem: async item => void calls.push(`open ${item.index}`),
      open: async id => void calls.push(`study ${id}`)
    };
    const wayOn = new StudyWayOn(lab, new StudyModel(), actions);
    const id = PLAYING.items![0].attempt_id!;
    lab.attempts = [attemptRow({ id, status: 'done', study_id: 'pilot' })];
    return { lab, calls, node: wayOn.node, id };
  }

  const labels = (node: HTMLElement) =>
    Array.from(node.querySelectorAll('button')).map(b => b.textContent);

  it('offers the next task and the study once a task ended', async () => {
    const { lab, calls, node, id } = setUp();
    expect(node.hidden).toBe(true);
    lab.attempt = attemptView({ id, status: 'done' });
    await tick();
    expect(node.hidden).toBe(false);
    expect(node.getAttribute('aria-label')).toBe('Pilot');
    expect(node.textContent).toContain('Task 1 of 2 ended · 1 of 2 finished');
    expect(labels(node)).toEqual(['Start next task', 'Back to the study']);
    node.querySelector<HTMLButtonElement>('.jp-CIBench-startNext')!.click();
    node.querySelector<HTMLButtonElement>('.jp-CIBench-toStudy')!.click();
    expect(calls).toEqual(['start pilot', 'study pilot']);
    lab.attempt = attemptView({ id: 'next', status: 'open' });
    await tick();
    expect(node.hidden).toBe(true);
  });

  it('says all ended, with the study only, after the last task', async () => {
    const all = study({
      ...FIRST_DONE,
      state: 'finished',
      next: null,
      done: 2,
      finished: 2
    });
    const { lab, node, id } = setUp(all);
    lab.attempt = attemptView({ id, status: 'done' });
    await tick();
    expect(node.textContent).toContain('All 2 tasks ended · 2 of 2 finished');
    expect(labels(node)).toEqual(['Back to the study']);
  });

  it('stays hidden for an attempt of no study', async () => {
    const { lab, node } = setUp();
    lab.attempts = [attemptRow({ id: 'free', status: 'done', study_id: null })];
    lab.attempt = attemptView({ id: 'free', status: 'done' });
    await tick();
    expect(node.hidden).toBe(true);
  });
});
