/**
 * The attempt controller: implements the panel's actions, attaches every
 * notebook that names an attempt, reports answer-cell runs as turns and
 * drives Next step / Give up.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { Cell, CodeCell } from '@jupyterlab/cells';
import { IDocumentManager } from '@jupyterlab/docmanager';
import {
  INotebookTracker,
  Notebook,
  NotebookActions,
  NotebookPanel
} from '@jupyterlab/notebook';

import {
  CIBenchApi,
  IAttemptSummary,
  IAttemptView,
  IPlaySettings,
  ISettleResult
} from '../api';
import { CIBenchModel } from '../model';
import { IPanelActions } from '../panel/actions';
import { showTurns } from '../panel/turns';
import { Autoplayer } from './autoplay';
import { attemptMeta, cellTag, NB_KEY } from './cells';
import { applyNext, isTurnCell, reportTurn, syncNotebook } from './play';
import { AttemptSession } from './session';

export type SettleKind = 'next' | 'give-up';

export interface IControllerOptions {
  api: CIBenchApi;
  model: CIBenchModel;
  tracker: INotebookTracker;
  docManager: IDocumentManager;
  shell: JupyterFrontEnd.IShell;
  /** The user's play settings, sent with a new attempt. */
  playSettings: () => Partial<IPlaySettings>;
}

export class AttemptController implements IPanelActions {
  constructor(private options: IControllerOptions) {
    const { tracker } = options;
    NotebookActions.executionScheduled.connect(this.onScheduled, this);
    tracker.widgetAdded.connect(this.onAdded, this);
    tracker.currentChanged.connect(this.onCurrent, this);
    tracker.forEach(panel => void this.attach(panel));
    this.autoplayer = new Autoplayer({
      api: options.api,
      model: options.model,
      show: view => this.show(view),
      afterSettle: view => this.afterSettle(view)
    });
  }

  dispose(): void {
    const { tracker } = this.options;
    NotebookActions.executionScheduled.disconnect(this.onScheduled, this);
    tracker.widgetAdded.disconnect(this.onAdded, this);
    tracker.currentChanged.disconnect(this.onCurrent, this);
    this.sessions.forEach(s => s.dispose());
    this.sessions.clear();
  }

  private get model(): CIBenchModel {
    return this.options.model;
  }

  private get api(): CIBenchApi {
    return this.options.api;
  }

  // ---- panel actions -------------------------------------------------------
  async refresh(): Promise<void> {
    await this.model.run(async () => {
      const [tasks, attempts, models] = await Promise.all([
        this.api.tasks(),
        this.api.attempts(),
        this.api.models()
      ]);
      this.model.tasks = tasks;
      this.model.attempts = attempts;
      this.model.models = models;
    });
  }

  async selectTask(id: string): Promise<void> {
    await this.model.run(async () => {
      const [task, recordings] = await Promise.all([
        this.api.task(id),
        this.api.recordings(id)
      ]);
      this.model.selected = task;
      this.model.recordings = recordings;
      if (this.model.player.startsWith('replay:')) {
        this.model.player = '';
      }
    });
  }

  async start(): Promise<void> {
    const task = this.model.selected;
    if (!task) {
      return;
    }
    await this.model.run(async () => {
      const view = await this.api.start({
        task_id: task.id,
        mode: this.model.mode,
        settings: this.options.playSettings(),
        player: this.model.playerChoice
      });
      this.model.showAttempt(view);
      await this.openAndAttach(view.notebook_path);
    });
    void this.refreshAttempts();
  }

  async open(attempt: IAttemptSummary): Promise<void> {
    await this.model.run(async () => {
      const session = await this.openAndAttach(attempt.notebook_path);
      this.model.showAttempt(
        session?.view ?? (await this.api.attempt(attempt.id))
      );
    });
  }

  async openNotebook(): Promise<void> {
    const view = this.model.attempt;
    if (view) {
      await this.model.run(() => this.openAndAttach(view.notebook_path));
    }
  }

  next(): Promise<void> {
    return this.settle('next', false);
  }

  giveUp(): Promise<void> {
    return this.settle('give-up', false);
  }

  playStep(fromNotebook = false): Promise<void> {
    return this.autoplay(false, fromNotebook);
  }

  playAll(fromNotebook = false): Promise<void> {
    return this.autoplay(true, fromNotebook);
  }

  async stopPlayer(fromNotebook = false): Promise<void> {
    try {
      const session = await this.resolveSession(fromNotebook);
      if (session) {
        await this.autoplayer.stop(session);
      }
    } catch (err) {
      this.report(err);
    }
  }

  /** Show a step's turns (`step` undefined: the active cell's step). */
  async showTurns(step?: number): Promise<void> {
    const found = await this.model.run(async () => {
      const session = await this.resolveSession(step === undefined);
      const cell = session?.notebook.activeCell;
      const index = step ?? (cell ? cellTag(cell)?.step : undefined);
      if (!session || index === undefined) {
        throw new Error('Select a step cell of a CIBench attempt first.');
      }
      const turns = await this.api.turns(session.id);
      return { index, turns: turns.filter(t => t.step === index) };
    });
    if (found) {
      await showTurns(found.turns, found.index);
    }
  }

  /** Let the attempt's attached player play (the panel stays usable: Stop). */
  private async autoplay(all: boolean, fromNotebook: boolean): Promise<void> {
    try {
      const session = await this.resolveSession(fromNotebook);
      if (!session) {
        return;
      }
      this.model.error = null;
      await session.bound;
      await session.settled();
      this.options.shell.activateById(session.panel.id);
      await this.autoplayer.play(session, all);
    } catch (err) {
      this.report(err);
    }
  }

