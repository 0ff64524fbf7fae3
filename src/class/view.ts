/**
 * The class view (instructors): pick a class, filter by task and status, read
 * the participants × tasks table and the pass rate per step, open a cell's
 * attempt, download the table as CSV. It polls the server every `interval`
 * seconds while it is shown and the browser tab is visible (docs/teach/reference.md
 * says why polling).
 */
import { ISignal, Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';

import { IClassInfo } from '../api';
import {
  button,
  focusedIn,
  h,
  keepingFocus,
  refocus,
  replaceChildren
} from '../panel/dom';
import type {
  ClassApi,
  IClassAttempt,
  IClassProgress,
  IMemberAttempt
} from './api';
import { memberAttemptView } from './attempt';
import { passRateChart } from './chart';
import { InstructionMarkdown } from './markdown';
import {
  classTable,
  filterNote,
  IFilters,
  STATUSES,
  statusWord,
  tableNote
} from './table';
import { trans } from '../i18n';

/**
 * What the view needs: the class routes, the classes taught, the polling
 * interval (s), and JupyterLab's rendermime registry for the instructions'
 * markdown (null: shown as text).
 */
export interface IClassViewOptions {
  api: ClassApi;
  classes: () => Promise<IClassInfo[]>;
  interval: () => number;
  rendermime?: IRenderMimeRegistry | null;
}

export class ClassView extends Widget {
  constructor(private options: IClassViewOptions) {
    super();
    this.addClass('jp-CIBench-classView');
    this.id = 'cibench-lab-class-view';
    this.title.label = trans.__('CIBench: Class View');
    this.title.closable = true;
    this.node.tabIndex = -1;
    replaceChildren(
      this.node,
      h('h2', { text: trans.__('Class view') }),
      this.controls,
      this.status,
      this.body
    );
    document.addEventListener('visibilitychange', this.onVisibility);
    this.markdown = new InstructionMarkdown(options.rendermime ?? null);
  }

  /** The class shown (null: none taught, or not loaded yet). */
  get className(): string | null {
    return this.current;
  }

  /** Emitted when another class is chosen (the layout restorer keeps it). */
  get classChanged(): ISignal<this, string | null> {
    return this._classChanged;
  }

  /**
   * Load the classes and start polling, on class `initial` when it is one
   * taught (a view restored after a reload), else the first.
   */
  async start(initial: string | null = null): Promise<void> {
    const classes = await this.options.classes();
    this.classNames = classes.map(c => c.name);
    const restored = initial !== null && this.classNames.includes(initial);
    this.current = restored ? initial : (this.classNames[0] ?? null);
    this._classChanged.emit(this.current);
    await this.refresh();
  }

  dispose(): void {
    document.removeEventListener('visibilitychange', this.onVisibility);
    window.clearTimeout(this.timer);
    this.markdown.clear();
    super.dispose();
  }

  /** Read the class (and the attempt drilled into) now, draw it, and schedule the next poll. */
  async refresh(): Promise<void> {
    window.clearTimeout(this.timer);
    if (this.isDisposed) {
      return;
    }
    try {
      if (this.current !== null) {
        this.progress = await this.options.api.progress(this.current);
        this.record = this.drilled
          ? await this.options.api.attempt(this.current, this.drilled)
          : null;
      }
      this.error = null;
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
    this.render();
    this.timer = window.setTimeout(
      () => this.poll(),
      this.options.interval() * 1000
    );
  }

  protected onAfterShow(): void {
    void this.refresh();
  }

  private poll(): void {
    if (document.hidden || !this.isVisible) {
      this.timer = window.setTimeout(
        () => this.poll(),
        this.options.interval() * 1000
      );
      return; // paused: the next showing (or the tab's) reads at once
    }
    void this.refresh();
  }

  private onVisibility = (): void => {
    if (!document.hidden && this.isVisible) {
      void this.refresh();
    }
  };

  private render(): void {
    this.renderControls();
    const at = new Date().toLocaleTimeString();
    this.status.textContent = this.error
      ? trans.__('Could not read the class: %1', this.error)
      : this.current === null
        ? trans.__('You teach no class.')
        : trans.__('Updated %1', at);
    const focused = focusedIn(this.body, 'data-attempt');
    keepingFocus(this.body, () => this.renderBody());
    if (!this.drilled) {
      refocus(this.body, 'data-attempt', focused); // the very cell, not its first look-alike
    }
  }

  private renderBody(): void {
    if (this.record && this.drilled) {
      const back = () => this.back();
      const shown = memberAttemptView(this.record, back, this.markdown);
      replaceChildren(this.body, shown);
    } else if (this.progress) {
      const table = classTable(this.progress, this.filters, a => this.open(a));
      replaceChildren(
        this.body,
        tableNote(this.progress),
        filterNote(this.progress, this.filters),
        h('div', { className: 'jp-CIBench-classScroll' }, table),
        passRateChart(this.progress, this.filters.task)
      );
    }
  }

  /** The class, task and status choices and Download CSV (rebuilt only when their options change). */
  private renderControls(): void {
    const tasks = this.progress?.tasks ?? [];
    const key = JSON.stringify([this.classNames, this.current, tasks]);
    if (key === this.controlsKey) {
      return;
    }
    this.controlsKey = key;
    const csv = button(
      trans.__('Download CSV'),
      'jp-CIBench-classCsv',
      () => void this.download()
    );
    replaceChildren(this.controls, ...this.choices(tasks), csv);
  }

  /** The class, task and status choices. */
  private choices(tasks: IClassProgress['tasks']): HTMLElement[] {
    const classSelect = choice(
      ['Class', trans.__('Class')],
      this.classNames.map(n => [n, n]),
      this.current ?? '',
      v => {
        this.current = v;
        this.drilled = null;
        this._classChanged.emit(v);
        void this.refresh();
      }
    );
    const taskSelect = choice(
      ['Task', trans.__('Task')],
      [
        ['', trans.__('All tasks')],
        ...tasks.map(t => [t.task_id, t.title] as [string, string])
      ],
      this.filters.task ?? '',
      v => this.filter({ task: v || null })
    );
    const statusSelect = choice(
      ['Status', trans.__('Status')],
      [
        ['', trans.__('Any status')],
        ...STATUSES.map(s => [s, statusWord(s)] as [string, string])
      ],
      this.filters.status ?? '',
      v => this.filter({ status: v || null })
    );
    return [classSelect, taskSelect, statusSelect];
  }

  private filter(change: Partial<IFilters>): void {
    this.filters = { ...this.filters, ...change };
    this.render();
  }

  private open(attempt: IClassAttempt): void {
    this.drilled = attempt.attempt_id;
    void this.refresh().then(() =>
      this.body.querySelector<HTMLElement>('.jp-CIBench-classBack')?.focus()
    );
  }

  private back(): void {
    const from = this.drilled;
    this.drilled = null;
    this.record = null;
    this.render();
    refocus(this.body, 'data-attempt', from);
  }

  private async download(): Promise<void> {
    if (this.current === null) {
      return;
    }
    const { filename, csv } = await this.options.api.csv(this.current);
    const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
    const link = h('a', { attrs: { href: url, download: filename } });
    document.body.appendChild(link);
    link.click();
    link.remove();
    URL.revokeObjectURL(url);
  }

  private controls = h('div', { className: 'jp-CIBench-classControls' });
  private status = h('p', {
    className: 'jp-CIBench-classStatus',
    attrs: { 'aria-live': 'off' }
  });
  private body = h('div', { className: 'jp-CIBench-classBody' });
  private classNames: string[] = [];
  private current: string | null = null;
  private progress: IClassProgress | null = null;
  private record: IMemberAttempt | null = null;
  private drilled: string | null = null;
  private filters: IFilters = { task: null, status: null };
  private error: string | null = null;
  private controlsKey = '';
  private timer = 0;
  private markdown: InstructionMarkdown;
  private _classChanged = new Signal<this, string | null>(this);
}

/** A labelled `<select>` handing each change to `onChange`. */
function choice(
  [key, label]: [string, string],
  options: [string, string][],
  value: string,
  onChange: (value: string) => void
): HTMLElement {
  const select = h('select', {
    className: `jp-CIBench-classFilter jp-CIBench-class${key}`,
    attrs: { 'aria-label': label }
  });
  for (const [v, text] of options) {
    select.appendChild(h('option', { text, attrs: { value: v } }));
  }
  select.value = value;
  select.addEventListener('change', () => onChange(select.value));
  return h(
    'label',
    { className: 'jp-CIBench-classChoice' },
    `${label} `,
    select
  );
}
