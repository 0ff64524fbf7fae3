import { MessageLoop } from '@lumino/messaging';

import { IAttemptSummary } from '../api';
import { stepGradeText } from '../grade';
import { CIBenchModel } from '../model';
import { CIBenchPanel, PANEL_ID } from '../panel/panel';
import {
  attemptRow,
  attemptView,
  DETAIL,
  fakeActions,
  grade,
  TASKS
} from './fixtures';

function setup() {
  const model = new CIBenchModel();
  const actions = fakeActions();
  const keys = { next: 'Ctrl+Alt+N', 'give-up': '', undo: 'Ctrl+Alt+Z' };
  const panel = new CIBenchPanel(model, actions, action => keys[action]);
  const q = <T extends Element>(sel: string) =>
    panel.node.querySelector<T>(sel);
  const all = (sel: string) => Array.from(panel.node.querySelectorAll(sel));
  return { model, actions, panel, q, all };
}

describe('CIBenchPanel', () => {
  it('is the CIBench sidebar panel', () => {
    const { panel, q } = setup();
    expect(panel.id).toBe(PANEL_ID);
    expect(panel.title.caption).toBe('CIBench');
    expect(q('.jp-CIBench-heading')?.textContent).toBe('CIBench');
  });

  it("shows the user's role small beside the heading once known", () => {
    const { model, q } = setup();
    const role = q<HTMLElement>('.jp-CIBench-title .jp-CIBench-role')!;
    expect(role.hidden).toBe(true);
    model.me = {
      name: 'teach',
      roles: ['participant', 'instructor'],
      classes: ['stats']
    };
    expect(role.hidden).toBe(false);
    expect(role.textContent).toBe('instructor');
    expect(role.title).toBe('teach: participant, instructor; teaches stats');
    model.me = { name: 'ada', roles: ['participant'], classes: [] };
    expect(role.textContent).toBe('participant');
  });

  it("shows the server's one line when task kernels run unpinned", () => {
    const { model, q } = setup();
    const notice = q<HTMLElement>('.jp-CIBench-notice')!;
    expect(notice.hidden).toBe(true);
    const line =
      'task kernels run an unpinned environment (/usr/bin/python3: pandas 3.0.1 (pinned 2.1.4)); ' +
      'built-in tasks may fail or grade differently: `cibench-lab kernel-env` installs the pinned one';
    model.kernelNotice = line;
    expect(notice.hidden).toBe(false);
    expect(notice.textContent).toBe(line);
    expect(notice.getAttribute('role')).toBe('status');
    model.kernelNotice = null;
    expect(notice.hidden).toBe(true);
  });

  it('lists tasks and filters them', () => {
    const { model, q, all } = setup();
    model.tasks = TASKS;
    expect(all('button.jp-CIBench-task')).toHaveLength(3);
    const input = q<HTMLInputElement>('input.jp-CIBench-filter')!;
    expect(input.placeholder).toBe('Filter tasks');
    input.value = 'seaborn';
    input.dispatchEvent(new Event('input'));
    const rows = all('.jp-CIBench-task');
    expect(rows).toHaveLength(1);
    expect(rows[0].textContent).toContain('Tips plots');
    expect(rows[0].textContent).toContain('1 step');
  });

  it('moves from the filter to the rows with the arrow keys', () => {
    const { model, panel, q, all } = setup();
    document.body.appendChild(panel.node);
    model.tasks = TASKS;
    const input = q<HTMLInputElement>('input.jp-CIBench-filter')!;
    input.focus();
    const key = (target: Element, k: string) =>
      target.dispatchEvent(
        new KeyboardEvent('keydown', { key: k, bubbles: true })
      );
    key(input, 'ArrowDown');
    const rows = all('button.jp-CIBench-task');
    expect(document.activeElement).toBe(rows[0]);
    key(rows[0], 'ArrowDown');
    expect(document.activeElement).toBe(rows[1]);
    key(rows[1], 'ArrowUp');
    key(rows[0], 'ArrowUp');
    expect(document.activeElement).toBe(input);
    panel.node.remove();
  });

  it('selects the only match on Enter and focuses its mode', async () => {
    const { model, actions, panel, q } = setup();
    document.body.appendChild(panel.node);
    model.tasks = TASKS;
    actions.selectTask = async (id: string) => {
      actions.calls.push(`select ${id}`);
      model.selected = { ...DETAIL, id };
    };
    const input = q<HTMLInputElement>('input.jp-CIBench-filter')!;
    input.focus();
    const enter = () =>
      input.dispatchEvent(
        new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })
      );
    enter(); // three match: nothing chosen
    expect(actions.calls).toEqual([]);
    input.value = 'seaborn';
    input.dispatchEvent(new Event('input'));
    enter();
    await new Promise(r => setTimeout(r, 0));
    const only = model.visibleTasks[0].id;
    expect(actions.calls).toEqual([`select ${only}`]);
    const mode = q<HTMLInputElement>('input.jp-CIBench-mode:checked')!;
    expect(document.activeElement).toBe(mode);
    // the intro comes first, in a box of its own a keyboard can scroll; the mode choice below it
    const intro = q('.jp-CIBench-intro')!;
    expect(
      mode.compareDocumentPosition(intro) & Node.DOCUMENT_POSITION_PRECEDING
    ).toBeTruthy();
    expect(intro.getAttribute('tabindex')).toBe('0');
    expect(intro.getAttribute('aria-label')).toBe('Task intro');
    panel.node.remove();
  });

  it('selects a task, shows its intro, modes and Start', () => {
    const { model, actions, q, all } = setup();
    model.tasks = TASKS;
    q<HTMLButtonElement>('.jp-CIBench-task')!.click();
    expect(actions.calls).toEqual([`select ${TASKS[0].id}`]);
    model.selected = DETAIL;
    expect(q('.jp-CIBench-intro')?.textContent).toBe(DETAIL.intro);
    const radios = all('input.jp-CIBench-mode') as HTMLInputElement[];
    expect(radios.map(r => r.value)).toEqual(['e2e', 'oracle']);
    expect(radios[0].checked).toBe(true);
    const labels = all('.jp-CIBench-modeOption label').map(l => l.textContent);
    expect(labels).toEqual(['end-to-end', 'oracle']);
    radios[1].checked = true;
    radios[1].dispatchEvent(new Event('change'));
    expect(model.mode).toBe('oracle');
    q<HTMLButtonElement>('.jp-CIBench-start')!.click();
    expect(actions.calls).toContain('start');
  });

  it('disables action buttons while busy', async () => {
    const { model, q } = setup();
    model.selected = DETAIL;
    let release = () => {};
    const work = model.run(() => new Promise<void>(r => (release = r)));
    expect(q<HTMLButtonElement>('.jp-CIBench-start')!.disabled).toBe(true);
    release();
    await work;
    expect(q<HTMLButtonElement>('.jp-CIBench-start')!.disabled).toBe(false);
  });

  it('shows attempts with Resume for open ones', () => {
    const { model, actions, all } = setup();
    model.tasks = TASKS;
    const row: IAttemptSummary = {
      id: 'x1',
      task_id: TASKS[0].id,
      title: TASKS[0].title,
      mode: 'e2e',
      status: 'open',
      current_step: 1,
      n_steps: 3,
      notebook_path: 'a.ipynb',
      created_at: '',
      passed: null,
      language: 'en',
      split: 'cibench_template'
    };
    model.attempts = [row, { ...row, id: 'x2', status: 'done' }];
    const resume = all('.jp-CIBench-resume') as HTMLButtonElement[];
    expect(resume).toHaveLength(1);
    expect(all('.jp-CIBench-attempt')[0].textContent).toContain('step 2 of 3');
    resume[0].click();
    expect(actions.calls).toEqual(['open x1']);
  });

  it('shows the attempt steps and Next / Give up', () => {
    const { model, actions, q, all, panel } = setup();
    model.showAttempt(attemptView());
    expect(
      (panel.node.querySelector('.jp-CIBench-tasksView') as HTMLElement).hidden
    ).toBe(true);
    const steps = all('.jp-CIBench-step');
    expect(steps).toHaveLength(2);
    expect(steps[0].textContent).toContain('Step 1');
    expect(steps[0].textContent).toContain('ran without error');
    expect(steps[1].getAttribute('aria-current')).toBe('step');
    q<HTMLButtonElement>('.jp-CIBench-next')!.click();
    q<HTMLButtonElement>('.jp-CIBench-giveup')!.click();
    expect(actions.calls).toEqual(['next', 'giveUp']);
    expect(q('.jp-CIBench-summary')).toBeNull();
  });

  it('shows the summary and times when the attempt is done', () => {
    const { model, q, all } = setup();
    model.showAttempt(
      attemptView({
        status: 'done',
        summary: {
          tool: 100,
          exec: 50,
          num: 0,
          text: null,
          vis: null,
          counts: { tool: 3, exec: 3, num: 1, text: 0, vis: 0, general: 0 }
        }
      })
    );
    expect(q('.jp-CIBench-next')).toBeNull();
    const rows = all('.jp-CIBench-summary tr').map(tr => tr.textContent);
    expect(rows).toEqual(['Tool100.0', 'Exec50.0', 'Num0.0', 'Text–', 'Vis–']);
    expect(q('.jp-CIBench-times')?.textContent).toContain('12.3 s');
  });

  it('offers you, the configured models and recorded runs as players', () => {
    const { model, q, all } = setup();
    model.selected = DETAIL;
    expect(
      all('select.jp-CIBench-player option').map(o => o.textContent)
    ).toEqual(['You', 'A transcript file (JSONL)…']);
    model.models = [{ name: 'qwen', protocol: 'cibench-react' }];
    model.recordings = [
      {
        id: 'r'.repeat(32),
        run: 'nightly',
        player: 'openai:qwen',
        mode: 'e2e',
        status: 'done',
        created_at: ''
      }
    ];
    const select = q<HTMLSelectElement>('select.jp-CIBench-player')!;
    const groups = all('optgroup').map(g => g.getAttribute('label'));
    expect(groups).toEqual(['Attach a model', 'Replay a run']);
    expect(Array.from(select.options).map(o => o.value)).toEqual([
      '',
      'model:qwen',
      `replay:${'r'.repeat(32)}`,
      'transcript'
    ]);
    expect(q(`label[for="${select.id}"]`)?.textContent).toBe('Player');
    select.value = 'model:qwen';
    select.dispatchEvent(new Event('change'));
    expect(model.playerChoice).toEqual({ model: 'qwen' });
    expect(q<HTMLSelectElement>('select.jp-CIBench-player')!.value).toBe(
      'model:qwen'
    );
  });

  it('keeps the player select (and its focus) while the choices change', () => {
    const { model, panel, q } = setup();
    document.body.appendChild(panel.node);
    model.selected = DETAIL;
    const select = q<HTMLSelectElement>('select.jp-CIBench-player')!;
    select.focus();
    model.models = [{ name: 'qwen', protocol: 'tools' }];
    select.value = 'model:qwen';
    select.dispatchEvent(new Event('change'));
    model.recordings = [];
    expect(q('select.jp-CIBench-player')).toBe(select);
    expect(document.activeElement).toBe(select);
    expect(select.value).toBe('model:qwen');
    model.selected = { ...DETAIL, title: 'Another task' };
    expect(q<HTMLSelectElement>('select.jp-CIBench-player')?.value).toBe(
      'model:qwen'
    );
    panel.node.remove();
  });

  it('replays a transcript file named by its path', () => {
    const { model, q } = setup();
    model.selected = DETAIL;
    expect(q('input.jp-CIBench-transcript')).toBeNull();
    const select = q<HTMLSelectElement>('select.jp-CIBench-player')!;
    select.value = 'transcript';
    select.dispatchEvent(new Event('change'));
    const input = q<HTMLInputElement>('input.jp-CIBench-transcript')!;
    expect(q(`label[for="${input.id}"]`)?.textContent).toContain(
      'path under the server root'
    );
    input.value = 'runs/qwen.jsonl';
    input.dispatchEvent(new Event('input'));
    expect(model.playerChoice).toEqual({ transcript: 'runs/qwen.jsonl' });
    expect(q('input.jp-CIBench-transcript')).toBe(input); // typing does not re-render
  });

  it('says how the kernel is sandboxed and marks an unsandboxed attempt', () => {
    const { model, q } = setup();
    model.showAttempt(attemptView());
    expect(q('.jp-CIBench-sandbox')?.textContent).toBe(
      'Kernel: sandboxed (bubblewrap, no network)'
    );
    expect(q('.jp-CIBench-unsandboxed')).toBeNull();
    model.showAttempt(
      attemptView({ sandbox: { enabled: false, network: true, tool: null } })
    );
    expect(q('.jp-CIBench-unsandboxed')?.textContent).toBe(
      'Kernel: NOT sandboxed'
    );
  });

  it('gives an attached player Play step, Play all and Stop', () => {
    const { model, actions, q } = setup();
    const view = attemptView({ player: 'openai:qwen' });
    model.showAttempt(view);
    expect(q('.jp-CIBench-next')).toBeNull();
    expect(q('.jp-CIBench-attempt-meta')?.textContent).toContain(
      'Player: model qwen'
    );
    const stop = q<HTMLButtonElement>('.jp-CIBench-stop')!;
    expect(stop.disabled).toBe(true);
    q<HTMLButtonElement>('.jp-CIBench-play-step')!.click();
    q<HTMLButtonElement>('.jp-CIBench-play-all')!.click();
    expect(actions.calls).toEqual(['playStep', 'playAll']);
    model.autoplay = { id: view.id, playing: true, status: 'Step 2: waiting…' };
    expect(q<HTMLButtonElement>('.jp-CIBench-play-all')!.disabled).toBe(true);
    expect(stop.disabled).toBe(false);
    expect(q('.jp-CIBench-autoplay-status')?.textContent).toBe(
      'Step 2: waiting…'
    );
    stop.click();
    expect(actions.calls).toContain('stopPlayer');
    model.autoplay = { id: 'another', playing: true, status: 'elsewhere' };
    expect(q<HTMLButtonElement>('.jp-CIBench-play-all')!.disabled).toBe(false);
    expect(q('.jp-CIBench-autoplay-status')?.textContent).toBe('');
  });

  it("opens a step's turns from the step list", () => {
    const { model, actions, all } = setup();
    model.showAttempt(attemptView());
    const buttons = all('.jp-CIBench-turns-button') as HTMLButtonElement[];
    expect(buttons.map(b => b.getAttribute('aria-label'))).toEqual([
      'Turns of Step 1'
    ]);
    buttons[0].click();
    expect(actions.calls).toEqual(['turns 0']);
  });

  it('shows errors in an alert', () => {
    const { model, q } = setup();
    const alert = q<HTMLElement>('.jp-CIBench-error')!;
    expect(alert.hidden).toBe(true);
    model.error = 'unknown task x';
    expect(alert.hidden).toBe(false);
    expect(alert.textContent).toBe('unknown task x');
  });
});

