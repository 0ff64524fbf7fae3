/**
 * What a Qwen benchmark attempt's grades say in the panel: a step not graded
 * (visualization without a judge) is neither passed nor missed in the step
 * list, the summary's headline, the attempt and task lists and the class
 * view; the summary shows the family's measures; the headline follows the
 * profile whose table is shown; the step's kind is its family; a GSM8K
 * answer is a reference without code.
 */
import { IAttemptView, IGrade, ITaskSummary } from '../api';
import { cellText } from '../class/table';
import { rateText } from '../class/chart';
import { CIBenchModel } from '../model';
import { referenceMarkdown } from '../notebook/reference';
import { CIBenchPanel } from '../panel/panel';
import { passedText } from '../panel/summary';
import { passedCount } from '../panel/words';
import { attemptRow, attemptView, fakeActions, grade } from './fixtures';

const VIS: ITaskSummary = {
  id: 'cibench_qwen/qwen-vis/ci_0001',
  title: 'Sales bar chart',
  split: 'cibench_qwen',
  lib: 'qwen-vis',
  language: 'en',
  libraries: ['qwen-vis'],
  steps: 1,
  kinds: ['exec'],
  benchmark: 'qwen'
};
const GSM: ITaskSummary = {
  ...VIS,
  id: 'cibench_qwen/qwen-math/gsm8k_0003',
  title: 'Eggs',
  lib: 'qwen-math',
  libraries: ['qwen-math']
};

const NO_JUDGE = grade({
  profile: 'fair',
  kind: 'exec',
  metric: 'qwen_judge',
  score: null,
  passed: false,
  detail: 'not graded (no judge configured)',
  ungradable: 'no judge configured'
});

function qwenGrade(profile: string, right: boolean): IGrade {
  return grade({
    profile,
    kind: 'exec',
    metric: 'qwen_accuracy',
    score: right ? 1 : 0,
    passed: right,
    detail: `answer read: ${right ? 2100 : 2} · ${right ? 'right' : 'wrong'}`
  });
}

/** A finished one-step Qwen attempt whose step kept `fair` (and `cibench`). */
function done(task: ITaskSummary, fair: IGrade, cibench: IGrade): IAttemptView {
  const base = attemptView();
  const measures = (g: IGrade) => ({
    executable: 100,
    accuracy: g.score === null ? null : 100 * g.score,
    accuracy_of: g.metric === 'qwen_judge' ? 'visualization' : 'math',
    steps: 1,
    not_graded: g.score === null ? 1 : 0
  });
  const summary = (g: IGrade) => ({
    tool: 100,
    exec: 100,
    num: null,
    text: null,
    vis: null,
    counts: {},
    benchmark_measures: measures(g)
  });
  return attemptView({
    task_id: task.id,
    status: 'done',
    profile: 'fair',
    n_steps: 1,
    kinds: ['exec'],
    current_step: 0,
    next: { do: 'done' },
    summary: summary(fair),
    summaries: { fair: summary(fair), cibench: summary(cibench) },
    steps: [
      {
        ...base.steps[0],
        kind: 'exec',
        outcome: 'next',
        grade: fair,
        grades: { fair, cibench }
      }
    ]
  });
}

function setup(tasks: ITaskSummary[]) {
  const model = new CIBenchModel();
  const panel = new CIBenchPanel(model, fakeActions(), () => '');
  model.tasks = tasks;
  const q = (sel: string) => panel.node.querySelector<HTMLElement>(sel);
  const all = (sel: string) =>
    Array.from(panel.node.querySelectorAll<HTMLElement>(sel));
  return { model, q, all };
}

