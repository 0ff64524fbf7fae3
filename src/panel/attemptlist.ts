/**
 * The caller's attempts below the task list: each with its task, mode and
 * where it stands, and a Resume (open) or Review (finished) button.
 */
import { IAttemptSummary } from '../api';
import { CIBenchModel, modeLabel } from '../model';
import { IPanelActions, lockable } from './actions';
import { button, focusedIn, h, refocus, replaceChildren } from './dom';
import { splitOf, taskTitle } from './facets';
import { isQwen } from './qwen';
import { languageLabel, passedCount, splitLabel } from './words';
import { trans } from '../i18n';

export class AttemptList {
  constructor(
    private model: CIBenchModel,
    private actions: IPanelActions
  ) {
    this.render();
  }

  readonly node = h('details', {
    className: 'jp-CIBench-attempts',
    attrs: { open: '' }
  });

  render(): void {
    const rows = this.model.attempts.map(a => this.attemptRow(a));
    const focused = focusedIn(this.node, 'data-attempt-id');
    replaceChildren(
      this.node,
      h('summary', {
        className: 'jp-CIBench-attempts-summary',
        text: trans.__('My attempts (%1)', rows.length)
      }),
      rows.length
        ? h('ul', { className: 'jp-CIBench-attemptList' }, ...rows)
        : h('p', {
            className: 'jp-CIBench-empty',
            text: trans.__('No attempts yet.')
          })
    );
    refocus(this.node, 'data-attempt-id', focused);
  }

  private attemptRow(a: IAttemptSummary): HTMLLIElement {
    const open = a.status === 'open';
    const title = this.attemptTitle(a);
    const label = open ? trans.__('Resume') : trans.__('Review');
    const btn = button(
      label,
      open ? 'jp-CIBench-resume' : 'jp-CIBench-review',
      () => void this.actions.open(a)
    );
    btn.setAttribute('aria-label', `${label} ${title}`);
    return h(
      'li',
      {
        className: `jp-CIBench-attempt jp-CIBench-attempt-${a.status}`,
        attrs: { 'data-attempt-id': a.id }
      },
      h(
        'span',
        { className: 'jp-CIBench-attempt-text' },
        h('span', { className: 'jp-CIBench-task-title', text: title }),
        h('span', {
          className: 'jp-CIBench-task-meta',
          text: `${this.modeText(a)} · ${whereText(a)}`
        })
      ),
      lockable(btn, this.model)
    );
  }

  /** Its mode, or for a Qwen task (played end-to-end only) "Qwen benchmark". */
  private modeText(a: IAttemptSummary): string {
    const task = this.model.tasks.find(t => t.id === a.task_id);
    const qwen = task ? isQwen(task) : splitOf(a.task_id) === QWEN_SPLIT;
    return qwen ? trans.__('Qwen benchmark') : modeLabel(a.mode);
  }

  /** An attempt's task title, with its split and language when they tell it apart. */
  private attemptTitle(a: IAttemptSummary): string {
    const task = this.model.tasks.find(t => t.id === a.task_id);
    if (task) {
      return taskTitle(task, this.model.tasks);
    }
    const split = a.split ?? splitOf(a.task_id);
    const lang = a.language ? `, ${languageLabel(a.language)}` : '';
    return `${a.title} (${splitLabel(split)}${lang})`;
  }
}

/** The split of Qwen benchmark tasks (tasks/qwen.py), for an attempt whose task is gone. */
const QWEN_SPLIT = 'cibench_qwen';

/** "step 2 of 12", "finished 2024-01-01 · 9/12 passed" or "quit 2024-01-01 at step 3 of 12". */
function whereText(a: IAttemptSummary): string {
  if (a.status === 'open') {
    return trans.__('step %1 of %2', a.current_step + 1, a.n_steps);
  }
  if (a.status === 'quit') {
    return trans.__(
      'quit %1 at step %2 of %3',
      a.created_at.slice(0, 10),
      a.current_step + 1,
      a.n_steps
    );
  }
  const passed = passedCount(a);
  const date = a.created_at.slice(0, 10);
  return passed
    ? trans.__('finished %1 · %2', date, passed)
    : trans.__('finished %1', date);
}
