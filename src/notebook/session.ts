/**
 * One attempt played in one open notebook: keeps the attempt view, tells the
 * server which kernel runs the notebook (on open, kernel change and after a
 * restart) and tracks the turn reports in flight.
 */
import { ISessionContext } from '@jupyterlab/apputils';
import { Notebook, NotebookPanel } from '@jupyterlab/notebook';
import { IChangedArgs } from '@jupyterlab/coreutils';
import { Kernel } from '@jupyterlab/services';

import { CIBenchApi, IAttemptView, IKernelBinding, INextAction } from '../api';

export class AttemptSession {
  constructor(
    readonly panel: NotebookPanel,
    public view: IAttemptView,
    private api: CIBenchApi,
    private onError: (err: unknown) => void
  ) {
    const ctx = panel.sessionContext;
    ctx.kernelChanged.connect(this.onKernelChanged, this);
    ctx.statusChanged.connect(this.onStatus, this);
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

  /** Tell the server which kernel runs this notebook (it restores state). */
  async bind(): Promise<IKernelBinding | undefined> {
    const kernelId = this.kernelId;
    if (!kernelId || this.isDisposed) {
      return undefined;
    }
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
      return await request;
    } catch (err) {
      this.onError(err);
      return undefined;
    }
  }

  /**
   * Oracle mode: tell the server the kernel ran step `step`'s reference (an
   * attached model's next prompt shows its output). Failures are logged only.
   */
  async reportOracle(
    step: number,
    msgId: string
  ): Promise<INextAction | undefined> {
    const kernelId = this.kernelId;
    const open = this.view.status === 'open'; // after the last step no prompt follows
    if (!kernelId || this.view.mode !== 'oracle' || !open) {
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
      void this.bind();
    }
  }

  private pending = new Set<Promise<unknown>>();
  private restarting = false;
  private _bound: Promise<void> = Promise.resolve();
  private _disposed = false;
}
