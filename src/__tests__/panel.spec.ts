import { IAttemptSummary } from '../api';
import { CIBenchModel } from '../model';
import { IPanelActions } from '../panel/actions';
import { CIBenchPanel, PANEL_ID } from '../panel/panel';
import { attemptView, DETAIL, TASKS } from './fixtures';

function fakeActions(): IPanelActions & { calls: string[] } {
  const calls: string[] = [];
  const record = (name: string) => async () => {
    calls.push(name);
  };
  return {
    calls,
    refresh: record('refresh'),
    selectTask: async (id: string) => {
      calls.push(`select ${id}`);
    },
    start: record('start'),
    open: async (a: IAttemptSummary) => {
      calls.push(`open ${a.id}`);
    },
    openNotebook: record('openNotebook'),
    next: record('next'),
    giveUp: record('giveUp'),
    playStep: record('playStep'),
    playAll: record('playAll'),
    stopPlayer: record('stopPlayer'),
    showTurns: async (step: number) => {
      calls.push(`turns ${step}`);
    }
  };
}

function setup() {
  const model = new CIBenchModel();
  const actions = fakeActions();
  const panel = new CIBenchPanel(model, actions);
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
