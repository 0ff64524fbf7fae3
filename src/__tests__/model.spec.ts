import {
  ChangeKind,
  CIBenchModel,
  DASH,
  filterTasks,
  formatScore,
  formatSeconds,
  modeLabel,
  outcomeText,
  stepLabel,
  summaryRows
} from '../model';
import { attemptView, DETAIL, TASKS } from './fixtures';

describe('filterTasks', () => {
  it('returns every task for empty or blank text', () => {
    expect(filterTasks(TASKS, '')).toEqual(TASKS);
    expect(filterTasks(TASKS, '   ')).toHaveLength(3);
  });

  it('matches the title case-insensitively', () => {
    expect(filterTasks(TASKS, 'WINE').map(t => t.title)).toEqual([
      'Wine quality'
    ]);
  });

  it('matches the id, the library and the language', () => {
    expect(filterTasks(TASKS, 'generation').map(t => t.lib)).toEqual([
      'seaborn'
    ]);
    expect(filterTasks(TASKS, 'nltk').map(t => t.lib)).toEqual(['nltk']);
    expect(filterTasks(TASKS, 'zh').map(t => t.lib)).toEqual(['nltk']);
    expect(filterTasks(TASKS, '语料')).toHaveLength(1);
  });

  it('matches libraries used by a task and needs every word', () => {
    expect(filterTasks(TASKS, 'matplotlib').map(t => t.lib)).toEqual([
      'pandas'
    ]);
    expect(filterTasks(TASKS, 'en seaborn').map(t => t.lib)).toEqual([
      'seaborn'
    ]);
    expect(filterTasks(TASKS, 'pandas seaborn')).toEqual([]);
  });

  it('does not change its input', () => {
    const copy = TASKS.slice();
    filterTasks(TASKS, 'wine');
    expect(TASKS).toEqual(copy);
  });
});

describe('summaryRows', () => {
  it('formats the five metrics (already x100) with one decimal', () => {
    const rows = summaryRows({
      tool: 100,
      exec: 66.67,
      num: 50,
      text: null,
      vis: 91.234,
      counts: { tool: 3, exec: 3, num: 1, text: 0, vis: 1 }
    });
    expect(rows).toEqual([
      ['Tool', '100.0'],
      ['Exec', '66.7'],
      ['Num', '50.0'],
      ['Text', DASH],
      ['Vis', '91.2']
    ]);
    expect(DASH).toBe('–');
  });

  it('shows dashes without a summary', () => {
    expect(summaryRows(null).map(r => r[1])).toEqual(['–', '–', '–', '–', '–']);
  });

  it('formats 0 as a number, not a dash', () => {
    expect(formatScore(0)).toBe('0.0');
    expect(formatScore(NaN)).toBe(DASH);
  });
});

describe('labels', () => {
  it('numbers steps from 1', () => {
    expect(stepLabel(0)).toBe('Step 1');
    expect(stepLabel(11)).toBe('Step 12');
  });

  it('names the modes', () => {
    expect(modeLabel('e2e')).toBe('end-to-end');
    expect(modeLabel('oracle')).toBe('oracle');
  });

  it('formats seconds and outcomes', () => {
    expect(formatSeconds(12.34)).toBe('12.3 s');
    expect(formatSeconds(65)).toBe('1m 05s');
    expect(formatSeconds(null)).toBe(DASH);
    // the outcome words are grade.ts's (grade.spec.ts has them all)
    expect(outcomeText(null, false)).toBe('open');
    expect(outcomeText('gave_up', true)).toBe('gave up');
  });
});

describe('CIBenchModel', () => {
  let model: CIBenchModel;
  let changes: ChangeKind[];

  beforeEach(() => {
    model = new CIBenchModel();
    changes = [];
    model.changed.connect((_, kind) => changes.push(kind));
  });

  it('emits "tasks" when the task list is set', () => {
    model.tasks = TASKS;
    expect(changes).toEqual(['tasks']);
    expect(model.tasks).toHaveLength(3);
    expect(model.visibleTasks).toHaveLength(3);
  });

  it('updates visible tasks with the filter and emits "filter" once', () => {
    model.tasks = TASKS;
    model.filter = 'seaborn';
    model.filter = 'seaborn';
    expect(changes).toEqual(['tasks', 'filter']);
    expect(model.visibleTasks.map(t => t.lib)).toEqual(['seaborn']);
    model.filter = '';
    expect(model.visibleTasks).toHaveLength(3);
  });

  it('keeps the selected task, mode and view', () => {
    expect(model.mode).toBe('e2e');
    model.selected = DETAIL;
    model.mode = 'oracle';
    model.mode = 'oracle';
    expect(model.selected?.intro).toContain('wine');
    expect(changes).toEqual(['selected', 'mode']);
    const view = attemptView();
    model.showAttempt(view);
    expect(model.view).toBe('attempt');
    expect(model.attempt).toBe(view);
    expect(changes.slice(2)).toEqual(['attempt', 'view']);
  });

  it('updates the attempt only when it shows the same attempt', () => {
    model.showAttempt(attemptView());
    model.updateAttempt(attemptView({ id: 'b'.repeat(32), title: 'Other' }));
    expect(model.attempt?.title).toBe('Wine quality');
    model.updateAttempt(attemptView({ current_step: 2 }));
    expect(model.attempt?.current_step).toBe(2);
  });

  it('shows the attempt of a reopened notebook without leaving a restored study view', () => {
    const view = attemptView();
    model.showReopened(view);
    expect(model.view).toBe('attempt'); // from the task list: its attempt view
    model.attempt = null;
    model.study = 'pilot';
    model.view = 'study';
    model.showReopened(view);
    expect(model.view).toBe('study');
    expect(model.attempt).toBe(view);
    model.view = 'results';
    model.showReopened(attemptView({ id: 'b'.repeat(32) }));
    expect(model.view).toBe('results');
  });

  it('knows task titles by id', () => {
    model.tasks = TASKS;
    expect(model.titleOf(TASKS[1].id)).toBe('语料分析');
    expect(model.titleOf('nope/x/y')).toBe('nope/x/y');
  });

  it('run() sets busy while working and returns the result', async () => {
    const busy: boolean[] = [];
    model.changed.connect((m, kind) => kind === 'busy' && busy.push(m.busy));
    const result = await model.run(async () => 42);
    expect(result).toBe(42);
    expect(busy).toEqual([true, false]);
    expect(model.busy).toBe(false);
    expect(model.error).toBeNull();
  });

  it('run() turns a failure into the error message', async () => {
    const result = await model.run(async () => {
      throw new Error('unknown task x');
    });
    expect(result).toBeUndefined();
    expect(model.error).toBe('unknown task x');
    expect(model.busy).toBe(false);
    await model.run(async () => 1);
    expect(model.error).toBeNull();
  });
});