describe('a Qwen step not graded', () => {
  it('is neutral in the step list and the headline, with its reason', () => {
    const { model, q } = setup([VIS]);
    model.showAttempt(done(VIS, NO_JUDGE, { ...NO_JUDGE, profile: 'cibench' }));
    const line = q('.jp-CIBench-step-grade')!;
    expect(line.className).toContain('jp-CIBench-grade-none');
    expect(line.textContent).toBe('– not graded (no judge configured)');
    expect(q('.jp-CIBench-passed')?.textContent).toBe(
      'Not graded: neither passed nor missed'
    );
    expect(q('.jp-CIBench-step-kind')?.textContent).toBe('visualization');
  });

  it('counts apart from passed and missed steps', () => {
    const view = done(VIS, NO_JUDGE, NO_JUDGE);
    view.n_steps = 2;
    view.steps = [
      view.steps[0],
      { ...view.steps[0], index: 1, grade: qwenGrade('fair', false) }
    ];
    expect(passedText(view)).toBe('0 of 1 graded step passed · 1 not graded');
    expect(passedCount({ passed: 0, not_graded: 1, n_steps: 1 })).toBe(
      'not graded'
    );
    expect(passedCount({ passed: 1, not_graded: 1, n_steps: 3 })).toBe(
      '1/2 passed · 1 not graded'
    );
    expect(passedCount({ passed: 2, n_steps: 3 })).toBe('2/3 passed');
  });

  it('says "not graded" in My attempts and the task list, and "Qwen benchmark" for its mode', () => {
    const { model, q } = setup([VIS]);
    const row = attemptRow({
      task_id: VIS.id,
      status: 'done',
      n_steps: 1,
      passed: 0,
      not_graded: 1,
      created_at: '2024-05-06T00:00:00Z'
    });
    model.attempts = [row];
    expect(q('.jp-CIBench-attempt .jp-CIBench-task-meta')?.textContent).toBe(
      'Qwen benchmark · finished 2024-05-06 · not graded'
    );
    expect(q('.jp-CIBench-task')?.textContent).toContain(
      'attempted 2024-05-06 · not graded'
    );
    model.tasks = []; // the task is gone: its split still tells
    expect(q('.jp-CIBench-attempt .jp-CIBench-task-meta')?.textContent).toBe(
      'Qwen benchmark · finished 2024-05-06 · not graded'
    );
  });

  it('is neither passed nor missed in the class view', () => {
    const cell = {
      participant: 'ada',
      task_id: VIS.id,
      title: 'Sales',
      attempt_id: 'a'.repeat(32),
      status: 'done' as const,
      current_step: 0,
      n_steps: 1,
      step_seconds: null,
      passed: 0,
      settled: 0, // a settled step that measured nothing is not counted as settled-and-graded
      not_graded: 1,
      score: null,
      created_at: '2026-01-01T10:00:00Z'
    };
    expect(cellText(cell)).toBe('done (1 step) · – · not graded');
    const rate = {
      task_id: VIS.id,
      step: 0,
      reached: 3,
      settled: 3,
      passed: 1
    };
    expect(rateText({ ...rate, not_graded: 1 })).toBe(
      'step 1: 1 of 2 who settled it passed (50%) · 1 not graded'
    );
  });
});

describe("a Qwen attempt's summary", () => {
  it("shows the family's measures, not CIBench's metrics", () => {
    const { model, all } = setup([GSM]);
    model.showAttempt(
      done(GSM, qwenGrade('fair', true), qwenGrade('cibench', false))
    );
    const rows = all('.jp-CIBench-summary tr').map(r => r.textContent);
    expect(rows).toEqual(['Executable100.0', 'Accuracy (math)100.0']);
    const legend = all('.jp-CIBench-legend dt').map(d => d.textContent);
    expect(legend).toEqual(['Executable', 'Accuracy (math)']);
  });

  it('says "not graded" for a visualization accuracy without a judge', () => {
    const { model, all } = setup([VIS]);
    model.showAttempt(done(VIS, NO_JUDGE, { ...NO_JUDGE, profile: 'cibench' }));
    const rows = all('.jp-CIBench-summary tr').map(r => r.textContent);
    expect(rows).toEqual([
      'Executable100.0',
      'Accuracy (visualization)not graded'
    ]);
  });

  it("follows the chosen profile's verdict in the headline and the steps", () => {
    const { model, q } = setup([GSM]);
    model.showAttempt(
      done(GSM, qwenGrade('fair', true), qwenGrade('cibench', false))
    );
    const kept = () =>
      q('.jp-CIBench-times tbody tr td:nth-child(3)')?.textContent;
    expect(q('.jp-CIBench-passed')?.textContent).toBe('1 of 1 step passed');
    expect(kept()).toBe('passed · 1.00');
    q('.jp-CIBench-profile[data-profile="cibench"]')!.click();
    expect(q('.jp-CIBench-passed')?.textContent).toBe(
      '0 of 1 step passed (qwen profile)'
    );
    expect(kept()).toBe('missed · 0.00');
    expect(q('.jp-CIBench-summary tr:nth-child(2)')?.textContent).toBe(
      'Accuracy (math)0.0'
    );
  });
});

describe("a GSM8K item's reference", () => {
  it('is its answer, without an empty code block', () => {
    const md = referenceMarkdown(0, {
      code: '',
      thought: '',
      output: '1050 * 2 = <<1050*2=2100>>2100\n#### 2,100',
      image: null
    });
    expect(md).toContain("the task's answer (read-only)");
    expect(md).not.toContain('```python');
    expect(md).toContain('#### 2,100');
  });
});
