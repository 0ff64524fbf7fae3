/**
 * A person's Next step and Give up, on the attempt the panel shows: Next asks
 * first when the step has no run or its last run failed; the settle then
 * waits out its Undo window (undo.ts) and is sent — through the attempt's
 * notebook when it is open (the next step's cells, the oracle's reference),
 * else straight to the server (the notebook is reconciled when reopened).
 */
import { ILabShell } from '@jupyterlab/application';

import { CIBenchApi, IAttemptView } from '../api';
import { CIBenchModel } from '../model';
import { confirmNext } from './confirm';
import { AttemptNotebooks } from './notebooks';
import { applyNext } from './play';
import { AttemptSession } from './session';
import { ISettleRequest, UndoWindow } from './undo';
import { trans } from '../i18n';

export type SettleKind = ISettleRequest['kind'];

export interface ISettlerOptions {
  api: CIBenchApi;
  model: CIBenchModel;
  notebooks: AttemptNotebooks;
  shell: ILabShell;
  /** Update the panel when it shows this attempt. */
  show: (view: IAttemptView) => void;
  /** After a step settled (the attempt may be done). */
  afterSettle: (view: IAttemptView) => void;
}

export class Settler {
  constructor(private options: ISettlerOptions) {
    const { api, model } = options;
    this.undo = new UndoWindow({
      model,
      commit: request => this.commit(request),
      beacon: ({ attemptId, step, kind }) =>
        api.keepalive(`attempts/${encodeURIComponent(attemptId)}/${kind}`, {
          step
        }),
      target: window
    });
  }

  dispose(): void {
    this.undo.dispose();
  }

  /** Settle the open step of the attempt the panel shows, after the Undo window. */
  async settle(kind: SettleKind): Promise<void> {
    const { model, notebooks } = this.options;
    const shown = model.attempt;
    await (shown && notebooks.byId(shown.id)?.settled()); // runs being reported count
    const view =
      shown && model.attempt?.id === shown.id ? model.attempt : shown;
    if (!view || view.status !== 'open') {
      model.error = view
        ? trans.__('This attempt is finished.')
        : trans.__('No CIBench attempt is open.');
      return;
    }
    if (this.undo.request?.attemptId === view.id) {
      return; // already waiting: Undo or Settle now
    }
    const step = view.steps.find(s => s.index === view.current_step);
    const session = notebooks.byId(view.id);
    if (kind === 'next' && !(await confirmNext(session, step))) {
      return;
    }
    model.error = null;
    await session?.save(); // the step's code is on disk if the page goes away meanwhile
    await this.undo.start({
      attemptId: view.id,
      notebookPath: view.notebook_path,
      step: view.current_step,
      kind
    });
  }

  /** Cancel the settle waiting in its Undo window; true when there was one. */
  undoSettle(): boolean {
    return this.undo.undo();
  }

  /** Send the waiting settle now. */
  settleNow(): Promise<void> {
    return this.undo.now();
  }

  /** A turn settled the attempt's step (a turn cap): a waiting settle of it is void. */
  settledByTurn(view: IAttemptView): void {
    const request = this.undo.request;
    if (request?.attemptId === view.id && request.step < view.current_step) {
      this.undo.undo();
    }
  }

  /** Send a settle whose Undo window ended. */
  private async commit(request: ISettleRequest): Promise<void> {
    const { model, notebooks } = this.options;
    if (this.sending.has(request.attemptId)) {
      return;
    }
    this.sending.add(request.attemptId);
    try {
      await model.run(async () => {
        let session = notebooks.byId(request.attemptId);
        if (!session && model.attempt?.id === request.attemptId) {
          session = await notebooks.open(request.notebookPath);
        }
        if (session) {
          await this.settleIn(session, request);
        } else {
          await this.settleClosed(request);
        }
      });
    } finally {
      this.sending.delete(request.attemptId);
    }
  }

  private async settleIn(
    session: AttemptSession,
    request: ISettleRequest
  ): Promise<void> {
    const { api, model, show, afterSettle, shell } = this.options;
    await session.settled();
    let view = session.view;
    if (view.status !== 'open' || view.current_step !== request.step) {
      view = await api.attempt(session.id); // settled meanwhile (a turn cap)
      session.view = view;
      show(view);
      return;
    }
    await session.save(); // what settles is on disk
    const result =
      request.kind === 'next'
        ? await api.next(view.id, request.step)
        : await api.giveUp(view.id, request.step);
    session.view = result.attempt;
    show(result.attempt);
    if (model.attempt?.id === result.attempt.id) {
      shell.activateById(session.panel.id);
    }
    await applyNext(session, result.next);
    afterSettle(result.attempt);
  }

  private async settleClosed(request: ISettleRequest): Promise<void> {
    const { attemptId, step, kind } = request;
    const { api } = this.options;
    const result =
      kind === 'next'
        ? await api.next(attemptId, step)
        : await api.giveUp(attemptId, step);
    this.options.afterSettle(result.attempt);
  }

  private undo: UndoWindow;
  private sending = new Set<string>();
}
