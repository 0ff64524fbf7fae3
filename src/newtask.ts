/**
 * "Make a CIBench Task from This Notebook" (docs/tasks-new.md): the current
 * notebook, saved first, is run by the server (`POST tasks` with `check`);
 * its steps' kinds are shown for confirmation, then the task is made. What
 * the server refuses is shown one line per cell. Only an instructor or a
 * researcher may (`POST tasks` needs either role): the command is not offered
 * to a participant.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import {
  Dialog,
  ICommandPalette,
  Notification,
  showDialog,
  showErrorMessage
} from '@jupyterlab/apputils';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { CIBenchApi, INewTaskResult, INewTaskStep, Role } from './api';
import { CATEGORY } from './commands';
import { h } from './panel/dom';
import { trans } from './i18n';

export const NEW_TASK = 'cibench-lab:new-task';
export const NEW_TASK_LABEL = 'Make a CIBench Task from This Notebook';

/** The roles `POST tasks` accepts (its `x-role` in docs/openapi.json). */
export const MAKER_ROLES: readonly Role[] = ['instructor', 'researcher'];

/** Whether a user with `roles` may make a task from a notebook. */
export function mayMakeTasks(roles: readonly Role[]): boolean {
  return roles.some(role => MAKER_ROLES.includes(role));
}

/** One step as the confirmation table shows it. */
export function stepCells(step: INewTaskStep): string[] {
  const how = step.tagged
    ? trans.__('tagged')
    : step.kind
      ? trans.__('inferred')
      : '';
  let answer =
    step.answer ||
    (step.seconds === null ? trans.__('not run') : trans.__('refused'));
  if (step.plot_elements.length) {
    answer += trans.__(' (graded: %1)', step.plot_elements.join(', '));
  }
  return [
    String(step.step + 1),
    String(step.cell),
    step.kind ?? '?',
    how,
    answer
  ];
}

function headers(): string[] {
  return [
    trans.__('Step'),
    trans.__('Cell'),
    trans.__('Kind'),
    trans.__('How'),
    trans.__('Answer')
  ];
}

/** The steps, their kinds and answers, as a table with a caption. */
export function stepsTable(result: INewTaskResult): HTMLTableElement {
  return h(
    'table',
    { className: 'jp-CIBench-newTaskSteps' },
    h('caption', {
      text: trans._n(
        '%2: %3 (%1 step)',
        '%2: %3 (%1 steps)',
        result.steps.length,
        result.task_id,
        result.title
      )
    }),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...headers().map(t => h('th', { text: t, attrs: { scope: 'col' } }))
      )
    ),
    h(
      'tbody',
      {},
      ...result.steps.map(step =>
        h('tr', {}, ...stepCells(step).map(text => h('td', { text })))
      )
    )
  );
}

/** The whole answer: the table, then each refusal and warning on a line. */
export function resultNode(result: INewTaskResult): HTMLElement {
  const lines = (items: string[], className: string) =>
    items.length
      ? h('ul', { className }, ...items.map(text => h('li', { text })))
      : null;
  return h(
    'div',
    { className: 'jp-CIBench-newTask' },
    result.steps.length ? stepsTable(result) : null,
    lines(
      result.refusals.map(r => r.message),
      'jp-CIBench-newTaskRefusals'
    ),
    lines(
      result.warnings.map(w => trans.__('Warning: %1', w)),
      'jp-CIBench-newTaskWarnings'
    )
  );
}

/** What the command shows after the server answered (a pure choice, tested). */
export function dialogTitle(result: INewTaskResult, check: boolean): string {
  if (result.refusals.length) {
    return trans.__('This notebook cannot become a task yet');
  }
  if (check) {
    return trans.__('Make the task %1?', result.task_id);
  }
  return result.updated
    ? trans.__('Updated the task %1', result.task_id)
    : trans.__('Made the task %1', result.task_id);
}

function body(result: INewTaskResult, extra?: string): Widget {
  const node = resultNode(result);
  if (extra) {
    node.appendChild(h('p', { text: extra }));
  }
  return new Widget({ node });
}

