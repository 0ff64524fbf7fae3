/**
 * The panel's task view: filter and facets (split, library, language) with a
 * match count, the task list (marks of the caller's attempts), the selected
 * task's intro with a mode and player choice (Start is in the action bar),
 * and the caller's attempts.
 */
import { IAttemptSummary, ITaskDetail, ITaskSummary, Mode } from '../api';
import { ChangeKind, CIBenchModel, modeLabel } from '../model';
import { IPanelActions, lockable } from './actions';
import { button, h, replaceChildren } from './dom';
import {
  attemptMark,
  FacetKey,
  facetLabel,
  facetOptions,
  FACETS,
  matchCount,
  splitOf,
  taskMeta,
  taskTitle
} from './facets';
import { languageLabel, splitLabel } from './words';

export { taskMeta };

const FILTER_ID = 'jp-CIBench-filter-input';

export class TasksView {
  constructor(
    private model: CIBenchModel,
    private actions: IPanelActions
  ) {
    this.filter = this.makeFilter();
    this.node = h(
      'div',
      { className: 'jp-CIBench-tasksView' },
      h(
        'div',
        { className: 'jp-CIBench-filterRow' },
        h('label', {
          className: 'jp-CIBench-label',
          text: 'Filter tasks',
          attrs: { for: FILTER_ID }
        }),
        this.filter
      ),
      this.facetRow,
      this.count,
      this.list,
      this.detail,
      this.attempts
    );
    this.renderFacets();
    this.renderList();
    this.renderDetail();
    this.renderAttempts();
  }

  readonly node: HTMLElement;

  /** Put the focus in the filter. */
  focusFilter(): void {
    this.filter.focus();
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
    if (kind === 'selected' || kind === 'mode') {
      this.renderDetail();
    } else if (kind === 'players') {
      this.renderPlayers();
    }
    if (kind === 'attempts' || kind === 'tasks') {
      this.renderAttempts();
    }
  }

  private makeFilter(): HTMLInputElement {
    const input = h('input', {
      className: 'jp-CIBench-filter',
      attrs: {
        id: FILTER_ID,
        type: 'search',
        placeholder: 'Filter tasks',
        'aria-controls': 'jp-CIBench-tasklist'
      }
    });
    input.value = this.model.filter;
    input.addEventListener('input', () => {
      this.model.filter = input.value;
    });
    return input;
  }

  /** The facet selects, refilled in place (a focused select keeps its focus). */
  private renderFacets(): void {
    const facets = this.model.facets;
    for (const [key] of FACETS) {
      const select = this.facetSelects[key];
      const options = facetOptions(this.model.tasks, key).map(([value, n]) =>
        h('option', {
          text: `${facetLabel(key, value)} (${n})`,
          attrs: { value }
        })
      );
      replaceChildren(
        select,
        h('option', { text: 'All', attrs: { value: '' } }),
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
    const empty = total ? 'No task matches the filter.' : 'No tasks loaded.';
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

  private renderDetail(): void {
    const task = this.model.selected;
    if (!task) {
      replaceChildren(this.detail);
      this.detail.hidden = true;
      return;
    }
    this.detail.hidden = false;
    replaceChildren(
      this.detail,
      h('h3', {
        className: 'jp-CIBench-detail-title',
        text: taskTitle(task, this.model.tasks)
      }),
      h('p', { className: 'jp-CIBench-task-meta', text: taskMeta(task) }),
      h('p', { className: 'jp-CIBench-intro', text: task.intro }),
      kindsLine(task),
      this.modeChoice(),
      this.playerRow
    );
    this.renderPlayers();
  }

  /**
   * Refill the player choice in place: the select keeps its focus (a keyboard
   * user stepping through the options) and a typed transcript path stays.
   */
  private renderPlayers(): void {
    replaceChildren(this.playerSelect, ...playerOptions(this.model));
    this.playerSelect.value = this.model.player;
    if (this.playerSelect.selectedIndex < 0) {
      this.playerSelect.selectedIndex = 0; // a choice not offered (yet): show "You"
    }
    const wantsPath = this.model.player === 'transcript';
    if (wantsPath && !this.transcriptRow) {
      this.transcriptRow = transcriptInput(this.model);
      this.playerRow.append(this.transcriptRow);
    } else if (!wantsPath && this.transcriptRow) {
      this.transcriptRow.remove();
      this.transcriptRow = null;
    }
  }

  private modeChoice(): HTMLFieldSetElement {
    const radios = (['e2e', 'oracle'] as Mode[]).map(mode => {
      const id = `jp-CIBench-mode-${mode}`;
      const input = h('input', {
        className: 'jp-CIBench-mode',
        attrs: { type: 'radio', name: 'jp-CIBench-mode', value: mode, id }
      });
      input.checked = this.model.mode === mode;
      input.addEventListener('change', () => {
        if (input.checked) {
          this.model.mode = mode;
        }
      });
      return h(
        'div',
        { className: 'jp-CIBench-modeOption' },
        input,
        h('label', { text: modeLabel(mode), attrs: { for: id } })
      );
    });
    return h(
      'fieldset',
      { className: 'jp-CIBench-modes' },
      h('legend', { text: 'Mode' }),
      ...radios
    );
  }

  private renderAttempts(): void {
    const rows = this.model.attempts.map(a => this.attemptRow(a));
    const focused = focusedIn(this.attempts, 'data-attempt-id');
    replaceChildren(
      this.attempts,
      h('summary', {
        className: 'jp-CIBench-attempts-summary',
        text: `My attempts (${rows.length})`
      }),
      rows.length
        ? h('ul', { className: 'jp-CIBench-attemptList' }, ...rows)
        : h('p', { className: 'jp-CIBench-empty', text: 'No attempts yet.' })
    );
    refocus(this.attempts, 'data-attempt-id', focused);
  }

  private attemptRow(a: IAttemptSummary): HTMLLIElement {
    const open = a.status === 'open';
    const passed =
      typeof a.passed === 'number' ? ` · ${a.passed}/${a.n_steps} passed` : '';
    const where = open
      ? `step ${a.current_step + 1} of ${a.n_steps}`
      : `finished ${a.created_at.slice(0, 10)}${passed}`;
    const title = this.attemptTitle(a);
    const label = open ? 'Resume' : 'Review';
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
          text: `${modeLabel(a.mode)} · ${where}`
        })
      ),
      lockable(btn, this.model)
    );
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

