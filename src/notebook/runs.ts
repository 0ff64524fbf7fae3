/**
 * The lab's cell executor: every run a person starts from a notebook (keys,
 * toolbar, menus) comes here. It replaces JupyterLab's own
 * (`@jupyterlab/notebook-extension:cell-executor`, disabled in package.json)
 * and runs cells with the same `runCell`; only a code cell of an attempt's
 * notebook first waits until the notebook runs on the attempt's kernel (its
 * gate, `AttemptSession.beforeRun`). Right after Start the notebook's session
 * may not be connected yet — JupyterLab would ask "Select Kernel" or start a
 * second kernel — and a kernel the server just stopped is replaced first.
 * Runs of one notebook start in the order they were issued. A finished
 * attempt's notebook runs no code cell (its gate says so: closed.ts).
 */
import {
  INotebookCellExecutor,
  INotebookModel,
  runCell
} from '@jupyterlab/notebook';

import { attemptMeta, NB_KEY } from './cells';

export type RunOptions = INotebookCellExecutor.IRunCellOptions;

/**
 * What a run in an attempt's notebook waits for; `false`: the cell is not run
 * (a finished attempt's read-only notebook, closed.ts).
 */
export type RunGate = (
  notebook: INotebookModel,
  cell: RunOptions['cell']
) => Promise<boolean | void>;

/** The waits of a run on an attempt's kernel, in order (`AttemptSession` has them). */
export interface IRunWaits {
  /** The notebook's session is connected (JupyterLab's `sessionContext.ready`). */
  connected(): Promise<void>;
  /** A kernel the server stopped is replaced by a fresh one (whether it was). */
  revive(): Promise<boolean>;
  /** The server answered the binding of the kernel the notebook runs now. */
  bound(): Promise<void>;
}

/** Wait until a run would reach the attempt's kernel, with its state restored. */
export async function untilBound(waits: IRunWaits): Promise<void> {
  await waits.connected();
  await waits.revive();
  await waits.bound();
}

export class AttemptRuns implements INotebookCellExecutor {
  /** `run`: how a cell runs once its gate opened (JupyterLab's `runCell`). */
  constructor(
    private run: (options: RunOptions) => Promise<boolean> = runCell
  ) {}

  /** The gate of attempt notebooks (the controller sets it; none: run at once). */
  gate: RunGate | null = null;

  runCell(options: RunOptions): Promise<boolean> {
    const { cell, notebook } = options;
    const gate = this.gate;
    const attempt = attemptMeta(notebook.getMetadata(NB_KEY));
    if (!gate || !attempt || cell.model.type !== 'code') {
      return this.run(options);
    }
    const before = this.queue.get(notebook) ?? Promise.resolve();
    const open = before
      .then(() => gate(notebook, cell))
      .catch(err => {
        console.warn(
          'cibench-lab: running on the notebook kernel as it is',
          err
        );
      });
    this.queue.set(
      notebook,
      open.then(() => undefined)
    );
    return open.then(runs => (runs === false ? false : this.run(options)));
  }

  /** Per notebook: the gate of the run issued last (the next run's waits after it). */
  private queue = new WeakMap<INotebookModel, Promise<void>>();
}