describe('the action bar', () => {
  it('offers Start only once a task is selected', () => {
    const { model, q } = setup();
    const start = () =>
      q<HTMLButtonElement>('.jp-CIBench-actionBar .jp-CIBench-start')!;
    expect(start().disabled).toBe(true);
    expect(q('.jp-CIBench-actionBar')?.textContent).toContain(
      'Select a task to start.'
    );
    model.selected = DETAIL;
    expect(start().disabled).toBe(false);
    expect(start().title).toBe(`Start ${DETAIL.title}`);
  });

  it('shows the step counter, Next step with its shortcut, and Give up', () => {
    const { model, q } = setup();
    model.showAttempt(attemptView());
    const bar = q<HTMLElement>('.jp-CIBench-actionBar')!;
    expect(bar.querySelector('.jp-CIBench-counter')?.textContent).toBe(
      'Step 2 of 3'
    );
    const next = bar.querySelector<HTMLButtonElement>('.jp-CIBench-next')!;
    expect(next.title).toContain('(Ctrl+Alt+N)');
    expect(next.getAttribute('aria-keyshortcuts')).toBe('Ctrl+Alt+N');
    expect(bar.querySelector('.jp-CIBench-giveup')).not.toBeNull();
    // the step list is outside the bar: it scrolls, the bar does not
    expect(bar.querySelector('.jp-CIBench-step')).toBeNull();
  });

  it('counts down a settle with Undo (Enter or Escape) and Settle now', () => {
    const { model, actions, q, panel } = setup();
    document.body.appendChild(panel.node);
    const view = attemptView();
    model.showAttempt(view);
    q<HTMLButtonElement>('.jp-CIBench-next')!.focus();
    model.pending = { attemptId: view.id, step: 1, kind: 'next', remaining: 5 };
    expect(q('.jp-CIBench-next')).toBeNull();
    const undo = q<HTMLButtonElement>('.jp-CIBench-undo')!;
    expect(document.activeElement).toBe(undo); // the focus stays in the bar
    const countdown = q<HTMLElement>('.jp-CIBench-countdown')!;
    expect(countdown.textContent).toBe(
      'Step 2 settles in 5 s — Undo: Ctrl+Alt+Z'
    );
    model.pending = { ...model.pending, remaining: 4 };
    expect(q('.jp-CIBench-countdown')).toBe(countdown); // updated in place
    expect(countdown.textContent).toBe(
      'Step 2 settles in 4 s — Undo: Ctrl+Alt+Z'
    );
    const status = q<HTMLElement>('.jp-CIBench-pending')!;
    expect(status.getAttribute('role')).toBe('status');
    expect(status.getAttribute('aria-live')).toBe('polite');
    expect(status.textContent).toBe('Step 2 settles in 5 s — Undo: Ctrl+Alt+Z');
    expect(undo.getAttribute('aria-keyshortcuts')).toBe('Ctrl+Alt+Z');
    undo.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    q<HTMLButtonElement>('.jp-CIBench-settle-now')!.click();
    expect(actions.calls).toEqual(['undo', 'settleNow']);
    model.pending = null;
    expect(q('.jp-CIBench-next')).not.toBeNull();
    panel.node.remove();
  });

  it("does not show another attempt's countdown", () => {
    const { model, q } = setup();
    model.showAttempt(attemptView());
    model.pending = {
      attemptId: 'other',
      step: 0,
      kind: 'give-up',
      remaining: 3
    };
    expect(q('.jp-CIBench-undo')).toBeNull();
    expect(q('.jp-CIBench-next')).not.toBeNull();
  });

  it('focuses the filter or the main action when opened', async () => {
    const { model, panel, q } = setup();
    document.body.appendChild(panel.node);
    Object.defineProperty(panel, 'isVisible', { value: true });
    const opened = async () => {
      panel.focusInside();
      await Promise.resolve(); // the focus goes through the message loop
      MessageLoop.flush();
    };
    await opened();
    expect(document.activeElement).toBe(q('.jp-CIBench-filter'));
    model.showAttempt(attemptView());
    await opened();
    expect(document.activeElement).toBe(q('.jp-CIBench-next'));
    // taken away by the lab right after: given back
    (document.activeElement as HTMLElement).blur();
    await new Promise(r => setTimeout(r, 150));
    expect(document.activeElement).toBe(q('.jp-CIBench-next'));
    q<HTMLButtonElement>('.jp-CIBench-back')!.click();
    expect(model.view).toBe('tasks');
    expect(document.activeElement).toBe(q('.jp-CIBench-filter'));
    panel.dispose(); // ends the hold
    panel.node.remove();
  });
});