  /**
   * Settle the open step of the active notebook's attempt (`fromNotebook`,
   * for commands) or of the attempt the panel shows.
   */
  async settle(kind: SettleKind, fromNotebook: boolean): Promise<void> {
    await this.model.run(async () => {
      const session = await this.resolveSession(fromNotebook);
      if (!session || this.settling.has(session.id)) {
        return;
      }
      this.settling.add(session.id);
      try {
        await this.settleIn(session, kind);
      } finally {
        this.settling.delete(session.id);
      }
    });
  }

  // ---- attaching notebooks -------------------------------------------------
  /** Attach a notebook to its attempt, once; undefined when it names none. */
  attach(panel: NotebookPanel): Promise<AttemptSession | undefined> {
    let pending = this.attaching.get(panel);
    if (!pending) {
      pending = this.doAttach(panel).catch(err => {
        this.attaching.delete(panel);
        this.model.error = `CIBench: ${String(err?.message ?? err)}`;
        return undefined;
      });
      this.attaching.set(panel, pending);
    }
    return pending;
  }

  /** The session of an open notebook, if it plays an attempt. */
  sessionOf(notebook: Notebook): AttemptSession | undefined {
    for (const session of this.sessions) {
      if (session.notebook === notebook) {
        return session;
      }
    }
    return undefined;
  }

  private async doAttach(
    panel: NotebookPanel
  ): Promise<AttemptSession | undefined> {
    await panel.context.ready;
    const meta = attemptMeta(panel.model?.getMetadata(NB_KEY));
    if (!meta || panel.isDisposed) {
      return undefined;
    }
    const view = await this.api.attempt(meta.attempt_id);
    const session = new AttemptSession(panel, view, this.api, err =>
      this.report(err)
    );
    this.sessions.add(session);
    panel.disposed.connect(() => {
      session.dispose();
      this.sessions.delete(session);
      this.attaching.delete(panel);
    });
    const current = this.options.tracker.currentWidget === panel;
    if (!this.model.attempt && current) {
      this.model.showAttempt(view); // e.g. after a page reload
    } else if (this.isShown(view) || current) {
      this.model.attempt = view;
    }
    await syncNotebook(session);
    return session;
  }

  private async openAndAttach(
    path: string
  ): Promise<AttemptSession | undefined> {
    const widget = this.options.docManager.openOrReveal(path);
    if (!(widget instanceof NotebookPanel)) {
      throw new Error(`cannot open ${path} as a notebook`);
    }
    this.options.shell.activateById(widget.id);
    return this.attach(widget);
  }

  // ---- turns and settling --------------------------------------------------
  private onScheduled(
    _: unknown,
    args: { notebook: Notebook; cell: Cell }
  ): void {
    const session = this.sessionOf(args.notebook);
    if (!session || !isTurnCell(session, args.cell)) {
      return;
    }
    session.track(this.turn(session, args.cell as CodeCell));
  }

  private async turn(session: AttemptSession, cell: CodeCell): Promise<void> {
    try {
      const result = await reportTurn(session, cell, this.api);
      if (!result) {
        return;
      }
      this.model.error = null;
      this.show(result.attempt);
      if (result.settled) {
        await applyNext(session, result.next);
        this.afterSettle(result.attempt);
      }
    } catch (err) {
      this.report(err);
    }
  }

  private async settleIn(
    session: AttemptSession,
    kind: SettleKind
  ): Promise<void> {
    await session.settled();
    const view = session.view;
    if (view.status !== 'open') {
      this.model.showAttempt(view);
      throw new Error('This attempt is finished.');
    }
    const step = view.current_step;
    const result: ISettleResult =
      kind === 'next'
        ? await this.api.next(view.id, step)
        : await this.api.giveUp(view.id, step);
    session.view = result.attempt;
    this.show(result.attempt);
    this.options.shell.activateById(session.panel.id);
    await applyNext(session, result.next);
    this.afterSettle(result.attempt);
  }

  private afterSettle(view: IAttemptView): void {
    if (view.status === 'done') {
      this.model.showAttempt(view);
      void this.refreshAttempts();
    }
  }

  private async resolveSession(
    fromNotebook: boolean
  ): Promise<AttemptSession | undefined> {
    const current = this.options.tracker.currentWidget;
    if (fromNotebook && current) {
      const session = await this.attach(current);
      if (session) {
        return session;
      }
    }
    const view = this.model.attempt;
    if (!view) {
      throw new Error('No CIBench attempt is open.');
    }
    for (const session of this.sessions) {
      if (session.id === view.id) {
        return session;
      }
    }
    return this.openAndAttach(view.notebook_path);
  }

  // ---- helpers -------------------------------------------------------------
  private onAdded(_: INotebookTracker, panel: NotebookPanel): void {
    void this.attach(panel);
  }

  private onCurrent(_: INotebookTracker, panel: NotebookPanel | null): void {
    const session = panel ? this.sessionOf(panel.content) : undefined;
    if (session) {
      this.model.attempt = session.view;
    }
  }

  private isShown(view: IAttemptView): boolean {
    return this.model.attempt?.id === view.id;
  }

  /** Update the panel when it shows this attempt. */
  private show(view: IAttemptView): void {
    if (this.isShown(view)) {
      this.model.attempt = view;
    }
  }

  private async refreshAttempts(): Promise<void> {
    try {
      this.model.attempts = await this.api.attempts();
    } catch (err) {
      this.report(err);
    }
  }

  private report(err: unknown): void {
    this.model.error = err instanceof Error ? err.message : String(err);
  }

  private autoplayer: Autoplayer;
  private sessions = new Set<AttemptSession>();
  private attaching = new WeakMap<
    NotebookPanel,
    Promise<AttemptSession | undefined>
  >();
  private settling = new Set<string>();
}
