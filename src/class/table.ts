/**
 * The class table: participants × tasks, each cell the member's latest
 * attempt of the task (step n of m, the current step's time, the kept score),
 * filtered by task and status; a cell is a button that opens the attempt.
 * Every participant has a row from the start, before any attempt.
 */
import { h } from '../panel/dom';
import { DASH, formatSeconds } from '../panel/words';
import type { IClassAttempt, IClassProgress } from './api';

/** What the table shows: a task (all: null) and a status (all: null). */
export interface IFilters {
  task: string | null;
  status: string | null;
}

/** The statuses a cell can have: an attempt's, or `none` (not started). */
export const STATUSES = ['open', 'done', 'quit', 'none'];

/** Each member's latest attempt of each task, keyed `member\ttask`, with how many they made. */
export function latestCells(
  progress: IClassProgress
): Map<string, { attempt: IClassAttempt; count: number }> {
  const cells = new Map<string, { attempt: IClassAttempt; count: number }>();
  for (const attempt of progress.attempts) {
    const key = `${attempt.participant}\t${attempt.task_id}`;
    const cell = cells.get(key);
    if (cell) {
      cell.count += 1; // attempts come newest first: the first one stays
    } else {
      cells.set(key, { attempt, count: 1 });
    }
  }
  return cells;
}

/**
 * A cell in words: "step 3 of 4 · 1m 05s · score 50.0", "not started"; the
 * score of the graded steps, "not graded" when none was (a Qwen
 * visualization step without a judge is neither passed nor missed).
 */
export function cellText(attempt: IClassAttempt | undefined): string {
  if (!attempt) {
    return 'not started';
  }
  const where =
    attempt.status === 'open'
      ? `step ${attempt.current_step + 1} of ${attempt.n_steps}`
      : `${attempt.status} (${attempt.n_steps} step${attempt.n_steps === 1 ? '' : 's'})`;
  const time =
    attempt.status === 'open' ? formatSeconds(attempt.step_seconds) : DASH;
  const score =
    attempt.score === null ? 'not graded' : `score ${attempt.score.toFixed(1)}`;
  return `${where} · ${time} · ${score}`;
}

/** The table, `open(attempt)` on a cell's click or Enter. */
export function classTable(
  progress: IClassProgress,
  filters: IFilters,
  open: (attempt: IClassAttempt) => void
): HTMLTableElement {
  const cells = latestCells(progress);
  const tasks = progress.tasks.filter(
    t => filters.task === null || t.task_id === filters.task
  );
  const head = h(
    'tr',
    {},
    h('th', { text: 'Participant', attrs: { scope: 'col' } }),
    ...tasks.map(t =>
      h('th', { text: t.title, attrs: { scope: 'col', title: t.task_id } })
    )
  );
  const rows = progress.members
    .map(member => {
      const shown = tasks.map(t => cells.get(`${member}\t${t.task_id}`));
      return keeps(shown, filters.status)
        ? memberRow(member, shown, open)
        : null;
    })
    .filter((row): row is HTMLTableRowElement => row !== null);
  return h(
    'table',
    {
      className: 'jp-CIBench-classTable',
      attrs: { 'aria-label': `Class ${progress.name}` }
    },
    h('thead', {}, head),
    h('tbody', {}, ...rows)
  );
}

/**
 * Whether a member's row shows under the status filter: always without one;
 * with one, when a cell has that status (with no task column, every member
 * is "not started").
 */
function keeps(shown: (Cell | undefined)[], status: string | null): boolean {
  if (status === null) {
    return true;
  }
  if (!shown.length) {
    return status === 'none';
  }
  return shown.some(c => (c?.attempt.status ?? 'none') === status);
}

/**
 * What the table cannot say itself, or null: that no participant attempted
 * a task yet (the rows list them, with no task column), or that the class has
 * no participant.
 */
export function tableNote(progress: IClassProgress): HTMLElement | null {
  const text = !progress.members.length
    ? 'This class has no participants yet.'
    : !progress.tasks.length
      ? 'No attempts yet: a task gets its column when a participant starts it.'
      : null;
  return text ? h('p', { className: 'jp-CIBench-classNote', text }) : null;
}

type Cell = { attempt: IClassAttempt; count: number };

function memberRow(
  member: string,
  shown: (Cell | undefined)[],
  open: (attempt: IClassAttempt) => void
): HTMLTableRowElement {
  return h(
    'tr',
    { attrs: { 'data-member': member } },
    h('th', { text: member, attrs: { scope: 'row' } }),
    ...shown.map(cell => h('td', {}, cellButton(cell, open)))
  );
}

function cellButton(
  cell: Cell | undefined,
  open: (attempt: IClassAttempt) => void
): HTMLElement {
  if (!cell) {
    return h('span', {
      className: 'jp-CIBench-classCell',
      text: cellText(undefined)
    });
  }
  const { attempt, count } = cell;
  const more = count > 1 ? ` (latest of ${count})` : '';
  return h('button', {
    className: `jp-CIBench-classCell jp-CIBench-classCell-${attempt.status}`,
    text: cellText(attempt) + more,
    attrs: {
      type: 'button',
      'data-attempt': attempt.attempt_id,
      'aria-label': `${attempt.participant}, ${attempt.title}: ${cellText(attempt)}${more}. Open the attempt`
    },
    onClick: () => open(attempt)
  });
}
