/**
 * Pure wording of the study view: where a participant stands, each plan
 * item, the protocol, the link parameter, and the server's field errors.
 */
import { formatSeconds } from '../panel/words';
import type { IPlanItem, IStudySummary, IStudyView } from './api';

/** The lab URL parameter that opens the panel on a study: `…/lab?cibench-study=ID`. */
export const STUDY_PARAM = 'cibench-study';

/** The study id a lab URL's query string names, or null. */
export function studyParam(search: string): string | null {
  const id = new URLSearchParams(search).get(STUDY_PARAM);
  return id && id.trim() ? id.trim() : null;
}

/** The protocol in words (what the participant plays under). */
export function protocolText(protocol: string): string {
  if (protocol === 'model-parity') {
    return 'Model parity: end-to-end, grades shown when a task ends, at most 3 runs a step';
  }
  return 'Practice: grades as you go, your best run of a step kept';
}

/** How many of a plan's tasks ended, and how (a quit task is not counted as finished). */
export type EndedCounts = Pick<IStudySummary, 'finished' | 'quit' | 'n_items'>;

/** "1 of 3 finished, 1 quit" ("2 of 3 finished" when none was quit). */
export function endedText(counts: EndedCounts): string {
  const quit = counts.quit ? `, ${counts.quit} quit` : '';
  return `${counts.finished} of ${counts.n_items} finished${quit}`;
}

/** A study's row in the list: where the participant stands. */
export function stateText(
  row: Pick<IStudySummary, 'state' | 'done'> & EndedCounts
): string {
  const n = row.n_items;
  switch (row.state) {
    case 'consent':
      return 'not started: consent first';
    case 'playing':
      return (
        `task ${row.done + 1} of ${n} in progress` +
        (row.done ? ` · ${endedText(row)}` : '')
      );
    case 'finished':
      return row.quit ? `ended: ${endedText(row)}` : `finished: ${n} of ${n}`;
    default:
      return endedText(row);
  }
}

/** "Task 1 of 3 · in progress" — what is going on now. */
export function progressLine(view: IStudyView): string {
  const n = view.n_items;
  if (view.state === 'consent') {
    return `${n} task${n === 1 ? '' : 's'} · consent first`;
  }
  const ended = view.done ? ` · ${endedText(view)}` : '';
  if (view.current !== null) {
    return `Task ${view.current + 1} of ${n} · in progress${ended}`;
  }
  if (view.next !== null) {
    return `Task ${view.next + 1} of ${n} · next${ended}`;
  }
  return `All ${n} tasks ended${ended}`;
}

/** An item's status in words. */
export function itemStatusText(item: IPlanItem): string {
  const words: { [status: string]: string } = {
    todo: 'to do',
    open: 'in progress',
    done: 'done',
    quit: 'quit'
  };
  const time =
    item.working_seconds === null
      ? ''
      : ` · ${formatSeconds(item.working_seconds)}`;
  return `${words[item.status] ?? item.status}${time}`;
}

/** "Your time: 12m 05s" over the plan's attempts, net of pauses. */
export function timeText(view: IStudyView): string {
  return `Your time: ${formatSeconds(view.total_seconds)}`;
}

/** The consent text's paragraphs (blank lines between them). */
export function paragraphs(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map(p => p.trim())
    .filter(Boolean);
}

/** A server error split by field: `answers.NAME: …` and `code: …` parts, and the rest. */
export interface IFieldErrors {
  fields: { [name: string]: string };
  rest: string;
}

/** The parts of a 400's message that name a form field (`answers.years`, `code`, `accept`). */
export function fieldErrors(message: string): IFieldErrors {
  const fields: { [name: string]: string } = {};
  const rest: string[] = [];
  for (const part of message.split('; ')) {
    const m = /^(answers\.\w+|code|accept): (.*)$/s.exec(part);
    if (m) {
      fields[m[1]] = m[2];
    } else {
      rest.push(part);
    }
  }
  return { fields, rest: rest.join('; ') };
}
