/**
 * A finished or quit attempt's notebook is a record: opened, it gets no
 * kernel (the server refuses to bind one and stops any started on it), its
 * cells are read only, a run is refused with a note on the cell, and a note
 * above the cells says why. JupyterLab starts a notebook's kernel as soon as
 * its file is read, before the attempt's status is known: `holdKernel` keeps
 * it from starting until the attempt view says the attempt is open.
 */
import { ISessionContext } from '@jupyterlab/apputils';
import { Cell } from '@jupyterlab/cells';
import { Notebook, NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { IAttemptView } from '../api';
import { markAnswers } from './answer';
import { reconcile } from './cells';
import { restoreBadges } from './play';
import type { AttemptSession } from './session';
import { trans } from '../i18n';

export const CLOSED_NOTE_CLASS = 'jp-CIBench-closedNote';

/** What the note above a closed attempt's cells says. */
export function closedText(status: IAttemptView['status']): string {
  return status === 'quit'
    ? trans.__('This attempt was quit — read only')
    : trans.__('This attempt is finished — read only');
}

/** The session's part `holdKernel` and `closeNotebook` use. */
export type KernelContext = Pick<
  ISessionContext,
  | 'kernelPreference'
  | 'isReady'
  | 'isDisposed'
  | 'ready'
  | 'session'
  | 'startKernel'
  | 'shutdown'
>;

/**
 * Keep JupyterLab from starting the notebook's kernel (when it has not yet);
 * the returned release lets it start — and starts it when JupyterLab went past
 * its start meanwhile (an open attempt's notebook gets its kernel as before).
 */
export function holdKernel(ctx: KernelContext): () => Promise<void> {
  if (ctx.isReady) {
    return async () => undefined; // it already connected or started its kernel
  }
  const { shouldStart } = ctx.kernelPreference;
  ctx.kernelPreference = { ...ctx.kernelPreference, shouldStart: false };
  return async () => {
    ctx.kernelPreference = { ...ctx.kernelPreference, shouldStart };
    await ctx.ready;
    if (!ctx.isDisposed && !ctx.session?.kernel && shouldStart !== false) {
      await ctx.startKernel();
    }
  };
}

/** No kernel for a closed attempt's notebook: none starts, one running is shut down. */
export async function noKernel(ctx: KernelContext): Promise<void> {
  ctx.kernelPreference = {
    ...ctx.kernelPreference,
    shouldStart: false,
    canStart: false,
    autoStartDefault: false
  };
  await ctx.ready;
  if (!ctx.isDisposed && ctx.session?.kernel) {
    await ctx.shutdown();
  }
}

/** Make a cell read only, writing neither `editable` nor a shown or hidden input into the notebook. */
export function readOnlyCell(cell: Cell): void {
  cell.syncEditable = false;
  cell.syncCollapse = false; // showing a collapsed reference changes nothing on disk
  cell.readOnly = true;
  void cell.ready.then(() => cell.update()); // a placeholder cell's editor comes later
}

/** Every cell of the notebook read only, and each one added later. */
export function readOnlyCells(notebook: Notebook): void {
  notebook.widgets.forEach(readOnlyCell);
  notebook.model?.cells.changed.connect(() => {
    // a cell added since (a revealed reference: already read only by its
    // `editable: false`, but still writing its collapse) is made so too
    notebook.widgets
      .filter(c => c.syncEditable || c.syncCollapse)
      .forEach(readOnlyCell);
  });
}

/** Show the note above the notebook's cells saying it is read only, and why. */
export function showClosedNote(
  panel: NotebookPanel,
  status: IAttemptView['status']
): Widget {
  for (const widget of [...panel.contentHeader.widgets]) {
    if (widget.hasClass(CLOSED_NOTE_CLASS)) {
      widget.dispose();
    }
  }
  const note = new Widget();
  note.addClass(CLOSED_NOTE_CLASS);
  note.node.setAttribute('role', 'status');
  note.node.dataset.status = status;
  note.node.textContent = closedText(status);
  panel.contentHeader.addWidget(note);
  return note;
}

/**
 * A closed attempt's notebook as it opens: no kernel, its cells read only,
 * the note saying why. Kernel failures are reported only.
 */
export function closeNotebook(
  panel: NotebookPanel,
  status: IAttemptView['status'],
  report: (err: unknown) => void
): void {
  void noKernel(panel.sessionContext).catch(report);
  readOnlyCells(panel.content);
  showClosedNote(panel, status);
}

/**
 * A closed attempt's notebook as it opens: the cells it lacks (a settled
 * step's revealed reference, an oracle cell, shown, never run), its badges,
 * then closed as above; saved when cells were added.
 */
export async function showClosed(session: AttemptSession): Promise<void> {
  const fixed = reconcile(session.notebook, session.view);
  markAnswers(session.notebook, session.view);
  await restoreBadges(session);
  closeNotebook(session.panel, session.view.status, err =>
    console.warn('cibench-lab: the finished attempt kept a kernel', err)
  );
  if (fixed.changed) {
    await session.save();
  }
}
