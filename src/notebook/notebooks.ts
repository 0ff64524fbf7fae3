/**
 * The open attempt notebooks: each notebook that names an attempt is attached
 * once (an AttemptSession), found by notebook, notebook model or attempt id,
 * and detached when it closes. A finished or quit attempt's notebook opens
 * read only with no kernel (closed.ts).
 */
import { ILabShell } from '@jupyterlab/application';
import { Cell } from '@jupyterlab/cells';
import { IDocumentManager } from '@jupyterlab/docmanager';
import { INotebookModel, Notebook, NotebookPanel } from '@jupyterlab/notebook';

import { ApiError, CIBenchApi, IAttemptView } from '../api';
import { attemptMeta, cellTag, NB_KEY } from './cells';
import { holdKernel, showClosed } from './closed';
import { refuseRun } from './labels';
import { syncNotebook } from './play';
import { AttemptSession } from './session';
import { trans } from '../i18n';

export interface INotebooksOptions {
  api: CIBenchApi;
  docManager: IDocumentManager;
  shell: ILabShell;
  /** A notebook was attached (before it is brought in line with its attempt). */
  attached: (session: AttemptSession, view: IAttemptView) => void;
  /** An attached notebook closed (`last`: no other notebook shows its attempt). */
  detached: (session: AttemptSession, last: boolean) => void;
  /** A failure to show (attaching is best effort). */
  report: (err: unknown) => void;
}

export class AttemptNotebooks {
  constructor(private options: INotebooksOptions) {}

  /** Attach a notebook to its attempt, once; undefined when it names none. */
  attach(panel: NotebookPanel): Promise<AttemptSession | undefined> {
    let pending = this.attaching.get(panel);
    if (!pending) {
      pending = this.doAttach(panel).catch(err => {
        this.attaching.delete(panel);
        if (panel.model) {
          this.byModel.delete(panel.model);
        }
        if (isAnothers(err)) {
          hideAnothers(panel, this.options.report);
        } else {
          this.options.report(
            new Error(`CIBench: ${String(err?.message ?? err)}`)
          );
        }
        return undefined;
      });
      this.attaching.set(panel, pending);
      if (panel.model) {
        this.byModel.set(panel.model, pending);
      }
    }
    return pending;
  }

  /**
   * What a run in a notebook waits for (the cell executor asks, runs.ts): in
   * an attempt's notebook, once attached, its session's `beforeRun`; whether
   * the cell may run (not in a finished attempt's notebook, nor a read-only
   * oracle or prior cell: labels.ts).
   */
  async beforeRun(model: INotebookModel, cell: Cell): Promise<boolean> {
    const session = await this.byModel.get(model);
    if (session && refuseRun(cell, cellTag(cell))) {
      return false;
    }
    return session ? session.beforeRun(cell) : true;
  }

  /** Open (or reveal) an attempt's notebook, activate it and attach it. */
  async open(
    path: string,
    known?: IAttemptView
  ): Promise<AttemptSession | undefined> {
    if (known) {
      this.known.set(path, known); // just started: no need to ask for it again
    }
    const widget = this.options.docManager.openOrReveal(path);
    if (!(widget instanceof NotebookPanel)) {
      throw new Error(trans.__('cannot open %1 as a notebook', path));
    }
    this.options.shell.activateById(widget.id);
    return this.attach(widget);
  }

  /** The session of an open notebook, if it plays an attempt. */
  of(notebook: Notebook): AttemptSession | undefined {
    for (const session of this.sessions) {
      if (session.notebook === notebook) {
        return session;
      }
    }
    return undefined;
  }

  /** The session of an attempt whose notebook is open. */
  byId(id: string): AttemptSession | undefined {
    for (const session of this.sessions) {
      if (session.id === id) {
        return session;
      }
    }
    return undefined;
  }

  /** The attached notebooks. */
  *panels(): Iterable<NotebookPanel> {
    for (const session of this.sessions) {
      yield session.panel;
    }
  }

  dispose(): void {
    this.sessions.forEach(s => s.dispose());
    this.sessions.clear();
  }

  private async doAttach(
    panel: NotebookPanel
  ): Promise<AttemptSession | undefined> {
    await panel.context.ready;
    const meta = attemptMeta(panel.model?.getMetadata(NB_KEY));
    if (!meta || panel.isDisposed) {
      return undefined;
    }
    const { api, report } = this.options;
    const release = holdKernel(panel.sessionContext); // until the status is known
    const known = this.known.get(panel.context.path);
    this.known.delete(panel.context.path);
    let view: IAttemptView;
    try {
      view =
        known?.id === meta.attempt_id
          ? known
          : await api.attempt(meta.attempt_id);
    } catch (err) {
      void release().catch(report);
      throw err;
    }
    const closed = view.status !== 'open';
    const session = new AttemptSession(panel, view, api, report);
    session.readOnly = closed;
    this.sessions.add(session);
    panel.disposed.connect(() => this.detach(session, panel));
    this.options.attached(session, view);
    // open: the attempt's kernel as before (JupyterLab's, or started once released)
    await (closed ? showClosed(session) : syncNotebook(session, release()));
    return session;
  }

  private detach(session: AttemptSession, panel: NotebookPanel): void {
    session.dispose();
    this.sessions.delete(session);
    this.attaching.delete(panel);
    this.options.detached(session, !this.byId(session.id));
  }

  private sessions = new Set<AttemptSession>();
  /** The view of an attempt just started, by its notebook's path, until it is attached. */
  private known = new Map<string, IAttemptView>();
  private attaching = new WeakMap<
    NotebookPanel,
    Promise<AttemptSession | undefined>
  >();
  private byModel = new WeakMap<
    INotebookModel,
    Promise<AttemptSession | undefined>
  >();
}

/** The server refused the notebook's attempt: it is someone else's (403). */
function isAnothers(err: unknown): boolean {
  return err instanceof ApiError && err.status === 403;
}

/**
 * A notebook of another participant's attempt (the lab reopened it at a
 * shared seat): closed, unsaved, without naming whose — unless it holds edits
 * made here, which are not thrown away (it stays, unplayed, and says so).
 */
function hideAnothers(
  panel: NotebookPanel,
  report: (err: unknown) => void
): void {
  if (panel.model?.dirty) {
    report(
      new Error(trans.__('CIBench: %1 is not your attempt', panel.title.label))
    );
  } else {
    panel.dispose();
  }
}