/** Run `work` with a notification saying the solution is running. */
async function running<T>(work: Promise<T>): Promise<T> {
  const id = Notification.emit(
    trans.__('Running the solution in the task kernel…'),
    'in-progress',
    { autoClose: false }
  );
  try {
    return await work;
  } finally {
    Notification.dismiss(id);
  }
}

/** Show the checked steps; true when the teacher confirms them (nothing refused). */
async function confirm(checked: INewTaskResult): Promise<boolean> {
  const refused = checked.refusals.length > 0;
  const choice = await showDialog({
    title: dialogTitle(checked, true),
    body: body(
      checked,
      refused
        ? undefined
        : trans.__('Check each step’s kind, then make the task.')
    ),
    buttons: refused
      ? [Dialog.okButton({ label: trans.__('Close') })]
      : [
          Dialog.cancelButton({ label: trans.__('Cancel') }),
          Dialog.okButton({ label: trans.__('Make the task') })
        ]
  });
  return !refused && choice.button.accept;
}

/** Check the notebook, ask, make it; `onMade` refreshes the task list. */
export async function makeTask(
  api: CIBenchApi,
  panel: NotebookPanel,
  onMade: () => Promise<void>
): Promise<void> {
  const context = panel.context;
  if (context.model.dirty) {
    await context.save();
  }
  const notebook = context.path;
  const checked = await running(api.newTask({ notebook, check: true }));
  if (!(await confirm(checked))) {
    return;
  }
  const made = await running(api.newTask({ notebook }));
  if (made.written) {
    await onMade();
  }
  await showDialog({
    title: dialogTitle(made, false),
    body: body(
      made,
      made.written
        ? trans.__('Written to %1; it is in the task list.', made.path)
        : ''
    ),
    buttons: [Dialog.okButton({ label: trans.__('Close') })]
  });
}

/** Call `then` once `GET me` says the user may make tasks (never otherwise). */
function whenMaker(api: CIBenchApi, then: () => void): void {
  void api
    .me()
    .then(me => (mayMakeTasks(me.roles) ? then() : undefined))
    .catch(() => undefined); // unknown roles: not offered (the server refuses anyway)
}

/**
 * The command, in the palette and the notebook's context menu, for an
 * instructor or a researcher only (hidden until `GET me` says so): enabled
 * for the current notebook while no other make is running.
 */
export function addNewTaskCommand(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  api: CIBenchApi,
  palette: ICommandPalette | null,
  onMade: () => Promise<void>
): void {
  let busy = false;
  let maker = false;
  app.commands.addCommand(NEW_TASK, {
    label: trans.__('Make a CIBench Task from This Notebook'),
    caption: trans.__(
      'Run this solution notebook (an instruction cell, then its code cell, per step) and make it a task (instructors and researchers)'
    ),
    isVisible: () => maker,
    isEnabled: () => maker && !busy && tracker.currentWidget !== null,
    describedBy: { args: { type: 'object', properties: {} } },
    execute: async () => {
      const panel = tracker.currentWidget;
      if (!panel || busy) {
        return;
      }
      busy = true;
      app.commands.notifyCommandChanged(NEW_TASK);
      try {
        await makeTask(api, panel, onMade).catch(failed);
      } finally {
        busy = false;
        app.commands.notifyCommandChanged(NEW_TASK);
      }
    }
  });
  whenMaker(api, () => {
    maker = true;
    app.commands.notifyCommandChanged(NEW_TASK);
  });
  addToMenus(app, palette);
}

/** Why a make failed, in a dialog titled as the command. */
async function failed(err: unknown): Promise<void> {
  await showErrorMessage(
    trans.__('Make a CIBench Task from This Notebook'),
    (err as Error).message
  );
}

/** The command in the palette and the notebook's context menu. */
function addToMenus(app: JupyterFrontEnd, palette: ICommandPalette | null) {
  palette?.addItem({ command: NEW_TASK, category: CATEGORY, rank: 20 });
  app.contextMenu.addItem({
    command: NEW_TASK,
    selector: '.jp-Notebook',
    rank: 100
  });
}