describe('the attempt view', () => {
  it('scrolls the step list to the open step once per step', async () => {
    const { model, panel } = setup();
    document.body.appendChild(panel.node);
    const scrolled: string[] = [];
    const proto = HTMLElement.prototype as unknown as {
      scrollIntoView?: () => void;
    };
    const before = proto.scrollIntoView;
    proto.scrollIntoView = function (this: HTMLElement) {
      scrolled.push(
        this.querySelector('.jp-CIBench-step-label')?.textContent ?? ''
      );
    };
    try {
      const view = attemptView();
      model.showAttempt(view);
      await Promise.resolve();
      expect(scrolled).toHaveLength(1);
      expect(scrolled[0]).toContain('Step 2');
      model.showAttempt({ ...view }); // the same open step: the scroll is left be
      await Promise.resolve();
      expect(scrolled).toHaveLength(1);
    } finally {
      proto.scrollIntoView = before;
      panel.node.remove();
    }
  });

  it('names the grade rule and says when the notebook is closed', () => {
    const { model, actions, q } = setup();
    const view = attemptView();
    view.settings = { ...view.settings, grade_rule: 'best' };
    model.showAttempt(view); // as after Start: the notebook is still opening
    expect(q('.jp-CIBench-attempt-meta')?.textContent).toContain(
      'Grades: best run kept'
    );
    const state = () => q('.jp-CIBench-notebookState')?.textContent;
    const closed = () => !!q('.jp-CIBench-notebookClosed');
    expect([state(), closed()]).toEqual([
      'Notebook: wine_quality.ipynb',
      false
    ]);
    model.setNotebook(view.id, true);
    expect([state(), closed()]).toEqual([
      'Notebook: wine_quality.ipynb',
      false
    ]);
    model.setNotebook(view.id, false); // a real close
    expect([state(), closed()]).toEqual([
      'Notebook closed: wine_quality.ipynb',
      true
    ]);
    model.setNotebook(view.id, true); // opened again
    expect([state(), closed()]).toEqual([
      'Notebook: wine_quality.ipynb',
      false
    ]);
    q<HTMLButtonElement>('.jp-CIBench-open')!.click();
    expect(actions.calls).toEqual(['openNotebook']);
  });

  it("shows a settled step's reference: Thought, code, output and plot", () => {
    const { model, q, all } = setup();
    const view = attemptView();
    view.steps[0] = {
      ...view.steps[0],
      reference: {
        code: "df = pd.read_csv('wine.csv')",
        thought: 'Load the data first.',
        output: '',
        image: 'iVBORw0KGgo='
      }
    };
    model.showAttempt(view);
    const ref = q<HTMLDetailsElement>('.jp-CIBench-reference[data-step="0"]')!;
    expect(ref.open).toBe(false);
    expect(ref.querySelector('summary')?.textContent).toBe(
      'Reference for Step 1'
    );
    expect(ref.querySelector('.jp-CIBench-ref-code pre')?.textContent).toBe(
      "df = pd.read_csv('wine.csv')"
    );
    expect(ref.querySelector('.jp-CIBench-ref-thought')?.textContent).toContain(
      'Load the data first.'
    );
    expect(ref.querySelector('.jp-CIBench-ref-output')).toBeNull(); // empty
    const img = ref.querySelector('img')!;
    expect(img.getAttribute('src')).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(img.getAttribute('alt')).toBe('The reference plot of Step 1');
    expect(all('.jp-CIBench-reference')).toHaveLength(1);
    // an expanded reference stays expanded when the view updates
    ref.open = true;
    ref.dispatchEvent(new Event('toggle'));
    model.attempt = { ...view };
    expect(q<HTMLDetailsElement>('.jp-CIBench-reference')!.open).toBe(true);
  });

  it('says pass or miss in words, and how the open step passes', () => {
    const { model, q } = setup();
    const view = attemptView();
    view.steps[1] = {
      ...view.steps[1],
      turns: 2,
      grade: grade({ passed: false, detail: 'expected 3, got 4' }),
      criterion: 'passes when the printed number matches'
    };
    model.showAttempt(view);
    const rows = q<HTMLElement>('.jp-CIBench-steps')!;
    expect(rows.children[0].textContent).toContain('passed (kept)');
    expect(rows.children[1].textContent).toContain(
      'missed (so far): expected 3, got 4'
    );
    expect(q('.jp-CIBench-step-criterion')?.textContent).toBe(
      'How it passes: passes when the printed number matches'
    );
  });

  it('says a step settled without a run was, in the words of its badge', () => {
    const { model, q } = setup();
    const view = attemptView();
    const unrun = grade({
      passed: false,
      tool: 0,
      exec: 0,
      detail: 'not run yet'
    });
    view.steps[1] = {
      ...view.steps[1],
      settled: true,
      outcome: 'gave_up',
      grade: unrun
    };
    model.showAttempt(view);
    const row = q<HTMLElement>('.jp-CIBench-step[data-step="1"]')!;
    const outcome = row.querySelector('.jp-CIBench-step-outcome');
    expect(outcome?.textContent).toBe('gave up · no run');
    expect(outcome?.textContent).toBe(stepGradeText(view.steps[1])); // the badge's note
    expect(row.querySelector('.jp-CIBench-step-grade')?.textContent).toBe(
      '✗ missed (kept)'
    );
    expect(row.textContent).not.toContain('not run yet');
    expect(row.querySelector('.jp-CIBench-turns-button')).toBeNull();
    model.attempt = attemptView({
      steps: [view.steps[0], { ...view.steps[1], outcome: 'next' }]
    });
    expect(
      q('.jp-CIBench-step[data-step="1"] .jp-CIBench-step-outcome')?.textContent
    ).toBe('settled · no run');
    const ran = q('.jp-CIBench-step[data-step="0"]')!;
    expect(ran.querySelector('.jp-CIBench-step-outcome')?.textContent).toBe(
      'settled · 1 turn'
    );
    expect(ran.querySelector('.jp-CIBench-step-grade')?.textContent).toBe(
      '✓ passed (kept): ran without error'
    );
  });

  it("says in the step list and the summary that a step settled at the cap's limit", () => {
    const { model, q, all } = setup();
    const view = attemptView();
    view.steps[1] = {
      ...view.steps[1],
      turns: 3,
      settled: true,
      outcome: 'turn_cap',
      run_limit: 3
    };
    model.showAttempt(view);
    expect(
      q('.jp-CIBench-step[data-step="1"] .jp-CIBench-step-outcome')?.textContent
    ).toBe('settled at the 3-run limit · 3 turns');
    model.showAttempt({ ...view, status: 'done', next: { do: 'done' } });
    const cells = all('.jp-CIBench-times tbody tr:nth-child(2) td');
    expect(cells[0]?.textContent).toBe('settled at the 3-run limit');
  });

  it('collapses the step list and keeps it collapsed', () => {
    const { model, q } = setup();
    model.showAttempt(attemptView());
    const list = q<HTMLDetailsElement>('.jp-CIBench-stepList')!;
    expect(list.open).toBe(true);
    expect(list.querySelector('summary')?.textContent).toBe(
      'Steps (1 of 3 steps settled)'
    );
    list.open = false;
    list.dispatchEvent(new Event('toggle'));
    model.attempt = attemptView({ current_step: 1 });
    expect(q<HTMLDetailsElement>('.jp-CIBench-stepList')!.open).toBe(false);
  });

  it('summarises per step: outcome, kept grade, working and wall time', () => {
    const { model, all } = setup();
    const done = attemptView({ status: 'done' });
    done.steps = [
      { ...done.steps[0], working_seconds: 8 },
      {
        ...done.steps[1],
        settled: true,
        outcome: 'gave_up',
        seconds: 70,
        working_seconds: null,
        grade: grade({ passed: false, score: 0 })
      }
    ];
    model.showAttempt(done);
    const heads = all('.jp-CIBench-times thead th').map(t => t.textContent);
    expect(heads).toEqual([
      'Step',
      'Outcome',
      'Kept grade',
      'Time (working / wall)'
    ]);
    const cells = all('.jp-CIBench-times tbody tr').map(tr =>
      Array.from(tr.children).map(c => c.textContent)
    );
    expect(cells).toEqual([
      ['1', 'settled', 'passed · 1.00', '8.0 s / 12.3 s'],
      ['2', 'gave up', 'missed · 0.00', '– / 1m 10s']
    ]);
  });

  it('summarises a quit attempt by the grades kept up to the quit, no means', () => {
    const { model, q, all } = setup();
    const quit = attemptView({ status: 'quit', kernel: 'stopped' });
    quit.steps[1] = { ...quit.steps[1], turns: 2 }; // ran, never settled
    model.showAttempt(quit);
    const cells = all('.jp-CIBench-times tbody tr').map(tr =>
      Array.from(tr.children).map(c => c.textContent)
    );
    expect(cells).toEqual([
      ['1', 'settled', 'passed · 1.00', '10.5 s / 12.3 s'],
      ['2', 'quit', 'not graded (quit)', '3.0 s / –'],
      ['3', 'not played', '–', '–']
    ]);
    expect(q('.jp-CIBench-passed')?.textContent).toBe(
      '1 of 1 settled step passed'
    );
    expect(q('.jp-CIBench-summary')).toBeNull(); // no means over steps never graded
    expect(q('.jp-CIBench-quitNote')?.textContent).toContain(
      'Quit at step 2 of 3: only the steps settled before the quit keep a grade'
    );
    expect(q('.jp-CIBench-counter')?.textContent).toBe('Quit at step 2 of 3');
  });

  it("shows the summary's other profile one click away", () => {
    const { model, q, all } = setup();
    const summary = (tool: number) => ({
      tool,
      exec: tool,
      num: null,
      text: null,
      vis: null,
      counts: {}
    });
    model.showAttempt(
      attemptView({
        status: 'done',
        profile: 'fair',
        summary: summary(90),
        summaries: { fair: summary(90), cibench: summary(80) }
      })
    );
    const tabs = all('.jp-CIBench-profile') as HTMLButtonElement[];
    expect(tabs.map(t => t.textContent)).toEqual(['fair (shown)', 'cibench']);
    expect(tabs[0].getAttribute('aria-pressed')).toBe('true');
    expect(q('.jp-CIBench-summary tr')?.textContent).toBe('Tool90.0');
    tabs[1].click();
    expect(q('.jp-CIBench-summary caption')?.textContent).toContain('cibench');
    expect(q('.jp-CIBench-summary tr')?.textContent).toBe('Tool80.0');
    expect(
      q('.jp-CIBench-profile[data-profile="cibench"]')?.getAttribute(
        'aria-pressed'
      )
    ).toBe('true');
  });

  it("shows the chosen profile's kept grades, a legend and a missed plot's bar", () => {
    const { model, q, all } = setup();
    const summary = (vis: number) => ({
      tool: 100,
      exec: 100,
      num: null,
      text: null,
      vis,
      counts: {}
    });
    const fair = grade({
      profile: 'fair',
      kind: 'vis',
      score: 0.8,
      passed: false
    });
    const cib = grade({ profile: 'cibench', kind: 'vis', score: 0.997 });
    const base = attemptView();
    model.showAttempt(
      attemptView({
        status: 'done',
        profile: 'fair',
        summary: summary(80),
        summaries: { fair: summary(80), cibench: summary(99.5) },
        steps: [
          {
            ...base.steps[0],
            kind: 'vis',
            grade: fair,
            grades: { fair, cibench: cib }
          }
        ]
      })
    );
    const kept = () =>
      all('.jp-CIBench-times tbody tr td').map(td => td.textContent)[1];
    expect(kept()).toBe('missed · 0.80 (pass at 1.00)');
    q<HTMLButtonElement>(
      '.jp-CIBench-profile[data-profile="cibench"]'
    )!.click();
    expect(q('.jp-CIBench-times')?.getAttribute('data-profile')).toBe(
      'cibench'
    );
    expect(kept()).toBe('passed · 1.00'); // 0.997: cibench's SSIM pass
    const terms = all('.jp-CIBench-legend dt').map(dt => dt.textContent);
    expect(terms).toEqual(['Tool', 'Exec', 'Num', 'Text', 'Vis']);
    expect(q('.jp-CIBench-legend')?.textContent).toContain(
      'partial scores count'
    );
  });

  it('has no profile tabs when only one summary is stored', () => {
    const { model, q } = setup();
    model.showAttempt(attemptView({ status: 'done', summaries: undefined }));
    expect(q('.jp-CIBench-profiles')).toBeNull();
  });
});

