/**
 * Pure wording of the study view: where a participant stands, each plan
 * item, the protocol, the link parameter, and the server's field errors.
 */
import { formatSeconds } from '../panel/words';
import type { IPlanItem, IStudySummary, IStudyView } from './api';
import { trans } from '../i18n';

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
    return trans.__(
      'Model parity: end-to-end, grades shown when a task ends, at most 3 runs a step'
    );
  }
  return trans.__('Practice: grades as you go, your best run of a step kept');
}

/** How many of a plan's tasks ended, and how (a quit task is not counted as finished). */
export type EndedCounts = Pick<IStudySummary, 'finished' | 'quit' | 'n_items'>;

/** "1 of 3 finished, 1 quit" ("2 of 3 finished" when none was quit). */
export function endedText(counts: EndedCounts): string {
  const quit = counts.quit ? trans.__(', %1 quit', counts.quit) : '';
  return trans.__('%1 of %2 finished%3', counts.finished, counts.n_items, quit);
}

/** A study's row in the list: where the participant stands. */
export function stateText(
  row: Pick<IStudySummary, 'state' | 'done'> & EndedCounts
): string {
  const n = row.n_items;
  switch (row.state) {
    case 'consent':
      return trans.__('not started: consent first');
    case 'playing':
      return (
        trans.__('task %1 of %2 in progress', row.done + 1, n) +
        (row.done ? ` · ${endedText(row)}` : '')
      );
    case 'finished':
      return row.quit
        ? trans.__('ended: %1', endedText(row))
        : trans.__('finished: %1 of %1', n);
    default:
      return endedText(row);
  }
}

/** "Task 1 of 3 · in progress" — what is going on now. */
export function progressLine(view: IStudyView): string {
  const n = view.n_items;
  if (view.state === 'consent') {
    return trans._n('%1 task · consent first', '%1 tasks · consent first', n);
  }
  const ended = view.done ? ` · ${endedText(view)}` : '';
  if (view.current !== null) {
    return trans.__(
      'Task %1 of %2 · in progress%3',
      view.current + 1,
      n,
      ended
    );
  }
  if (view.next !== null) {
    return trans.__('Task %1 of %2 · next%3', view.next + 1, n, ended);
  }
  return trans._n('All %1 task ended%2', 'All %1 tasks ended%2', n, ended);
}

/** An item's status in words. */
export function itemStatusText(item: IPlanItem): string {
  const words: { [status: string]: string } = {
    todo: trans.__('to do'),
    open: trans.__('in progress'),
    done: trans.__('done'),
    quit: trans.__('quit')
  };
  const time =
    item.working_seconds === null
      ? ''
      : ` · ${formatSeconds(item.working_seconds)}`;
  return `${words[item.status] ?? item.status}${time}`;
}

/** "Your time: 12m 05s" over the plan's attempts, net of pauses. */
export function timeText(view: IStudyView): string {
  return trans.__('Your time: %1', formatSeconds(view.total_seconds));
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
