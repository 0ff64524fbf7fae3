/**
 * What happens in an attempt's notebook during play: report a run of the open
 * step's answer cell as a turn, and after a step settles do what the server's
 * answer says next (oracle mode: run the reference as a read-only cell) and
 * open the step the attempt is at. The rules — when a step settles, what comes
 * next — are the server's step driver's; this only carries them out.
 */
import { Cell, CodeCell } from '@jupyterlab/cells';
import { ISessionContext } from '@jupyterlab/apputils';

import { CIBenchApi, INextAction, ITurnDetail, ITurnResult } from '../api';
import { emptyCellText, ruleLine } from '../grade';
import { messageOf } from '../model';
import { markAnswers } from './answer';
import { badgeOf, clearBadge, showBadge } from './badge';
import {
  activate,
  appendStep,
  cellTag,
  findCell,
  insertOracle,
  reconcile,
  revealReferences
} from './cells';
import {
  putBackBadge,
  putBackCode,
  restoredBadge,
  unrunNote
} from './freshness';
import { runSafely } from './safe';
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
 * signal) and POST it (the server answers once the kernel is idle and the run
 * graded); the badge says "running…" until the kernel finished the cell,
 * "grading…" after, then the grade.
 */
export async function reportTurn(
  session: AttemptSession,
  cell: CodeCell,
  api: CIBenchApi
): Promise<ITurnResult | undefined> {
  const step = session.view.current_step;
  await Promise.resolve();
  const run = noteEmpty(session, cell, step)
    ? null
    : scheduledRun(session, cell);
  if (!run) {
    return undefined;
  }
  reported.set(cell, run.msgId);
  session.graded.forget(cell);
  const latest = () => reported.get(cell) === run.msgId;
  let answered = false;
  badgeWhileRunning(session, cell, step, run.future, () => {
    return !answered && latest();
  });
  try {
    await session.bound;
    const result = await api.turn(session.id, step, run.kernelId, run.msgId);
    answered = true;
    session.view = result.attempt;
    if (latest()) {
      showRun(session, cell, result, run.source);
    }
    await session.save(); // what was graded is on disk if the page reloads
    return result;
  } catch (err) {
    answered = true;
    if (latest()) {
      showBadge(cell, { kind: 'error', message: messageOf(err) }, step);
    }
    throw err;
  }
}

/** "running… · stops at 2 min" until the kernel finished the run, then "grading…" while `waiting`. */
function badgeWhileRunning(
  session: AttemptSession,
  cell: CodeCell,
  step: number,
  future: IScheduledRun['future'],
  waiting: () => boolean
): void {
  showBadge(cell, { kind: 'running', limit: session.turnLimit }, step);
  void future.done
    .catch(() => undefined)
    .then(() => {
      if (waiting()) {
        showBadge(cell, { kind: 'pending' }, step);
      }
    });
}

/** A run of an empty answer cell (JupyterLab sends nothing to the kernel): say so; whether it was one. */
function noteEmpty(
  session: AttemptSession,
  cell: CodeCell,
  step: number
): boolean {
  if (cell.model.sharedModel.getSource().trim()) {
    return false;
  }
  session.graded.forget(cell);
  showBadge(cell, { kind: 'note', message: emptyCellText() }, step);
  return true;
}

/** A run of an answer cell, as reported. */
interface IScheduledRun {
  future: NonNullable<CodeCell['outputArea']['future']>;
  msgId: string;
  kernelId: string;
  source: string;
}

/** The run of `cell` just scheduled, if it is one to report: new, with code, on a known kernel. */
function scheduledRun(
  session: AttemptSession,
  cell: CodeCell
): IScheduledRun | null {
  const future = cell.outputArea.future;
  const msgId = future?.msg.header.msg_id;
  const kernelId = session.kernelId;
  const source = cell.model.sharedModel.getSource();
  if (!msgId || !kernelId || !source.trim() || reported.get(cell) === msgId) {
    return null;
  }
  return { future, msgId, kernelId, source };
}

/** A graded run's badge: its grade, the grade rule and the step's criterion. */
function showRun(
  session: AttemptSession,
  cell: CodeCell,
  result: ITurnResult,
  source: string
): void {
  const view = result.attempt;
  const step = view.steps.find(s => s.index === result.step);
  showBadge(
    cell,
    {
      kind: 'grade',
      grade: result.grade,
      rule: ruleLine(view.settings, step, result.turn),
      criterion: step?.criterion,
      passes: step?.passes,
      turn: result.turn,
      ...(result.stopped ? { stoppedAt: session.turnLimit } : {})
    },
    result.step
  );
  session.graded.set(cell, result.step, source);
}

/**
 * Run a cell on the notebook's kernel and wait for it to finish; resolve to
 * the execute request's msg_id (undefined when nothing ran). `safe`: its
 * outputs keep only what runs nothing in a browser (safe.ts).
 */
export async function runCell(
  cell: CodeCell,
  sessionContext: ISessionContext,
  safe = false
): Promise<string | undefined> {
  const running = CodeCell.execute(cell, sessionContext);
  // OutputArea.execute assigns the future synchronously inside execute()
  const future = cell.outputArea.future;
  if (safe) {
    runSafely(future);
  }
  const msgId = future?.msg.header.msg_id;
  try {
    await running;
  } catch (err) {
    console.warn('cibench-lab: a cell failed to run', err);
  }
  return msgId;
}

/**
 * Run an attached player's code in the step's answer cell and report the run
 * as the step's turn (the server grades it from its own kernel capture). A
 * model's or a replay's code is not the person's: its outputs are kept safe
 * (safe.ts), so a prompt-injected script never runs in the watcher's page.
 */
