/**
 * The panel's attempt view: which attempt it is (title, mode, player, grade
 * rule, its notebook — open or closed), the collapsible step list with
 * references, when the attempt is done its summary, and the person's note on
 * the open step (record.ts). The actions are in the action bar (actionbar.ts).
 */
import { IAttemptView, ITaskSummary } from '../api';
import { ruleText } from '../grade';
import { ChangeKind, CIBenchModel, modeLabel, playerLabel } from '../model';
import { IPanelActions } from './actions';
import { button, h, keepingFocus, replaceChildren } from './dom';
import { splitOf, taskTitle } from './facets';
import { isQwen, qwenFamily } from './qwen';
import { NoteBox } from './record';
import { IStepListState, stepList } from './steps';
import { summaryNode } from './summary';
import { splitLabel } from './words';
import { trans } from '../i18n';

export { progressText } from './actionbar';

export class AttemptView {
  constructor(
    private model: CIBenchModel,
    private actions: IPanelActions,
    /** "All tasks": show the task view (and put focus in its filter). */
    private onTasks: () => void
  ) {
    this.node = h(
      'div',
      { className: 'jp-CIBench-attemptView' },
      this.content,
      this.noteSlot
    );
    this.render();
  }

  readonly node: HTMLElement;

  update(kind: ChangeKind): void {
    if (kind === 'attempt' || kind === 'notebooks' || kind === 'tasks') {
      this.render();
    }
  }

  private render(): void {
    keepingFocus(this.node, () => this.renderNow());
  }

  private renderNow(): void {
    const view = this.model.attempt;
    if (view?.id !== this.shownId) {
      this.shownId = view?.id ?? null;
      this.steps = { open: true, references: new Set() };
      this.profile = view?.profile ?? '';
    }
    const back = button(trans.__('All tasks'), 'jp-CIBench-back', () =>
      this.onTasks()
    );
    this.showNote(view);
    if (!view) {
      replaceChildren(this.content, back, noAttempt());
      return;
    }
    replaceChildren(
      this.content,
      back,
      h('h3', {
        className: 'jp-CIBench-attempt-title',
        text: this.title(view)
      }),
      h('p', {
        className: 'jp-CIBench-attempt-meta',
        text: metaText(view, this.qwen(view))
      }),
      this.notebookLine(view),
      sandboxNote(view),
      view.status === 'open'
        ? null
        : summaryNode(view, this.profile, p => this.choose(p), this.qwen(view)),
      stepList(
        view,
        this.steps,
        step => void this.actions.showTurns(step),
        this.qwen(view) ? qwenFamily(this.task(view)) : null
      )
    );
  }

  /** The attempt's title, telling apart same-named tasks of other splits. */
  private title(view: IAttemptView): string {
    const task = this.task(view);
    if (task) {
      return taskTitle(task, this.model.tasks);
    }
    return view.title;
  }

  /** Whether the attempt plays a Qwen benchmark task (no mode, its own profile words). */
  private qwen(view: IAttemptView): boolean {
    return isQwen(this.task(view));
  }

  private task(view: IAttemptView): ITaskSummary | undefined {
    return this.model.tasks.find(t => t.id === view.task_id);
  }

  /**
   * Its notebook, and whether it was closed (the panel keeps showing the
   * attempt) — said only once it closed, not while it opens.
   */
  private notebookLine(view: IAttemptView): HTMLElement {
    const closed = this.model.closedNotebook(view.id);
    const name = view.notebook_path.split('/').pop() ?? view.notebook_path;
    return h(
      'div',
      {
        className:
          'jp-CIBench-notebookLine' +
          (closed ? ' jp-CIBench-notebookClosed' : '')
      },
      h('span', {
        className: 'jp-CIBench-notebookState',
        text: closed
          ? trans.__('Notebook closed: %1', name)
          : trans.__('Notebook: %1', name),
        attrs: { title: view.notebook_path }
      }),
      button(
        trans.__('Open notebook'),
        'jp-CIBench-open',
        () => void this.actions.openNotebook(),
        trans.__('Open %1', view.notebook_path)
      )
    );
  }

  private choose(profile: string): void {
    this.profile = profile;
    this.render();
    this.node
      .querySelector<HTMLElement>(
        `.jp-CIBench-profile[data-profile="${profile}"]`
      )
      ?.focus();
  }

  /** The open step's note box: kept across renders (the person may be typing in it). */
  private showNote(view: IAttemptView | null): void {
    const step = view?.status === 'open' ? view.current_step : null;
    const box = this.note;
    if (box && box.attemptId === view?.id && box.step === step) {
      return;
    }
    box?.dispose();
    this.note = null;
    if (view && step !== null) {
      const initial = view.steps.find(s => s.index === step)?.note ?? null;
      this.note = new NoteBox(view.id, step, initial, this.actions.record);
      replaceChildren(this.noteSlot, this.note.node);
    } else {
      replaceChildren(this.noteSlot);
    }
  }

  private content = h('div', { className: 'jp-CIBench-attemptContent' });
  private noteSlot = h('div', { className: 'jp-CIBench-noteSlot' });
  private note: NoteBox | null = null;
  private shownId: string | null = null;
  private steps: IStepListState = { open: true, references: new Set() };
  private profile = '';
}

/**
 * "Mode: end-to-end · Player: you · Grades: best run kept · Split: template";
 * a Qwen task's (`qwen`) has no mode: "Qwen benchmark · Player: you · …".
 */
export function metaText(view: IAttemptView, qwen = false): string {
  const parts = [
    qwen
      ? trans.__('Qwen benchmark')
      : trans.__('Mode: %1', modeLabel(view.mode)),
    trans.__('Player: %1', playerLabel(view.player))
  ];
  const rule = view.settings.grade_rule;
  if (rule && view.player === 'human') {
    parts.push(trans.__('Grades: %1', ruleText(rule)));
  }
  const split = splitOf(view.task_id);
  if (split) {
    parts.push(trans.__('Split: %1', splitLabel(split)));
  }
  return parts.join(' · ');
}

function noAttempt(): HTMLElement {
  return h('p', {
    className: 'jp-CIBench-empty',
    text: trans.__('No attempt open. Start one from the task list.')
  });
}

/** How the attempt's kernels were isolated; an unsandboxed attempt is marked. */
export function sandboxNote(view: IAttemptView): HTMLElement {
  const sandbox = view.sandbox;
  const on = !!sandbox?.enabled;
  const tool = sandbox?.tool ?? trans.__('sandbox');
  const text = on
    ? sandbox?.network
      ? trans.__('Kernel: sandboxed (%1, network allowed)', tool)
      : trans.__('Kernel: sandboxed (%1, no network)', tool)
    : sandbox
      ? trans.__('Kernel: NOT sandboxed')
      : trans.__('Kernel: sandbox not recorded');
  return h('p', {
    className: on
      ? 'jp-CIBench-sandbox'
      : 'jp-CIBench-sandbox jp-CIBench-unsandboxed',
    text
  });
}
