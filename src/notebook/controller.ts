/**
 * The attempt controller: implements the panel's actions, attaches every
 * notebook that names an attempt, reports answer-cell runs as turns and
 * drives Next step / Give up — always on the attempt the panel shows, which
 * follows the notebook the person activates (follow.ts).
 */
import { ILabShell } from '@jupyterlab/application';
import { Cell, CodeCell } from '@jupyterlab/cells';
import { IDocumentManager } from '@jupyterlab/docmanager';
import {
  INotebookModel,
  INotebookTracker,
  Notebook,
  NotebookActions,
  NotebookPanel
} from '@jupyterlab/notebook';

import {
  CIBenchApi,
  IAttemptSummary,
  IAttemptView,
  IPlaySettings
} from '../api';
import { CIBenchModel, DEFAULT_MODE } from '../model';
import { personTurnCap } from '../settings';
import { IPanelActions } from '../panel/actions';
import { startMode } from '../panel/qwen';
import { showTurns } from '../panel/turns';
import { Autoplayer } from './autoplay';
import { cellTag } from './cells';
import { ActivationFollower, panelOf } from './follow';
import { AttemptNotebooks } from './notebooks';
import { applyNext, isTurnCell, reportTurn } from './play';
import { Recorder } from './record';
import { AttemptSession } from './session';
import { Settler, SettleKind } from './settler';
import { trans } from '../i18n';

export interface IControllerOptions {
  api: CIBenchApi;
  model: CIBenchModel;
  tracker: INotebookTracker;
  docManager: IDocumentManager;
  shell: ILabShell;
  /** The user's play settings, sent with a new attempt. */
  playSettings: () => Partial<IPlaySettings>;
}

export class AttemptController implements IPanelActions {
  constructor(private options: IControllerOptions) {
    const { tracker, model, api, shell } = options;
    this.notebooks = new AttemptNotebooks({
      api,
      docManager: options.docManager,
      shell,
      attached: (session, view) => this.attached(session, view),
      detached: (session, last) => this.detached(session, last),
      report: err => this.report(err)
    });
    this.autoplayer = new Autoplayer({
      api,
      model,
      show: view => this.show(view),
      afterSettle: view => this.afterSettle(view)
    });
    this.follower = new ActivationFollower({
      shell,
      target: window,
      find: target => panelOf(target, this.notebooks.panels()),
      follow: panel => this.follow(panel)
    });
    this.settler = new Settler({
      api,
      model,
      notebooks: this.notebooks,
      shell,
      show: view => this.show(view),
      afterSettle: view => this.afterSettle(view)
    });
    this.record = new Recorder({
      api,
      model,
      session: id => this.notebooks.byId(id)
    });
    NotebookActions.executionScheduled.connect(this.onScheduled, this);
    tracker.widgetAdded.connect(this.onAdded, this);
    tracker.forEach(panel => void this.attach(panel));
  }

  dispose(): void {
    NotebookActions.executionScheduled.disconnect(this.onScheduled, this);
    this.options.tracker.widgetAdded.disconnect(this.onAdded, this);
    this.follower.dispose();
    this.settler.dispose();
    this.record.dispose();
    this.notebooks.dispose();
  }

  /** Pause / Resume and notes; the attached notebooks' activity. */
  readonly record: Recorder;

  private get model(): CIBenchModel {
    return this.options.model;
  }

  private get api(): CIBenchApi {
    return this.options.api;
  }

  // ---- panel actions -------------------------------------------------------
  async refresh(): Promise<void> {
    await this.model.run(async () => {
      const [tasks, attempts, models, me, server] = await Promise.all([
        this.api.tasks(),
        this.api.attempts(),
        this.api.models(),
        this.api.me(),
        this.api.serverSettings()
      ]);
      this.model.kernelNotice = server.kernel_unpinned ?? null;
      this.model.tasks = tasks;
      this.model.attempts = attempts;
      this.model.models = models;
      this.model.me = me;
    });
  }

  async selectTask(id: string): Promise<void> {
    await this.model.run(async () => {
      const [task, recordings, server] = await Promise.all([
        this.api.task(id),
        this.api.recordings(id),
        this.api.serverSettings()
      ]);
      this.model.turnCap = personTurnCap(server, this.options.playSettings());
      if (this.model.selected?.id !== task.id) {
        this.model.mode = DEFAULT_MODE; // a choice made for one task is not the next one's
      }
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
      const player = this.model.playerChoice;
      const settings = this.options.playSettings();
      if (player) {
        delete settings.grade_rule; // a player's steps are always graded when they settle
      }
      const view = await this.api.start({
        task_id: task.id,
        mode: startMode(task, this.model.mode),
        settings,
        player
      });
      this.model.showAttempt(view);
      await this.notebooks.open(view.notebook_path, view);
    });
    void this.refreshAttempts();
  }

  async open(attempt: IAttemptSummary): Promise<void> {
    await this.model.run(async () => {
      const session = await this.notebooks.open(attempt.notebook_path);
      this.model.showAttempt(
        session?.view ?? (await this.api.attempt(attempt.id))
      );
    });
  }

  /** Show an attempt by id (the panel's restored state after a reload). */
  async showById(id: string): Promise<void> {
    const view = await this.api.attempt(id);
    if (!this.model.attempt) {
      this.model.showAttempt(view);
    }
  }