  private makeFacet(key: FacetKey, label: string): HTMLElement {
    const id = `jp-CIBench-facet-${key}`;
    const select = h('select', {
      className: 'jp-CIBench-facet',
      attrs: { id, 'data-facet': key, 'aria-controls': 'jp-CIBench-tasklist' }
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
    ...FACETS.map(([key, label]) => this.makeFacet(key, label))
  );
  private count = h('p', {
    className: 'jp-CIBench-count',
    attrs: { role: 'status', 'aria-live': 'polite' }
  });
  private filter: HTMLInputElement;
  private list = h('ul', {
    className: 'jp-CIBench-tasklist',
    attrs: { id: 'jp-CIBench-tasklist', 'aria-label': 'Tasks' }
  });
  private detail = h('section', {
    className: 'jp-CIBench-detail',
    attrs: { 'aria-label': 'Selected task' }
  });
  private attempts = h('details', {
    className: 'jp-CIBench-attempts',
    attrs: { open: '' }
  });
  private playerSelect = playerSelect(this.model);
  private playerRow = h(
    'div',
    { className: 'jp-CIBench-playerRow' },
    h('label', {
      className: 'jp-CIBench-label',
      text: 'Player',
      attrs: { for: PLAYER_ID }
    }),
    this.playerSelect
  );
  private transcriptRow: HTMLElement | null = null;
}

const PLAYER_ID = 'jp-CIBench-player-select';

/** The `attr` of the row holding the focus inside `container`, if any. */
function focusedIn(container: HTMLElement, attr: string): string | null {
  const active = document.activeElement;
  if (!(active instanceof HTMLElement) || !container.contains(active)) {
    return null;
  }
  return active.closest(`[${attr}]`)?.getAttribute(attr) ?? null;
}

/** Give the focus back to the (re-created) row with `attr` = `value`. */
function refocus(
  container: HTMLElement,
  attr: string,
  value: string | null
): void {
  if (value === null) {
    return;
  }
  for (const row of Array.from(
    container.querySelectorAll<HTMLElement>(`[${attr}]`)
  )) {
    if (row.getAttribute(attr) === value) {
      const target =
        row.tagName === 'BUTTON'
          ? row
          : row.querySelector<HTMLElement>('button');
      target?.focus();
      return;
    }
  }
}

/**
 * Who plays: you, an attached model (server-configured, by name) or a replay
 * of a recorded model run of this task.
 */
function playerOptions(model: CIBenchModel): HTMLElement[] {
  const option = (value: string, text: string) =>
    h('option', { text, attrs: { value } });
  const groups: HTMLElement[] = [option('', 'You')];
  if (model.models.length) {
    groups.push(
      h(
        'optgroup',
        { attrs: { label: 'Attach a model' } },
        ...model.models.map(m =>
          option(`model:${m.name}`, `${m.name} (${m.protocol})`)
        )
      )
    );
  }
  groups.push(
    h(
      'optgroup',
      { attrs: { label: 'Replay a run' } },
      ...model.recordings.map(r =>
        option(
          `replay:${r.id}`,
          `${r.run}: ${r.player.replace(/^openai:/, '')}, ${r.mode}`
        )
      ),
      option('transcript', 'A transcript file (JSONL)…')
    )
  );
  return groups;
}

function playerSelect(model: CIBenchModel): HTMLSelectElement {
  const select = h('select', {
    className: 'jp-CIBench-player',
    attrs: { id: PLAYER_ID }
  });
  select.addEventListener('change', () => {
    model.player = select.value;
  });
  return select;
}

const TRANSCRIPT_ID = 'jp-CIBench-transcript-input';

/** The path of a transcript to replay (JSONL, as `cibench-lab run --export-transcript` writes). */
function transcriptInput(model: CIBenchModel): HTMLElement {
  const input = h('input', {
    className: 'jp-CIBench-filter jp-CIBench-transcript',
    attrs: {
      id: TRANSCRIPT_ID,
      type: 'text',
      placeholder: 'runs/qwen.jsonl',
      spellcheck: 'false'
    }
  });
  input.value = model.transcript;
  input.addEventListener('input', () => {
    model.transcript = input.value;
  });
  return h(
    'div',
    {},
    h('label', {
      className: 'jp-CIBench-label',
      text: 'Transcript (path under the server root)',
      attrs: { for: TRANSCRIPT_ID }
    }),
    input
  );
}

function kindsLine(task: ITaskDetail): HTMLElement {
  const kinds = (task.instructions ?? []).map(i => i.kind);
  const counts = new Map<string, number>();
  kinds.forEach(k => counts.set(k, (counts.get(k) ?? 0) + 1));
  const text = [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
  return h('p', {
    className: 'jp-CIBench-kinds',
    text: text ? `Step kinds: ${text}` : ''
  });
}