describe('the task view', () => {
  it('filters by facets and counts the matches', () => {
    const { model, q, all } = setup();
    model.tasks = TASKS;
    expect(q('.jp-CIBench-count')?.textContent).toBe('3 tasks');
    const language = q<HTMLSelectElement>('select[data-facet="language"]')!;
    expect(Array.from(language.options).map(o => o.textContent)).toEqual([
      'All',
      'English (2)',
      'Chinese (1)'
    ]);
    expect(q(`label[for="${language.id}"]`)?.textContent).toBe('Language');
    language.value = 'zh';
    language.dispatchEvent(new Event('change'));
    expect(all('.jp-CIBench-task')).toHaveLength(1);
    expect(q('.jp-CIBench-count')?.textContent).toBe('1 of 3 tasks');
    expect(model.facets.language).toBe('zh');
  });

  it('marks tasks already attempted and refreshes the marks', () => {
    const { model, q } = setup();
    model.tasks = TASKS;
    expect(q('.jp-CIBench-task-mark')).toBeNull();
    model.attempts = [
      attemptRow({
        status: 'done',
        passed: 2,
        created_at: '2024-05-06T00:00:00Z'
      })
    ];
    expect(q('.jp-CIBench-task-mark')?.textContent).toBe(
      'attempted 2024-05-06 · 2/3 passed'
    );
    expect(q('.jp-CIBench-attempt')?.textContent).toContain(
      'finished 2024-05-06 · 2/3 passed'
    );
    model.attempts = [
      attemptRow({
        status: 'quit',
        current_step: 1,
        created_at: '2024-05-07T00:00:00Z'
      })
    ];
    expect(q('.jp-CIBench-attempt')?.textContent).toContain(
      'quit 2024-05-07 at step 2 of 3'
    );
  });

  it('keeps the focus on a task row when the list re-renders', () => {
    const { model, panel, q } = setup();
    document.body.appendChild(panel.node);
    model.tasks = TASKS;
    const id = TASKS[1].id;
    q<HTMLButtonElement>(`.jp-CIBench-task[data-task-id="${id}"]`)!.focus();
    model.selected = { ...DETAIL, id };
    const row = q<HTMLButtonElement>(`.jp-CIBench-task[data-task-id="${id}"]`)!;
    expect(row.getAttribute('aria-pressed')).toBe('true');
    expect(document.activeElement).toBe(row);
    panel.node.remove();
  });
});