  async openNotebook(): Promise<void> {
    const view = this.model.attempt;
    if (view) {
      await this.model.run(() => this.notebooks.open(view.notebook_path));
    }
  }

  next(): Promise<void> {
    return this.settle('next');
  }

  giveUp(): Promise<void> {
    return this.settle('give-up');
  }

  undoSettle(): boolean {
    return this.settler.undoSettle();
  }

  settleNow(): Promise<void> {
    return this.settler.settleNow();
  }

  playStep(): Promise<void> {
    return this.autoplay(false);
  }

  playAll(): Promise<void> {
    return this.autoplay(true);
  }

  async stopPlayer(): Promise<void> {
    try {
      const session = await this.shownSession();
      if (session) {
        await this.autoplayer.stop(session);
      }
    } catch (err) {
      this.report(err);
    }
  }

  /** Whether the panel shows an open attempt a person plays (Next step). */
  canSettle(): boolean {
    const view = this.model.attempt;
    return view?.status === 'open' && view.player === 'human';
  }

  /** Whether the panel shows an open attempt an attached player plays. */
  hasPlayer(): boolean {
    const view = this.model.attempt;
    return view?.status === 'open' && view.player !== 'human';
  }

  /** Show a step's turns (`step` undefined: the active cell's step). */
  async showTurns(step?: number): Promise<void> {
    const found = await this.model.run(async () => {
      const current = this.options.tracker.currentWidget;
      const session =
        step === undefined && current
          ? await this.attach(current)
          : await this.shownSession();
      const cell = session?.notebook.activeCell;
      const index = step ?? (cell ? cellTag(cell)?.step : undefined);
      if (!session || index === undefined) {
        throw new Error(
          trans.__('Select a step cell of a CIBench attempt first.')
        );
      }
      const turns = await this.api.turns(session.id);
      return { index, turns: turns.filter(t => t.step === index) };
    });
    if (found) {
      await showTurns(found.turns, found.index);
    }
  }

  /** Let the attempt's attached player play (the panel stays usable: Stop). */
  private async autoplay(all: boolean): Promise<void> {
    try {
      const session = await this.shownSession();
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

  /** A person's Next step or Give up on the attempt the panel shows (settler.ts). */
  settle(kind: SettleKind): Promise<void> {
    return this.settler.settle(kind);
  }

  // ---- attaching notebooks -------------------------------------------------
  /** Attach a notebook to its attempt, once; undefined when it names none. */
  attach(panel: NotebookPanel): Promise<AttemptSession | undefined> {
    return this.notebooks.attach(panel);
  }

  /** The session of an open notebook, if it plays an attempt. */
  sessionOf(notebook: Notebook): AttemptSession | undefined {
    return this.notebooks.of(notebook);
  }

  /** What a run in a notebook waits for: the cell executor's gate (runs.ts). */
  beforeRun(model: INotebookModel, cell: Cell): Promise<boolean> {
    return this.notebooks.beforeRun(model, cell);
  }

  private attached(session: AttemptSession, view: IAttemptView): void {
    const panel = session.panel;
    this.record.attach(session);
    this.model.setNotebook(session.id, true);
    const activated = this.follower.activated === panel;
    const current = this.options.tracker.currentWidget === panel;
    if (!this.model.attempt && (activated || current)) {
      this.model.showReopened(view); // e.g. after a page reload
    } else if (this.isShown(view) || activated) {
      this.model.attempt = view;
    }
  }

  /** A notebook closed: the panel keeps showing its attempt ("notebook closed"). */
  private detached(session: AttemptSession, last: boolean): void {
    this.record.detach(session);
    if (last) {
      this.model.setNotebook(session.id, false);
    }
    if (this.isShown(session.view)) {
      this.follower.closed();
    }
  }

  /** The session of the attempt the panel shows (its notebook reopened if closed). */
  private async shownSession(): Promise<AttemptSession | undefined> {
    const view = this.model.attempt;
    if (!view) {
      throw new Error(trans.__('No CIBench attempt is open.'));
    }
    return (
      this.notebooks.byId(view.id) ??
      (await this.notebooks.open(view.notebook_path))
    );
  }

  /** The person activated an attempt's notebook: show that attempt, fresh. */
  private follow(panel: NotebookPanel): void {
    const session = this.notebooks.of(panel.content);
    if (!session || this.isShown(session.view)) {
      return;
    }
    this.model.attempt = session.view;
    void this.api.attempt(session.id).then(
      view => this.show(view),
      () => undefined
    );
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
        this.settler.settledByTurn(result.attempt);
        await applyNext(session, result.next);
        this.afterSettle(result.attempt);
      } else {
        void this.refreshAttempts();
      }
    } catch (err) {
      this.report(err);
    }
  }

  private afterSettle(view: IAttemptView): void {
    if (view.status === 'done' && this.isShown(view)) {
      this.model.showAttempt(view);
    }
    void this.refreshAttempts();
  }

  // ---- helpers -------------------------------------------------------------
  private onAdded(_: INotebookTracker, panel: NotebookPanel): void {
    void this.attach(panel);
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

  private notebooks: AttemptNotebooks;
  private autoplayer: Autoplayer;
  private follower: ActivationFollower;
  private settler: Settler;
}
