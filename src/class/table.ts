/**
 * The class table: participants × tasks, each cell the member's latest
 * attempt of the task (step n of m, the current step's time, the kept score),
 * filtered by task and status; a cell is a button that opens the attempt.
 * Every participant has a row from the start, before any attempt.
 */
import { h } from '../panel/dom';
import { DASH, formatSeconds } from '../panel/words';
import type { IClassAttempt, IClassProgress } from './api';
import { trans } from '../i18n';

/** What the table shows: a task (all: null) and a status (all: null). */
export interface IFilters {
  task: string | null;
  status: string | null;
}

/** The statuses a cell can have: an attempt's, or `none` (not started). */
export const STATUSES = ['open', 'done', 'quit', 'none'];

/** An attempt status in words (`none`: not started). */
export function statusWord(status: string): string {
  const words: { [status: string]: string } = {
    open: trans.__('open'),
    done: trans.__('done'),
    quit: trans.__('quit'),
    none: trans.__('not started')
  };
  return words[status] ?? status;
}

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
 * A cell in words: "step 3 of 4 · 1m 05s · 2 of 2 settled passed", "not
 * started". The score is of the steps settled with a grade: a step someone is
 * still on is neither passed nor missed ("none settled yet"), nor is a step
 * not graded (a Qwen visualization step without a judge: "not graded",
 * counted apart).
 */
export function cellText(attempt: IClassAttempt | undefined): string {
  if (!attempt) {
    return trans.__('not started');
  }
  const where =
    attempt.status === 'open'
      ? trans.__('step %1 of %2', attempt.current_step + 1, attempt.n_steps)
      : trans._n(
          '%2 (%1 step)',
          '%2 (%1 steps)',
          attempt.n_steps,
          statusWord(attempt.status)
        );
  const time =
    attempt.status === 'open' ? formatSeconds(attempt.step_seconds) : DASH;
  return `${where} · ${time} · ${scoreText(attempt)}`;
}

/** "2 of 3 settled passed", "none settled yet", "not graded", "… · 1 not graded". */
export function scoreText(attempt: IClassAttempt): string {
  const none = attempt.not_graded;
  if (!attempt.settled) {
    return none ? trans.__('not graded') : trans.__('none settled yet');
  }
  const score = trans.__(
    '%1 of %2 settled passed',
    attempt.passed,
    attempt.settled
  );
  return none ? trans.__('%1 · %2 not graded', score, none) : score;
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
    h('th', { text: trans.__('Participant'), attrs: { scope: 'col' } }),
    ...tasks.map(t =>
      h('th', { text: t.title, attrs: { scope: 'col', title: t.task_id } })
    )
  );
  const rows = shownMembers(progress, filters).map(member =>
    memberRow(
      member,
      tasks.map(t => cells.get(`${member}\t${t.task_id}`)),
      open
    )
  );
  return h(
    'table',
    {
      className: 'jp-CIBench-classTable',
      attrs: { 'aria-label': trans.__('Class %1', progress.name) }
    },
    h('thead', {}, head),
    h('tbody', {}, ...rows)
  );
}

/** The members whose rows the filters keep, in order. */
function shownMembers(progress: IClassProgress, filters: IFilters): string[] {
  const cells = latestCells(progress);
  const tasks = progress.tasks.filter(
    t => filters.task === null || t.task_id === filters.task
  );
  return progress.members.filter(member =>
    keeps(
      tasks.map(t => cells.get(`${member}\t${t.task_id}`)),
      filters.status
    )
  );
}

/**
 * What the table says when its filters leave no participant of a class that
 * has some: which status (and task) matched nobody, and how to see everyone.
 */
export function filterNote(
  progress: IClassProgress,
  filters: IFilters
): HTMLElement | null {
  if (!progress.members.length || shownMembers(progress, filters).length) {
    return null;
  }
  const status = filters.status ? statusWord(filters.status) : '';
  const task = progress.tasks.find(t => t.task_id === filters.task);
  const text = task
    ? trans.__(
        'No participant has a cell that is %1 in %2. Choose Any status to see everyone.',
        status,
        task.title
      )
    : trans.__(
        'No participant has a cell that is %1. Choose Any status to see everyone.',
        status
      );
  return h('p', {
    className: 'jp-CIBench-classNote jp-CIBench-filterNote',
    text,
    attrs: { role: 'status' }
  });
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
    ? trans.__('This class has no participants yet.')
    : !progress.tasks.length
      ? trans.__(
          'No attempts yet: a task gets its column when a participant starts it.'
        )
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
  const more = count > 1 ? trans.__(' (latest of %1)', count) : '';
  return h('button', {
    className: `jp-CIBench-classCell jp-CIBench-classCell-${attempt.status}`,
    text: cellText(attempt) + more,
    attrs: {
      type: 'button',
      'data-attempt': attempt.attempt_id,
      'aria-label': trans.__(
        '%1, %2: %3%4. Open the attempt',
        attempt.participant,
        attempt.title,
        cellText(attempt),
        more
      )
    },
    onClick: () => open(attempt)
  });
}
