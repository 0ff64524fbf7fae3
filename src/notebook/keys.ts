/**
 * Keys in an attempt's notebook (their bindings are in schema/plugin.json):
 * Shift+Enter on the open step's answer cell runs it and stays there — it
 * never moves on into a cell whose runs are not graded (JupyterLab's
 * Shift+Enter would, adding one below the last cell); and a cell-type key
 * (M, Y, R, 1–6 in command mode) on the lab's cells or in a finished
 * attempt's read-only notebook changes nothing and says so once, in a
 * notification (JupyterLab would raise one dialog per read-only cell, or
 * turn a finished attempt's answer cells into markdown, dropping their
 * badges). Elsewhere both do what JupyterLab does.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { Notification } from '@jupyterlab/apputils';
import { INotebookTracker, Notebook } from '@jupyterlab/notebook';
import { ReadonlyPartialJSONObject } from '@lumino/coreutils';

import { cellTag } from './cells';
import { trans } from '../i18n';

export namespace KeyCommandIDs {
  export const runAnswer = 'cibench-lab:run-answer';
  export const changeCellType = 'cibench-lab:change-cell-type';
}

/** The class of an attempt's notebook (what the cell-type keys' bindings select). */
export const ATTEMPT_NOTEBOOK_CLASS = 'jp-CIBench-attemptNotebook';
/** The class of an attempt notebook's tab (style/notebook.css: its whole name shows). */
export const ATTEMPT_TAB_CLASS = 'jp-CIBench-attemptTab';

/** What the cell-type keys need to know of a notebook's attempt. */
export interface IKeyAttempt {
  /** The attempt is finished or quit: its notebook is a read-only record. */
  closed: boolean;
}

/** Why a cell-type change is refused in this notebook (null: it is not). */
export function typeChangeRefusal(
  nb: Notebook,
  attempt: IKeyAttempt | undefined
): string | null {
  if (!attempt) {
    return null;
  }
  if (attempt.closed) {
    return trans.__('This attempt is finished: its cells keep their type.');
  }
  const lab = nb.widgets.some(c => nb.isSelectedOrActive(c) && cellTag(c));
  return lab
    ? trans.__(
        "The lab's cells (steps, instructions, references) keep their type."
      )
    : null;
}

/** JupyterLab's command for a cell-type key's arguments. */
export function typeCommand(args: ReadonlyPartialJSONObject): string {
  const heading = Number(args.heading);
  return heading >= 1 && heading <= 6
    ? `notebook:change-cell-to-heading-${heading}`
    : `notebook:change-cell-to-${String(args.type ?? 'code')}`;
}

/** Register the two commands; `attemptOf`: the attempt a notebook plays, if any. */
export function addKeyCommands(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  attemptOf: (nb: Notebook) => IKeyAttempt | undefined
): void {
  app.commands.addCommand(KeyCommandIDs.runAnswer, {
    label: trans.__("CIBench: Run the Step's Answer Cell and Stay"),
    describedBy: { args: { type: 'object', properties: {} } },
    execute: async () => {
      const nb = tracker.currentWidget?.content;
      const editing = nb?.mode === 'edit';
      const run = app.commands.execute('notebook:run-cell');
      if (nb && editing) {
        nb.mode = 'edit'; // the run left edit mode: the keyboard stays in the cell
      }
      await run;
    }
  });
  app.commands.addCommand(KeyCommandIDs.changeCellType, {
    label: trans.__('CIBench: Change Cell Type (not the lab’s cells)'),
    describedBy: {
      args: {
        type: 'object',
        properties: {
          type: { type: 'string', description: 'code, markdown or raw' },
          heading: { type: 'number', description: 'A heading level, 1 to 6' }
        }
      }
    },
    execute: args => {
      const nb = tracker.currentWidget?.content;
      const refusal = nb ? typeChangeRefusal(nb, attemptOf(nb)) : null;
      if (!refusal) {
        return app.commands.execute(typeCommand(args));
      }
      Notification.info(refusal, { autoClose: 5000 });
      return undefined;
    }
  });
}
