/**
 * The panel's task view: the task list with its filter and facets
 * (tasklist.ts), the selected task's intro with a mode and player choice
 * (intro.ts, players.ts; Start is in the action bar), and the caller's
 * attempts (attemptlist.ts).
 */
import { ChangeKind, CIBenchModel } from '../model';
import { IPanelActions } from './actions';
import { AttemptList } from './attemptlist';
import { h } from './dom';
import { taskMeta } from './facets';
import { TaskIntro } from './intro';
import { TaskList } from './tasklist';

export { taskMeta };

export class TasksView {
  /**
   * `focusStart`: put the focus on Start (a task chosen from the keyboard
   * that has no mode to choose: a Qwen task); whether it could.
   */
  constructor(
    model: CIBenchModel,
    actions: IPanelActions,
    focusStart: () => boolean = () => false
  ) {
    this.intro = new TaskIntro(model);
    this.list = new TaskList(
      model,
      actions,
      () => void (this.intro.focusChoice() || focusStart())
    );
    this.attempts = new AttemptList(model, actions);
    this.node = h(
      'div',
      { className: 'jp-CIBench-tasksView' },
      ...this.list.nodes,
      this.intro.node,
      this.attempts.node
    );
  }

  readonly node: HTMLElement;

  /** Put the focus in the filter. */
  focusFilter(): void {
    this.list.focusFilter();
  }

  update(kind: ChangeKind): void {
    this.list.update(kind);
    this.intro.update(kind);
    if (kind === 'attempts' || kind === 'tasks') {
      this.attempts.render();
    }
  }

  private list: TaskList;
  private intro: TaskIntro;
  private attempts: AttemptList;
}
