/**
 * One attempt played in one open notebook: keeps the attempt view, tells the
 * server which kernel runs the notebook (on open, kernel change and after a
 * restart), tracks the turn reports in flight, keeps badges honest about the
 * code under them, gives an open attempt whose kernel is gone a fresh one
 * when the person comes back, and holds a person's run until it would reach
 * the attempt's kernel (`beforeRun`, asked by the cell executor: runs.ts).
 * (The person's edits and runs are reported by activity.ts.)
 */
import { ISessionContext } from '@jupyterlab/apputils';
import { Cell } from '@jupyterlab/cells';
import { Notebook, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { IChangedArgs } from '@jupyterlab/coreutils';
import { Kernel } from '@jupyterlab/services';

import { CIBenchApi, IAttemptView, IKernelBinding, INextAction } from '../api';
import { isScratch, markAnswers, noteScratch } from './answer';
import { badgeOf, showBadge } from './badge';
import { cellTag } from './cells';
import { readOnlyCells, showClosedNote } from './closed';
import { GradedSources, notGraded } from './freshness';
import { ATTEMPT_NOTEBOOK_CLASS, ATTEMPT_TAB_CLASS } from './keys';
import { freshKernel, kernelGone, kernelNote, showKernelNote } from './revive';
import { untilBound } from './runs';

/**
 * The empty cells the last run left below the notebook's cells (Shift+Enter
 * on the last cell adds one): not the attempt's, and a record has no place to
 * type; removed. Whether any was.
 */
function dropTrailingBlanks(notebook: Notebook): boolean {
  const shared = notebook.model?.sharedModel;
  let dropped = false;
  while (shared && notebook.widgets.length > 1) {
    const last = notebook.widgets[notebook.widgets.length - 1];
    if (cellTag(last) || last.model.sharedModel.getSource().trim()) {
      break;
    }
    shared.deleteCell(notebook.widgets.length - 1);
    dropped = true;
  }
  return dropped;
}

/** At most one "is the kernel there?" check per this many ms while the person moves within the notebook. */
const RECHECK_MS = 5_000;

export class AttemptSession {
  constructor(
    readonly panel: NotebookPanel,
    view: IAttemptView,
    readonly api: CIBenchApi,
    private onError: (err: unknown) => void
  ) {
    this._view = view;
    const ctx = panel.sessionContext;
    ctx.kernelChanged.connect(this.onKernelChanged, this);
    ctx.statusChanged.connect(this.onStatus, this);
    NotebookActions.executionScheduled.connect(this.onScheduled, this);
    panel.model?.contentChanged.connect(this.onContent, this);
    panel.content.activeCellChanged.connect(this.onActiveCell, this);
    panel.content.addClass(ATTEMPT_NOTEBOOK_CLASS);
    if (!panel.title.className.includes(ATTEMPT_TAB_CLASS)) {
      panel.title.className += ` ${ATTEMPT_TAB_CLASS}`; // its tab shows the whole name
    }
    panel.node.addEventListener('focusin', this.onBack);
    document.addEventListener('visibilitychange', this.onVisible);
    window.addEventListener('focus', this.onVisible);
    api.serverSettings().then(
      settings => {
        this.turnLimit = settings.turn_timeout;
      },
      () => undefined
    );
  }

  /** The attempt as the server last described it. */
  get view(): IAttemptView {
    return this._view;
  }

  /**
   * When the attempt ends while its notebook is open (the last step settled,
   * or given up), the notebook becomes its record there and then, as it opens
   * later: cells read only, the note above them. The kernel is the server's to
   * stop (an oracle attempt's last reference may still be running in it).
   */
  set view(view: IAttemptView) {
    const ended = this._view.status === 'open' && view.status !== 'open';
    this._view = view;
    if (ended && !this.isDisposed) {
      const dropped = dropTrailingBlanks(this.notebook);
      readOnlyCells(this.notebook);
      showClosedNote(this.panel, view.status);
      if (dropped) {
        void this.save(); // the record is on disk as shown, the tab not left dirty
      }
    }
    if (!this.isDisposed) {
      markAnswers(this.notebook, view); // which cell is graded, as of this view
    }
  }

  /** Seconds the server lets a turn run before it stops it (null: not known yet). */
  turnLimit: number | null = null;

  private _view: IAttemptView;

  /**
   * Save the notebook, so what was graded (or is about to settle) is on disk
   * when the page goes away; failures are logged only.
   */
  async save(): Promise<void> {
    const context = this.panel.context;
    if (this.isDisposed || context.isDisposed || !context.isReady) {
      return;
    }
    try {
      await context.save();
    } catch (err) {
      console.warn('cibench-lab: the attempt notebook was not saved', err);
    }
  }

  get id(): string {
    return this.view.id;
  }

  get notebook(): Notebook {
    return this.panel.content;
  }

  get sessionContext(): ISessionContext {
    return this.panel.sessionContext;
  }

  /** The id of the kernel running the notebook now. */
  get kernelId(): string | undefined {
    return this.sessionContext.session?.kernel?.id;
  }

  /** Resolves when the latest kernel binding has been answered. */
  get bound(): Promise<void> {
    return this._bound;
  }

  /** The answer cells whose badge shows a grade, and the code it graded. */
  readonly graded = new GradedSources();

  /**
   * The notebook opened on a finished or quit attempt: read only, no kernel,
   * no run (closed.ts).
   */
  readOnly = false;

  /**
   * Tell the server which kernel runs this notebook (it restores state); a
   * binding of the same kernel still being answered is shared, unless `again`
   * (the kernel restarted since).
   */
  bind(again = false): Promise<IKernelBinding | undefined> {
    const kernelId = this.kernelId;
    if (!kernelId || this.isDisposed || this.readOnly) {
      return Promise.resolve(undefined); // a closed attempt takes no kernel (the server answers 409)
    }
    const inflight = this.binding;
    if (!again && inflight?.kernelId === kernelId) {
      return inflight.done; // the kernel connected and the notebook synced at once: one binding
    }
    const done = this.bindTo(kernelId);
    this.binding = { kernelId, done };
    void done.then(() => {
      if (this.binding?.done === done) {
        this.binding = null;
      }
    });
    return done;
  }

  private async bindTo(kernelId: string): Promise<IKernelBinding | undefined> {
    const request = this.api.bindKernel(this.id, kernelId);
    // While the server restores the attempt's state on this kernel, say so on
    // the notebook (runs started meanwhile are refused, not graded).
    this.panel.node.dataset.cibenchKernel = 'restoring';
    this._bound = request.then(
      () => undefined,
      () => undefined
    );
    void this._bound.then(() => {
      this.panel.node.dataset.cibenchKernel = 'ready';
    });
    try {
      const binding = await request;
      this.everBound = true;
      void this.noteRestore(binding);
      return binding;
    } catch (err) {
      this.onError(err);
      return undefined;
    }
  }

  /**
   * Oracle mode: tell the server the kernel ran step `step`'s reference (an
   * attached model's next prompt shows its output; a finished attempt's
   * kernel is stopped only after its last reference is reported). Failures
   * are logged only.
   */
  async reportOracle(
    step: number,
    msgId: string
  ): Promise<INextAction | undefined> {
    const kernelId = this.kernelId;
    if (!kernelId || this.view.mode !== 'oracle') {
      return undefined;
    }
    try {
      return (await this.api.oracle(this.id, step, kernelId, msgId)).next;
    } catch (err) {
      console.warn('cibench-lab: the oracle run was not recorded', err);
      return undefined;
    }
  }

  /** Remember a turn report in flight (Next waits for them). */
  track(work: Promise<unknown>): void {
    this.pending.add(work);
    const done = () => this.pending.delete(work);
    work.then(done, done);
  }

  /** Wait for the turn reports in flight. */
  async settled(): Promise<void> {
    const ignore = () => undefined;
    await Promise.all([...this.pending].map(p => p.then(ignore, ignore)));
  }

  /**
   * What a person's run in this notebook waits for (the cell executor):
   * the notebook's session connected — right after Start it may not be yet —
   * a kernel the server stopped replaced by a fresh one (`revive`), and the
   * binding of the kernel that will run it answered, so the run reaches the
   * attempt's kernel after its state was restored. In a read-only notebook
   * (a closed attempt's) nothing runs: false, and an answer cell says why.
   */
  async beforeRun(cell?: Cell): Promise<boolean> {
    if (this.readOnly) {
      if (cell) {
        this.noteNotGraded(cell);
      }
      return false;
    }
    await untilBound({
      connected: () => this.sessionContext.ready,
      revive: () => this.revive('run'),
      bound: () => this.bound
    });
    return true;
  }

  /**
   * The person is back — the focus comes into the notebook from elsewhere or
   * the page shows again (`return`), they move within it (`back`, checked at
   * most every few seconds), or they run a cell (`run`, before it runs): an
   * open attempt whose kernel the server stopped gets a fresh one, bound and
   * restored by the server. Resolves to whether it did.
   */
  revive(why: 'return' | 'back' | 'run'): Promise<boolean> {
    const now = Date.now();
    if (
      this.reviving ||
      (why === 'back' && now - this.lastCheck < RECHECK_MS)
    ) {
      return this.reviving ?? Promise.resolve(false);
    }
    this.lastCheck = now;
    this.reviving = this.doRevive(why).finally(() => {
      this.reviving = null;
    });
    return this.reviving;
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    const ctx = this.panel.sessionContext;
    ctx.kernelChanged.disconnect(this.onKernelChanged, this);
    ctx.statusChanged.disconnect(this.onStatus, this);
    NotebookActions.executionScheduled.disconnect(this.onScheduled, this);
    this.panel.model?.contentChanged.disconnect(this.onContent, this);
    this.panel.content.activeCellChanged.disconnect(this.onActiveCell, this);
    this.panel.node.removeEventListener('focusin', this.onBack);
    document.removeEventListener('visibilitychange', this.onVisible);
    window.removeEventListener('focus', this.onVisible);
  }

  private async doRevive(why: 'return' | 'back' | 'run'): Promise<boolean> {
    const ctx = this.sessionContext;
    const quiet =
      this.isDisposed ||
      !this.everBound ||
      this.restarting ||
      this.view.status !== 'open' ||
      !ctx.isReady ||
      ctx.isTerminating;
    if (quiet || !(await kernelGone(ctx)) || this.isDisposed) {
      return false;
    }
    this.revived = true; // for the next binding's note
    try {
      await freshKernel(ctx);
      return true;
    } catch (err) {
      this.revived = false;
      this.onError(err);
      return false;
    }
  }

  /** After a binding: say when the server had stopped the previous kernel. */
  private async noteRestore(binding: IKernelBinding): Promise<void> {
    const stop = binding.previous_stop ?? null;
    if (!stop && !this.revived) {
      return;
    }
    this.revived = false;
    let cull: number | undefined;
    if (stop === 'idle') {
      try {
        cull = (await this.api.serverSettings()).kernel_idle_cull;
      } catch {
        cull = undefined;
      }
    }
    if (!this.isDisposed) {
      showKernelNote(this.panel, kernelNote(stop, cull));
    }
  }

  private onKernelChanged(
    _: ISessionContext,
    change: IChangedArgs<Kernel.IKernelConnection | null>
  ): void {
    if (change.newValue && change.newValue.id !== change.oldValue?.id) {
      void this.bind();
    }
  }

  private onStatus(_: ISessionContext, status: Kernel.Status): void {
    if (status === 'restarting' || status === 'autorestarting') {
      this.restarting = true;
    } else if (status === 'idle' && this.restarting) {
      this.restarting = false;
      void this.bind(true);
    }
  }

  /**
   * A run of an answer cell that is not the open step's is not graded: "not
   * graded (step settled)", or "(attempt quit)" in a quit attempt; nor is a
   * run of the person's own code cell, which says where the step's answer is.
   */
  private onScheduled(
    _: unknown,
    args: { notebook: Notebook; cell: Cell }
  ): void {
    if (args.notebook !== this.notebook) {
      return;
    }
    if (isScratch(args.cell)) {
      if (this.view.status === 'open') {
        noteScratch(args.cell, this.view);
      }
      return;
    }
    const tag = cellTag(args.cell);
    const open =
      this.view.status === 'open' && tag?.step === this.view.current_step;
    if (!open) {
      this.noteNotGraded(args.cell);
    }
  }

  /** An answer cell's run is no turn: its old badge goes (it would describe other code). */
  private noteNotGraded(cell: Cell): void {
    const tag = cellTag(cell);
    if (tag?.role === 'answer' && tag.step !== undefined) {
      this.graded.forget(cell);
      const message = notGraded(this.view.status);
      showBadge(cell, { kind: 'note', message }, tag.step);
    }
  }

  /** The person moved into a code cell of their own: say at once that its runs are not graded. */
  private onActiveCell(_: Notebook, cell: Cell | null): void {
    const open = this.view.status === 'open' && !this.readOnly;
    if (open && cell && isScratch(cell) && !badgeOf(cell)) {
      noteScratch(cell, this.view);
    }
  }

  /** Any change to the notebook's cells: are the badges' grades still theirs? */
  private onContent(): void {
    this.graded.check();
  }

  private onBack = (event: FocusEvent): void => {
    const from = event.relatedTarget as Node | null;
    const inside = !!from && this.panel.node.contains(from);
    void this.revive(inside ? 'back' : 'return');
  };

  private onVisible = (): void => {
    if (document.visibilityState === 'visible' && this.panel.isVisible) {
      void this.revive('return');
    }
  };

  private pending = new Set<Promise<unknown>>();
  private restarting = false;
  private everBound = false;
  /** The binding being answered (one per kernel at a time). */
  private binding: {
    kernelId: string;
    done: Promise<IKernelBinding | undefined>;
  } | null = null;
  private revived = false;
  private lastCheck = 0;
  private reviving: Promise<boolean> | null = null;
  private _bound: Promise<void> = Promise.resolve();
  private _disposed = false;
}
