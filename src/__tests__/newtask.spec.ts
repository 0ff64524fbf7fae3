import { JupyterFrontEnd } from '@jupyterlab/application';
import { ICommandPalette, IPaletteItem } from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { CommandRegistry } from '@lumino/commands';

import { CIBenchApi, INewTaskResult, Role } from '../api';
import {
  addNewTaskCommand,
  dialogTitle,
  mayMakeTasks,
  NEW_TASK,
  NEW_TASK_LABEL,
  resultNode,
  stepCells
} from '../newtask';

function result(extra: Partial<INewTaskResult> = {}): INewTaskResult {
  const step = {
    modules: ['pandas'],
    plot_elements: [],
    seconds: 0.1,
    tagged: false
  };
  return {
    task_id: 'classroom/pandas/bills_week',
    path: '/data/cibench_lab/tasks/classroom/pandas/bills_week.ipynb',
    lib: 'pandas',
    language: 'en',
    title: 'Bills by day',
    steps: [
      { ...step, step: 0, cell: 3, kind: 'exec', answer: 'nothing' },
      {
        ...step,
        step: 1,
        cell: 5,
        kind: 'text',
        tagged: true,
        answer: "'Sun'"
      },
      {
        ...step,
        step: 2,
        cell: 7,
        kind: 'vis',
        answer: 'a figure',
        plot_elements: ['title', 'chart_type']
      },
      { ...step, step: 3, cell: 9, kind: 'num', answer: '', tagged: true },
      { ...step, step: 4, cell: 11, kind: null, answer: '', seconds: null }
    ],
    refusals: [],
    warnings: [],
    written: false,
    updated: false,
    data_files: ['data/bills.csv'],
    ...extra
  };
}

describe('Make a CIBench Task from This Notebook', () => {
  it('shows each step with its cell, kind, how it was known and its answer', () => {
    const steps = result().steps;
    expect(steps.map(stepCells)).toEqual([
      ['1', '3', 'exec', 'inferred', 'nothing'],
      ['2', '5', 'text', 'tagged', "'Sun'"],
      ['3', '7', 'vis', 'inferred', 'a figure (graded: title, chart_type)'],
      ['4', '9', 'num', 'tagged', 'refused'],
      ['5', '11', '?', '', 'not run']
    ]);
  });

  it('puts the steps in a captioned table and each refusal on a line of its own', () => {
    const refusals = [
      { cell: 9, message: "cell 9: step 4 raises KeyError: 'tipp'" },
      { cell: null, message: 'the kernel stopped before the last step' }
    ];
    const node = resultNode(result({ refusals, warnings: ['slow'] }));
    const headers = Array.from(node.querySelectorAll('th'));
    expect(headers.map(th => th.textContent)).toEqual([
      'Step',
      'Cell',
      'Kind',
      'How',
      'Answer'
    ]);
    expect(headers.every(th => th.getAttribute('scope') === 'col')).toBe(true);
    expect(node.querySelector('caption')?.textContent).toBe(
      'classroom/pandas/bills_week: Bills by day (5 steps)'
    );
    const lines = Array.from(
      node.querySelectorAll('.jp-CIBench-newTaskRefusals li')
    ).map(li => li.textContent);
    expect(lines).toEqual(refusals.map(r => r.message));
    expect(
      node.querySelector('.jp-CIBench-newTaskWarnings li')?.textContent
    ).toBe('Warning: slow');
  });

  it('titles the dialog by what the server answered', () => {
    const refused = result({ refusals: [{ cell: 3, message: 'cell 3: x' }] });
    expect(dialogTitle(refused, true)).toBe(
      'This notebook cannot become a task yet'
    );
    expect(dialogTitle(result(), true)).toBe(
      'Make the task classroom/pandas/bills_week?'
    );
    expect(dialogTitle(result({ written: true }), false)).toBe(
      'Made the task classroom/pandas/bills_week'
    );
    expect(dialogTitle(result({ written: true, updated: true }), false)).toBe(
      'Updated the task classroom/pandas/bills_week'
    );
  });

  /** The command added for a user with `roles` (a stand-in server answering `GET me`). */
  async function added(roles: Role[]) {
    const commands = new CommandRegistry();
    const menu: { command: string; selector: string }[] = [];
    const app = {
      commands,
      contextMenu: { addItem: (item: never) => menu.push(item) }
    } as unknown as JupyterFrontEnd;
    const tracker = { currentWidget: null } as { currentWidget: unknown };
    const items: IPaletteItem[] = [];
    const palette = {
      addItem: (item: IPaletteItem) => items.push(item)
    } as unknown as ICommandPalette;
    const api = {
      me: async () => ({ name: 'teach', roles, classes: [] })
    } as unknown as CIBenchApi;
    addNewTaskCommand(
      app,
      tracker as unknown as INotebookTracker,
      api,
      palette,
      async () => undefined
    );
    await new Promise(resolve => setTimeout(resolve, 0)); // GET me answered
    return { commands, menu, items, tracker };
  }

  it('is a palette and notebook context-menu command, enabled on a notebook', async () => {
    const { commands, menu, items, tracker } = await added([
      'participant',
      'instructor'
    ]);
    expect(commands.label(NEW_TASK)).toBe(NEW_TASK_LABEL);
    expect(items).toEqual([
      { command: NEW_TASK, category: 'CIBench', rank: 20 }
    ]);
    expect(menu.map(m => [m.command, m.selector])).toEqual([
      [NEW_TASK, '.jp-Notebook']
    ]);
    expect(commands.isVisible(NEW_TASK)).toBe(true);
    expect(commands.isEnabled(NEW_TASK)).toBe(false);
    tracker.currentWidget = {};
    expect(commands.isEnabled(NEW_TASK)).toBe(true);
  });

  it('is offered to an instructor or a researcher, never to a participant only', async () => {
    expect(mayMakeTasks(['participant', 'researcher'])).toBe(true);
    expect(mayMakeTasks(['participant'])).toBe(false);
    const { commands, tracker } = await added(['participant']);
    tracker.currentWidget = {};
    expect(commands.isVisible(NEW_TASK)).toBe(false);
    expect(commands.isEnabled(NEW_TASK)).toBe(false);
    const researcher = await added(['participant', 'researcher']);
    researcher.tracker.currentWidget = {};
    expect(researcher.commands.isVisible(NEW_TASK)).toBe(true);
    expect(researcher.commands.isEnabled(NEW_TASK)).toBe(true);
  });
});
