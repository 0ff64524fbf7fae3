import { CIBenchModel } from '../model';
import { AttemptList } from '../panel/attemptlist';
import { TaskIntro } from '../panel/intro';
import { PlayerChoice } from '../panel/players';
import { TaskList } from '../panel/tasklist';
import { TasksView } from '../panel/tasks';
import { attemptRow, DETAIL, fakeActions, TASKS } from './fixtures';

/** A task view following its model, as the panel wires it. */
function tasksView() {
  const model = new CIBenchModel();
  const actions = fakeActions();
  const view = new TasksView(model, actions);
  model.changed.connect((_, kind) => view.update(kind));
  const q = <T extends Element>(sel: string) => view.node.querySelector<T>(sel);
  return { model, actions, view, q };
}

describe('the task view parts', () => {
  it('lays out filter, facets, count, list, intro and attempts in order', () => {
    const { view } = tasksView();
    expect(Array.from(view.node.children).map(c => c.className)).toEqual([
      'jp-CIBench-filterRow',
      'jp-CIBench-facets',
      'jp-CIBench-count',
      'jp-CIBench-tasklist',
      'jp-CIBench-detail',
      'jp-CIBench-attempts'
    ]);
  });

  it('puts the focus in the filter and filters as one types', () => {
    const { model, view, q } = tasksView();
    document.body.appendChild(view.node);
    model.tasks = TASKS;
    view.focusFilter();
    const filter = q<HTMLInputElement>('.jp-CIBench-filter')!;
    expect(document.activeElement).toBe(filter);
    filter.value = 'tips';
    filter.dispatchEvent(new Event('input'));
    expect(model.filter).toBe('tips');
    expect(q('.jp-CIBench-count')?.textContent).toBe('1 of 3 tasks');
    view.node.remove();
  });

  it('selects a task from its row', () => {
    const model = new CIBenchModel();
    const actions = fakeActions();
    const list = new TaskList(model, actions);
    model.tasks = TASKS;
    list.update('tasks');
    const rows = list.nodes[3].querySelectorAll<HTMLButtonElement>('button');
    expect(rows).toHaveLength(3);
    rows[2].click();
    expect(actions.calls).toEqual([`select ${TASKS[2].id}`]);
  });

  it("shows the selected task's intro, step kinds and mode, hidden without one", () => {
    const model = new CIBenchModel();
    const intro = new TaskIntro(model);
    expect(intro.node.hidden).toBe(true);
    model.selected = DETAIL;
    intro.update('selected');
    expect(intro.node.hidden).toBe(false);
    expect(intro.node.querySelector('.jp-CIBench-kinds')?.textContent).toBe(
      'Step kinds: 1 exec, 1 num, 1 vis'
    );
    const oracle = intro.node.querySelector<HTMLInputElement>(
      'input.jp-CIBench-mode[value="oracle"]'
    )!;
    oracle.checked = true;
    oracle.dispatchEvent(new Event('change'));
    expect(model.mode).toBe('oracle');
    model.selected = null;
    intro.update('selected');
    expect(intro.node.hidden).toBe(true);
    expect(intro.node.childElementCount).toBe(0);
  });

  it('asks for a transcript path only while a transcript is the player', () => {
    const model = new CIBenchModel();
    const choice = new PlayerChoice(model);
    choice.render();
    const select = choice.node.querySelector('select')!;
    expect(select.value).toBe('');
    model.player = 'transcript';
    choice.render();
    expect(choice.node.querySelector('.jp-CIBench-transcript')).not.toBeNull();
    expect(choice.node.querySelector('select')).toBe(select);
    model.player = '';
    choice.render();
    expect(choice.node.querySelector('.jp-CIBench-transcript')).toBeNull();
  });
});

describe('my attempts', () => {
  it('names a task it has not loaded by its split and language', () => {
    const model = new CIBenchModel();
    const list = new AttemptList(model, fakeActions());
    model.attempts = [attemptRow({ task_id: 'cibench_generation/x/y' })];
    list.render();
    expect(list.node.querySelector('.jp-CIBench-task-title')?.textContent).toBe(
      'Wine quality (template, English)'
    );
    const resume = list.node.querySelector('.jp-CIBench-resume');
    expect(resume?.getAttribute('aria-label')).toBe(
      'Resume Wine quality (template, English)'
    );
  });

  it('says where an attempt stands and opens it', () => {
    const model = new CIBenchModel();
    const actions = fakeActions();
    const list = new AttemptList(model, actions);
    model.attempts = [
      attemptRow({ current_step: 1 }),
      attemptRow({ id: 'x2', status: 'done', passed: 1 })
    ];
    list.render();
    const metas = Array.from(
      list.node.querySelectorAll('.jp-CIBench-task-meta')
    ).map(m => m.textContent);
    expect(metas).toEqual([
      'end-to-end · step 2 of 3',
      'end-to-end · finished 2024-01-01 · 1/3 passed'
    ]);
    list.node.querySelector<HTMLButtonElement>('.jp-CIBench-review')!.click();
    expect(actions.calls).toEqual(['open x2']);
  });

  it("keeps the focus on an attempt's button when the list re-renders", () => {
    const { model, view, q } = tasksView();
    document.body.appendChild(view.node);
    model.attempts = [attemptRow(), attemptRow({ id: 'x2' })];
    const second = '[data-attempt-id="x2"] .jp-CIBench-resume';
    q<HTMLButtonElement>(second)!.focus();
    model.attempts = [attemptRow(), attemptRow({ id: 'x2', current_step: 2 })];
    expect(document.activeElement).toBe(q(second));
    expect(q('[data-attempt-id="x2"]')?.textContent).toContain('step 3 of 3');
    view.node.remove();
  });
});
