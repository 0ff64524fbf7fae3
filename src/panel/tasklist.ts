/**
 * The panel's task list: the filter, the facet selects (split, library,
 * language) with a match count, and a row per task with the mark of the
 * caller's attempts on it. From the filter, ↓ moves to the first row (↑/↓
 * move between rows, ↑ on the first goes back), and Enter with exactly one
 * match selects it and hands the focus on (`chosen`: its mode, or Start).
 */
import { ITaskSummary } from '../api';
import { ChangeKind, CIBenchModel } from '../model';
import { IPanelActions } from './actions';
import { focusedIn, h, input, refocus, replaceChildren } from './dom';
import {
  attemptMark,
  FacetKey,
  facetLabel,
  facetOptions,
  facetList,
  matchCount,
  taskMeta,
  taskTitle
} from './facets';
import { trans } from '../i18n';

const FILTER_ID = 'jp-CIBench-filter-input';
const LIST_ID = 'jp-CIBench-tasklist';

export class TaskList {
  constructor(
    private model: CIBenchModel,
    private actions: IPanelActions,
    private chosen: () => void = () => undefined
  ) {
    this.filter = filterInput(model);
    this.filter.addEventListener('keydown', this.onFilterKey);
    this.list.addEventListener('keydown', this.onListKey);
    this.nodes = [filterRow(this.filter), this.facetRow, this.count, this.list];
    this.renderFacets();
    this.renderList();
  }

  /** The filter row, the facets, the match count and the list, in order. */
  readonly nodes: HTMLElement[];

  /** Put the focus in the filter. */
  focusFilter(): void {
    this.filter.focus();
  }

  private onFilterKey = (event: KeyboardEvent): void => {
    if (event.key === 'ArrowDown') {
      const first = this.rows()[0];
      if (first) {
        event.preventDefault();
        first.focus();
      }
    } else if (event.key === 'Enter') {
      const tasks = this.model.visibleTasks;
      if (tasks.length === 1) {
        event.preventDefault();
        void this.choose(tasks[0].id);
      }
    }
  };

  private onListKey = (event: KeyboardEvent): void => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') {
      return;
    }
    const rows = this.rows();
    const at = rows.indexOf(event.target as HTMLButtonElement);
    if (at < 0) {
      return;
    }
    event.preventDefault();
    const to = at + (event.key === 'ArrowDown' ? 1 : -1);
    (to < 0 ? this.filter : rows[Math.min(to, rows.length - 1)]).focus();
  };

  /** Select the task, then move the focus to its intro once it is shown. */
  private async choose(id: string): Promise<void> {
    await this.actions.selectTask(id);
    if (this.model.selected?.id === id) {
      this.chosen();
    }
  }

  private rows(): HTMLButtonElement[] {
    return Array.from(
      this.list.querySelectorAll<HTMLButtonElement>('button.jp-CIBench-task')
    );
  }

  update(kind: ChangeKind): void {
    if (kind === 'tasks') {
      this.renderFacets();
    }
    if (
      kind === 'tasks' ||
      kind === 'filter' ||
      kind === 'selected' ||
      kind === 'attempts'
    ) {
      this.renderList();
    }
  }

  /** The facet selects, refilled in place (a focused select keeps its focus). */
  private renderFacets(): void {
    const facets = this.model.facets;
    for (const [key] of facetList()) {
      const select = this.facetSelects[key];
      const options = facetOptions(this.model.tasks, key).map(([value, n]) =>
        h('option', {
          text: `${facetLabel(key, value)} (${n})`,
          attrs: { value }
        })
      );
      replaceChildren(
        select,
        h('option', { text: trans.__('All'), attrs: { value: '' } }),
        ...options
      );
      select.value = facets[key];
      if (select.selectedIndex < 0) {
        select.value = '';
      }
    }
  }

  private renderList(): void {
    const tasks = this.model.visibleTasks;
    const total = this.model.tasks.length;
    this.count.textContent = total ? matchCount(tasks.length, total) : '';
    const selected = this.model.selected?.id;
    const rows = tasks.map(task => h('li', {}, this.taskRow(task, selected)));
    const empty = total
      ? trans.__('No task matches the filter.')
      : trans.__('No tasks loaded.');
    const focused = focusedIn(this.list, 'data-task-id');
    replaceChildren(
      this.list,
      ...(rows.length
        ? rows
        : [h('li', { className: 'jp-CIBench-empty', text: empty })])
    );
    refocus(this.list, 'data-task-id', focused);
  }

  private taskRow(task: ITaskSummary, selected?: string): HTMLButtonElement {
    const isSelected = task.id === selected;
    const mark = attemptMark(task.id, this.model.attempts);
    return h(
      'button',
      {
        className:
          'jp-CIBench-task' + (isSelected ? ' jp-CIBench-task-selected' : ''),
        attrs: {
          type: 'button',
          'data-task-id': task.id,
          'aria-pressed': String(isSelected),
          title: task.id
        },
        onClick: () => void this.actions.selectTask(task.id)
      },
      h('span', {
        className: 'jp-CIBench-task-title',
        text: taskTitle(task, this.model.tasks)
      }),
      h('span', { className: 'jp-CIBench-task-meta', text: taskMeta(task) }),
      mark ? h('span', { className: 'jp-CIBench-task-mark', text: mark }) : null
    );
  }

  private makeFacet(key: FacetKey, label: string): HTMLElement {
    const id = `jp-CIBench-facet-${key}`;
    const select = h('select', {
      className: 'jp-CIBench-facet',
      attrs: { id, 'data-facet': key, 'aria-controls': LIST_ID }
    });
    select.addEventListener('change', () => {
      this.model.facets = { ...this.model.facets, [key]: select.value };
    });
    this.facetSelects[key] = select;
    return h(
      'div',
      { className: 'jp-CIBench-facetField' },
      h('label', {
        className: 'jp-CIBench-label',
        text: label,
        attrs: { for: id }
      }),
      select
    );
  }

  private facetSelects = {} as { [key in FacetKey]: HTMLSelectElement };
  private facetRow = h(
    'div',
    { className: 'jp-CIBench-facets' },
    ...facetList().map(([key, label]) => this.makeFacet(key, label))
  );
  private count = h('p', {
    className: 'jp-CIBench-count',
    attrs: { role: 'status', 'aria-live': 'polite' }
  });
  private filter: HTMLInputElement;
  private list = h('ul', {
    className: 'jp-CIBench-tasklist',
    attrs: { id: LIST_ID, 'aria-label': trans.__('Tasks') }
  });
}

/** The filter text box: what it holds is the model's filter. */
function filterInput(model: CIBenchModel): HTMLInputElement {
  const attrs = {
    id: FILTER_ID,
    type: 'search',
    placeholder: trans.__('Filter tasks'),
    'aria-controls': LIST_ID
  };
  return input(
    { className: 'jp-CIBench-filter', attrs },
    model.filter,
    text => (model.filter = text)
  );
}

function filterRow(input: HTMLInputElement): HTMLElement {
  return h(
    'div',
    { className: 'jp-CIBench-filterRow' },
    h('label', {
      className: 'jp-CIBench-label',
      text: trans.__('Filter tasks'),
      attrs: { for: FILTER_ID }
    }),
    input
  );
}