export async function runTurn(
  session: AttemptSession,
  cell: CodeCell,
  api: CIBenchApi
): Promise<ITurnResult | undefined> {
  const running = CodeCell.execute(cell, session.sessionContext);
  runSafely(cell.outputArea.future); // assigned synchronously inside execute()
  const result = await reportTurn(session, cell, api);
  await running.catch(() => undefined);
  return result;
}

/**
 * Oracle mode: run a settled step's reference cell (an imported task's code:
 * its outputs kept safe) and tell the server; its next action.
 */
async function runOracle(
  session: AttemptSession,
  cell: CodeCell
): Promise<INextAction | undefined> {
  const msgId = await runCell(cell, session.sessionContext, true);
  const step = cellTag(cell)?.step;
  if (msgId && step !== undefined) {
    return session.reportOracle(step, msgId);
  }
  return undefined;
}

/**
 * After a step settled: do what the server's answer said next — `reference`
 * (or the final `show`): run the settled step's reference as a read-only
 * oracle cell (once) — then
 * open the step the attempt is at, and save. Resolves to the action after it.
 */
export async function applyNext(
  session: AttemptSession,
  next: INextAction
): Promise<INextAction> {
  let after = next;
  const ref =
    next.do === 'reference' && next.step !== undefined
      ? { step: next.step, code: next.code ?? '' }
      : next.show;
  if (ref) {
    after = session.view.next;
    const nb = session.notebook;
    if (!findCell(nb, 'oracle', ref.step)) {
      const cell = insertOracle(nb, ref.step, ref.code);
      after = (await runOracle(session, cell)) ?? after;
    }
  }
  revealReferences(session.notebook, session.view);
  noteUnrunSettled(session);
  openCurrentStep(session, true);
  markAnswers(session.notebook, session.view); // the new step's cell is the graded one
  await session.panel.context.save();
  return after;
}

/** Settled steps that never ran: "gave up · no run", else no badge (a cap's note goes). */
function noteUnrunSettled(session: AttemptSession): void {
  for (const step of session.view.steps) {
    const cell = findCell(session.notebook, 'answer', step.index);
    if (!cell || !step.settled || step.turns > 0) {
      continue;
    }
    const note = unrunNote(session.view, step);
    if (note) {
      showBadge(cell, { kind: 'note', message: note }, step.index);
    } else {
      clearBadge(cell);
    }
  }
}

/**
 * Make sure the open step has its cells and put the cursor in its answer
 * (`focus`: its editor gets the keyboard focus when the notebook shows); a
 * turn cap's runs left are noted on a cell that has no badge yet.
 */
export function openCurrentStep(session: AttemptSession, focus = false): void {
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
  activate(nb, answer, focus);
  const note = unrunNote(view, step);
  if (note && !badgeOf(answer)) {
    showBadge(answer, { kind: 'note', message: note }, step.index);
  }
}

/**
 * Badge the answer cells of a reopened notebook: the kept grade where the
 * cell still holds the kept turn's code, else "changed since graded"; an
 * empty answer cell of a step with a kept turn gets that turn's code back.
 */
export async function restoreBadges(session: AttemptSession): Promise<void> {
  const view = session.view;
  let turns: ITurnDetail[] = [];
  if (view.steps.some(s => s.turns > 0)) {
    try {
      turns = await session.api.turns(view.id);
    } catch (err) {
      console.warn('cibench-lab: cannot read the turns to restore badges', err);
    }
  }
  let putBack = false;
  for (const step of view.steps) {
    const cell = findCell(session.notebook, 'answer', step.index);
    if (!cell || badgeOf(cell)) {
      continue; // a run since the notebook opened has its own badge
    }
    let source = cell.model.sharedModel.getSource();
    const code = putBackCode(step, turns, source);
    if (code !== null) {
      cell.model.sharedModel.setSource(code);
      source = code;
      putBack = true;
    }
    let state = restoredBadge(view, step, turns, source);
    if (state && code !== null) {
      state = putBackBadge(state);
    }
    if (state) {
      showBadge(cell, state, step.index);
    }
    if (state?.kind === 'grade') {
      session.graded.set(cell, step.index, source);
    }
  }
  if (putBack) {
    await session.save();
  }
}

/** The cells of a notebook as JSON text (to tell cell edits from metadata ones). */
function cellsText(session: AttemptSession): string {
  const cells = session.panel.model?.sharedModel.cells ?? [];
  return JSON.stringify(cells.map(c => c.toJSON()));
}

/**
 * Bring a just-attached notebook in line with its attempt: add missing step
 * cells, restore badges, put the cursor in the open step's answer, bind the
 * kernel (once `started`: the kernel held until the attempt was known to be
 * open, closed.ts), and run oracle cells the kernel has not seen. Saved when it changed
 * — also when only the kernel's metadata (its `language_info`) did, which
 * JupyterLab writes when the kernel connects: an attempt notebook is not
 * dirty from the moment it opens.
 */
export async function syncNotebook(
  session: AttemptSession,
  started: Promise<void> = Promise.resolve()
): Promise<void> {
  const before = cellsText(session);
  const fixed = reconcile(session.notebook, session.view);
  markAnswers(session.notebook, session.view);
  void restoreBadges(session);
  openCurrentStep(session, true);
  const ctx = session.sessionContext;
  await ctx.ready;
  await started.catch(err =>
    console.warn('cibench-lab: the attempt kernel did not start', err)
  );
  const binding = await session.bind();
  if (binding && binding.restored_cells === 0) {
    for (const cell of fixed.oracle) {
      await runOracle(session, cell);
    }
  }
  await ctx.session?.kernel?.info.catch(() => undefined);
  const model = session.panel.model;
  const metadataOnly = !!model?.dirty && cellsText(session) === before;
  if (fixed.changed || metadataOnly) {
    await session.panel.context.save();
  }
}
