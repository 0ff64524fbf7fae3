/**
 * The results tables' columns: each header's text, what it holds in words
 * (the header's tooltip, its `title`) and how its cells read (`num`: figures,
 * right-aligned and kept on one line; `id`: a task id, allowed to wrap at its
 * slashes). Pure data for report.ts.
 */
import { trans } from '../i18n';

/** One column of a results table. */
export interface IColumn {
  text: string;
  title: string;
  kind?: 'num' | 'id';
}

const CI = (): string =>
  trans.__(
    "The people's pass rate (steps passed / steps, x100) with its 95% confidence interval: a percentile bootstrap over participants (2,000 resamples); steps not graded count neither way"
  );
const TIME = (): string =>
  trans.__(
    "The people's working time net of pauses, in seconds: the median [first–third quartile] over the people counted"
  );
const PEOPLE = (): string =>
  trans.__(
    'People counted (each person’s latest finished attempt) and, after +, those who only quit'
  );
const MISMATCH = (): string =>
  trans.__(
    'The conditions this row’s people and a run were played under that differ (shown only with “Show a comparison whose conditions differ”)'
  );

/** The per-step table's columns, a column per run before the difficulty. */
export function stepColumns(runs: string[]): IColumn[] {
  return [
    {
      text: trans.__('Task'),
      title: trans.__('The task id: split/library/name'),
      kind: 'id'
    },
    {
      text: trans.__('Step'),
      title: trans.__('The step’s number in the task, from 1'),
      kind: 'num'
    },
    {
      text: trans.__('Kind'),
      title: trans.__(
        'The step’s kind: what its grade compares (num, text, vis, general)'
      )
    },
    { text: trans.__('People'), title: PEOPLE(), kind: 'num' },
    { text: trans.__('Pass % [95% CI]'), title: CI(), kind: 'num' },
    { text: trans.__('Time'), title: TIME(), kind: 'num' },
    ...runs.map(run => ({
      text: run,
      title: trans.__(
        'Run %1’s score at the step: passed or missed, with its score x100 (“not graded”: its grade measured nothing; “not played”: the run did not play it)',
        run
      ),
      kind: 'num' as const
    })),
    {
      text: trans.__('Difficulty (rank)'),
      title: trans.__(
        'The step’s difficulty estimate: a Rasch (one-parameter) fit over people and models together, larger is harder; its rank, 1 = hardest (— : nobody played it)'
      ),
      kind: 'num'
    },
    { text: trans.__('Mismatch'), title: MISMATCH() }
  ];
}

/** The per-library table's columns, a column per run before the mismatch. */
export function libraryColumns(runs: string[]): IColumn[] {
  return [
    {
      text: trans.__('Library'),
      title: trans.__(
        'The library (split/library where two splits hold one of that name)'
      ),
      kind: 'id'
    },
    {
      text: trans.__('Steps'),
      title: trans.__('Steps of the library’s tasks in the study'),
      kind: 'num'
    },
    { text: trans.__('People'), title: PEOPLE(), kind: 'num' },
    { text: trans.__('Pass % [95% CI]'), title: CI(), kind: 'num' },
    {
      text: trans.__('Time'),
      title: trans.__(
        '%1; a person’s time is the sum over the library’s tasks they played',
        TIME()
      ),
      kind: 'num'
    },
    ...runs.map(run => ({
      text: trans.__('%1 pass %', run),
      title: trans.__(
        'Run %1’s score: its pass rate x100 over the library’s steps it played (passed/steps)',
        run
      ),
      kind: 'num' as const
    })),
    { text: trans.__('Mismatch'), title: MISMATCH() }
  ];
}
