/**
 * What happens in an attempt's notebook during play: report a run of the open
 * step's answer cell as a turn, and after a step settles do what the server's
 * answer says next (oracle mode: run the reference as a read-only cell) and
 * open the step the attempt is at. The rules — when a step settles, what comes
 * next — are the server's step driver's; this only carries them out.
 */
import { Cell, CodeCell } from '@jupyterlab/cells';
import { ISessionContext } from '@jupyterlab/apputils';

import { CIBenchApi, INextAction, ITurnResult } from '../api';
import { messageOf } from '../model';
import { showBadge } from './badge';
import {
  activate,
  appendStep,
  cellTag,
  findCell,
  insertOracle,
  reconcile
} from './cells';
import { AttemptSession } from './session';

/** Msg ids already reported, per cell (a run of an empty cell keeps the old future). */
const reported = new WeakMap<CodeCell, string>();

/** Whether a scheduled run of `cell` is a turn of the session's open step. */
export function isTurnCell(session: AttemptSession, cell: Cell): boolean {
  const tag = cellTag(cell);
  return (
    session.view.status === 'open' &&
    cell.model.type === 'code' &&
    tag?.role === 'answer' &&
    tag.step === session.view.current_step
  );
}

/**
 * Report the run of an answer cell just scheduled: read the execute request's
 * msg_id one microtask later (the future is assigned synchronously after the
 * signal) and POST it; show the grade on the cell.
 */
export async function reportTurn(
  session: AttemptSession,
  cell: CodeCell,
  api: CIBenchApi
): Promise<ITurnResult | undefined> {
  const step = session.view.current_step;
  await Promise.resolve();
  const msgId = cell.outputArea.future?.msg.header.msg_id;
  const kernelId = session.kernelId;
  const empty = !cell.model.sharedModel.getSource().trim();
  if (!msgId || !kernelId || empty || reported.get(cell) === msgId) {
    return undefined;
  }
  reported.set(cell, msgId);
  showBadge(cell, { kind: 'pending' }, step);
  try {
    await session.bound;
    const result = await api.turn(session.id, step, kernelId, msgId);
    showBadge(cell, { kind: 'grade', grade: result.grade }, step);
    session.view = result.attempt;
    return result;
  } catch (err) {
    showBadge(cell, { kind: 'error', message: messageOf(err) }, step);
    throw err;
  }
}

/**
 * Run a cell on the notebook's kernel and wait for it to finish; resolve to
 * the execute request's msg_id (undefined when nothing ran).
 */
export async function runCell(
  cell: CodeCell,
  sessionContext: ISessionContext
): Promise<string | undefined> {
  const running = CodeCell.execute(cell, sessionContext);
  // OutputArea.execute assigns the future synchronously inside execute()
  const msgId = cell.outputArea.future?.msg.header.msg_id;
  try {
    await running;
  } catch (err) {
    console.warn('cibench-lab: a cell failed to run', err);
  }
  return msgId;
}

/**
 * Run an attached player's code in the step's answer cell and report the run
 * as the step's turn (the server grades it from its own kernel capture).
 */
export async function runTurn(
  session: AttemptSession,
  cell: CodeCell,
  api: CIBenchApi
): Promise<ITurnResult | undefined> {
  const running = CodeCell.execute(cell, session.sessionContext);
  const result = await reportTurn(session, cell, api);
  await running.catch(() => undefined);
  return result;
}

/** Oracle mode: run a settled step's reference cell and tell the server; its next action. */
async function runOracle(
  session: AttemptSession,
  cell: CodeCell
): Promise<INextAction | undefined> {
  const msgId = await runCell(cell, session.sessionContext);
  const step = cellTag(cell)?.step;
  if (msgId && step !== undefined) {
    return session.reportOracle(step, msgId);
  }
  return undefined;
}

/**
 * After a step settled: do what the server's answer said next — `reference`:
 * run the settled step's reference as a read-only oracle cell (once) — then
 * open the step the attempt is at, and save. Resolves to the action after it.
 */
export async function applyNext(
  session: AttemptSession,
  next: INextAction
): Promise<INextAction> {
  let after = next;
  if (next.do === 'reference' && next.step !== undefined) {
    after = session.view.next;
    const nb = session.notebook;
    if (!findCell(nb, 'oracle', next.step)) {
      const cell = insertOracle(nb, next.step, next.code ?? '');
      after = (await runOracle(session, cell)) ?? after;
    }
  }
  openCurrentStep(session);
  await session.panel.context.save();
  return after;
}

/** Make sure the open step has its cells and put the cursor in its answer. */
export function openCurrentStep(session: AttemptSession): void {
  const view = session.view;
  if (view.status !== 'open') {
    return;
  }
  const step = view.steps.find(s => s.index === view.current_step);
  if (!step) {
    return;
  }
  const nb = session.notebook;
  const answer =
    findCell(nb, 'answer', step.index) ?? appendStep(nb, step, view.n_steps);
  activate(nb, answer);
}

/** Show the grades the attempt view holds on their answer cells. */
export function restoreBadges(session: AttemptSession): void {
  for (const step of session.view.steps) {
    const cell = findCell(session.notebook, 'answer', step.index);
    if (cell && step.grade) {
      showBadge(cell, { kind: 'grade', grade: step.grade }, step.index);
    }
  }
}

/**
 * Bring a just-attached notebook in line with its attempt: add missing step
 * cells, bind the kernel, and run oracle cells the kernel has not seen.
 */
export async function syncNotebook(session: AttemptSession): Promise<void> {
  const fixed = reconcile(session.notebook, session.view);
  restoreBadges(session);
  await session.sessionContext.ready;
  const binding = await session.bind();
  if (binding && binding.restored_cells === 0) {
    for (const cell of fixed.oracle) {
      await runOracle(session, cell);
    }
  }
  if (fixed.changed) {
    await session.panel.context.save();
  }
}
