import { ClockCause, IAttemptSummary } from '../api';
import { CIBenchModel } from '../model';

/** What the panel's buttons do (implemented by the attempt controller). */
export interface IPanelActions {
  /** Reload the task list and the caller's attempts. */
  refresh(): Promise<void>;
  /** Load a task's intro and select it. */
  selectTask(id: string): Promise<void>;
  /** Start an attempt on the selected task in the model's mode. */
  start(): Promise<void>;
  /** Open an earlier attempt's notebook (resume or review). */
  open(attempt: IAttemptSummary): Promise<void>;
  /** Reveal the notebook of the attempt the panel shows. */
  openNotebook(): Promise<void>;
  /** Settle the open step and open the next. */
  next(): Promise<void>;
  /** Give up the open step. */
  giveUp(): Promise<void>;
  /** Cancel the settle waiting in its Undo window; true when there was one. */
  undoSettle(): boolean;
  /** Send the settle waiting in its Undo window now. */
  settleNow(): Promise<void>;
  /** The attached player plays the open step to its end. */
  playStep(): Promise<void>;
  /** The attached player plays every remaining step. */
  playAll(): Promise<void>;
  /** Stop the attached player after the turn in flight. */
  stopPlayer(): Promise<void>;
  /** Show a step's recorded turns: code, and a model's prompt, reply, tokens, latency. */
  showTurns(step: number): Promise<void>;
  /** The participant record: the working clock and notes. */
  readonly record: IRecordActions;
}

/** What the panel does with the participant record (notebook/record.ts). */
export interface IRecordActions {
  /** Pause the working clock of the attempt the panel shows. */
  pause(cause: ClockCause): Promise<void>;
  /** Resume it. */
  resume(cause: ClockCause): Promise<void>;
  /** Save the person's whole note on a step; rejects with the server's reason. */
  saveNote(attemptId: string, step: number, text: string): Promise<void>;
}

/** Attribute marking buttons disabled while the model is busy. */
export const LOCK_ATTR = 'data-cibench-lock';

/** Mark a button as one that is disabled while the model is busy. */
export function lockable(
  btn: HTMLButtonElement,
  model: CIBenchModel
): HTMLButtonElement {
  btn.setAttribute(LOCK_ATTR, '');
  btn.disabled = model.busy;
  return btn;
}
