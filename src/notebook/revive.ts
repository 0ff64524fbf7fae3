/**
 * An open attempt whose kernel is gone — the server stops a kernel idle for
 * `kernel_idle_cull` seconds — gets a fresh `cibench-lab` kernel when the
 * person comes back or runs a cell (the run waits for it: runs.ts), without a
 * dialog; the server restores the attempt's state on it when it is bound, and
 * the notebook says so in a note above its cells.
 */
import { ISessionContext } from '@jupyterlab/apputils';
import { NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { IKernelBinding } from '../api';
import { trans } from '../i18n';

/** The kernelspec every attempt kernel runs (kernels/spec.py). */
export const KERNEL_NAME = 'cibench-lab';

export const NOTE_CLASS = 'jp-CIBench-kernelNote';

export type KernelStop = NonNullable<IKernelBinding['previous_stop']>;

/** "30 idle minutes", "45 idle seconds" for the server's kernel_idle_cull (seconds). */
export function idleSpan(cull: number): string {
  return cull >= 60
    ? trans._n('%1 idle minute', '%1 idle minutes', Math.round(cull / 60))
    : trans._n('%1 idle second', '%1 idle seconds', Math.round(cull));
}

/** What the note says after a restore (`cull`: the server's kernel_idle_cull, seconds). */
export function kernelNote(
  stop: KernelStop | null | undefined,
  cull: number | null | undefined
): string {
  if (stop === 'idle') {
    return cull && cull > 0
      ? trans.__('Kernel stopped after %1 — restored', idleSpan(cull))
      : trans.__('Kernel stopped while idle — restored');
  }
  if (stop === 'finished') {
    return trans.__('Kernel stopped when the attempt finished — restored');
  }
  return trans.__('Kernel stopped — restored');
}

/**
 * Whether the notebook's kernel is gone. Asks the server's session and kernel
 * lists first: JupyterLab notices a kernel the server shut down only at its
 * next poll.
 */
export async function kernelGone(ctx: ISessionContext): Promise<boolean> {
  const refresh = [
    ctx.sessionManager.refreshRunning(),
    ctx.kernelManager?.refreshRunning()
  ];
  await Promise.all(refresh.map(p => p?.catch(() => undefined)));
  const kernel = ctx.session?.kernel;
  return !kernel || kernel.isDisposed || kernel.status === 'dead';
}

/** Start a fresh `cibench-lab` kernel for the notebook (no dialog). */
export async function freshKernel(ctx: ISessionContext): Promise<void> {
  try {
    await ctx.changeKernel({ name: KERNEL_NAME });
  } catch {
    // the server forgot the session with its kernel: start a new one
    ctx.session?.dispose();
    await ctx.changeKernel({ name: KERNEL_NAME });
  }
}

/** Show (or replace) the kernel note above the notebook's cells. */
export function showKernelNote(panel: NotebookPanel, text: string): Widget {
  hideKernelNote(panel);
  const note = new Widget();
  note.addClass(NOTE_CLASS);
  note.node.setAttribute('role', 'status');
  const message = document.createElement('span');
  message.className = `${NOTE_CLASS}-text`;
  message.textContent = text;
  const dismiss = document.createElement('button');
  dismiss.type = 'button';
  dismiss.className = `jp-CIBench-button ${NOTE_CLASS}-dismiss`;
  dismiss.textContent = trans.__('Dismiss');
  dismiss.setAttribute('aria-label', trans.__('Dismiss the kernel note'));
  dismiss.addEventListener('click', () => note.dispose());
  note.node.append(message, dismiss);
  panel.contentHeader.addWidget(note);
  return note;
}

/** Remove the kernel note, if any. */
export function hideKernelNote(panel: NotebookPanel): void {
  for (const widget of [...panel.contentHeader.widgets]) {
    if (widget.hasClass(NOTE_CLASS)) {
      widget.dispose();
    }
  }
}