describe('focus in the attempt view', () => {
  it('stays on the same control when the view updates', () => {
    const { model, panel, q } = setup();
    document.body.appendChild(panel.node);
    model.showAttempt(attemptView());
    q<HTMLButtonElement>('.jp-CIBench-turns-button')!.focus();
    model.attempt = attemptView({ current_step: 1 });
    const again = q<HTMLButtonElement>('.jp-CIBench-turns-button')!;
    expect(document.activeElement).toBe(again);
    panel.node.remove();
  });
});

describe('CIBenchPanel: the participant record', () => {
  it('pauses and resumes the working clock, its state in words', () => {
    const { model, actions, q } = setup();
    model.showAttempt(attemptView());
    expect(q('.jp-CIBench-clock')?.textContent).toBe('Clock running');
    q<HTMLButtonElement>('.jp-CIBench-pause')!.click();
    model.attempt = attemptView({
      paused: true,
      pauses: [
        {
          step: 1,
          start: '2024-01-01T00:00:20Z',
          end: null,
          cause: 'button',
          resumed_by: null
        }
      ]
    });
    expect(q('.jp-CIBench-pause')).toBeNull();
    const clock = q('.jp-CIBench-clock-paused')!;
    expect(clock.getAttribute('role')).toBe('status');
    expect(clock.textContent).toContain(
      'Clock paused: this time does not count'
    );
    q<HTMLButtonElement>('.jp-CIBench-resume')!.click();
    expect(actions.calls).toEqual(['pause button', 'resume button']);
    model.attempt = attemptView({ player: 'openai:qwen' }); // no clock for a player
    expect(q('.jp-CIBench-clock')).toBeNull();
  });

  it('keeps the focus on the clock button when it turns into Resume', () => {
    const { model, q, panel } = setup();
    document.body.appendChild(panel.node);
    model.showAttempt(attemptView());
    q<HTMLButtonElement>('.jp-CIBench-pause')!.focus();
    model.attempt = attemptView({ paused: true });
    expect(document.activeElement).toBe(q('.jp-CIBench-resume'));
    panel.node.remove();
  });

  it("saves the open step's note while typing and on leaving the box", async () => {
    jest.useFakeTimers();
    try {
      const { model, actions, all, q } = setup();
      model.showAttempt(attemptView());
      const box = q<HTMLTextAreaElement>('textarea.jp-CIBench-note-text')!;
      expect(box.id).toBe(`jp-CIBench-note-${'a'.repeat(32)}-1`);
      const label = all('label.jp-CIBench-note-label')[0];
      expect(label.textContent).toBe('Note on Step 2');
      expect(label.getAttribute('for')).toBe(box.id);
      box.value = 'the mean';
      box.dispatchEvent(new Event('input'));
      box.value = 'the mean is 5';
      box.dispatchEvent(new Event('input'));
      jest.advanceTimersByTime(900);
      expect(actions.calls).toEqual([]); // debounced
      jest.advanceTimersByTime(200);
      await Promise.resolve();
      expect(actions.calls).toEqual(['note 1 the mean is 5']);
      model.attempt = attemptView(); // a re-render keeps the box and its text
      expect(q('textarea.jp-CIBench-note-text')).toBe(box);
      box.value = 'the mean is 5.2';
      box.dispatchEvent(new Event('input'));
      box.dispatchEvent(new Event('blur')); // at once
      await Promise.resolve();
      expect(actions.calls).toEqual([
        'note 1 the mean is 5',
        'note 1 the mean is 5.2'
      ]);
      box.value = 'x'.repeat(10_001);
      box.dispatchEvent(new Event('input'));
      box.dispatchEvent(new Event('blur'));
      const status = q(`[id="${box.id}-status"]`)!;
      expect(status.textContent).toBe(
        'Too long to save: 10001 of at most 10000 characters.'
      );
      expect(box.getAttribute('aria-invalid')).toBe('true');
      expect(actions.calls).toHaveLength(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it("shows a settled step's note read-only", () => {
    const { model, all } = setup();
    const view = attemptView();
    view.steps[0] = { ...view.steps[0], note: 'used groupby' };
    model.showAttempt(view);
    expect(all('.jp-CIBench-step-note').map(n => n.textContent)).toEqual([
      'Note: used groupby'
    ]);
  });
});
