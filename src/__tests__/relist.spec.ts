/// <reference types="node" />
import { readFileSync } from 'fs';
import * as path from 'path';

import { Widget } from '@lumino/widgets';

import { ITaskSummary } from '../api';
import { CIBenchModel } from '../model';
import { CIBenchPanel } from '../panel/panel';
import { RELIST_DEFAULT, TaskRelister } from '../panel/relist';
import { DETAIL, fakeActions, TASKS } from './fixtures';

const NEW_TASK: ITaskSummary = {
  ...TASKS[0],
  id: 'classroom/pandas/bills_week',
  title: 'Bills of the week'
};

/** The real panel, attached and shown, and a server whose task list the test changes. */
function setup(interval = 10) {
  const model = new CIBenchModel();
  const panel = new CIBenchPanel(model, fakeActions());
  Widget.attach(panel, document.body);
  const server = { tasks: TASKS.slice(0, 2), reads: 0 };
  const relister = new TaskRelister({
    panel,
    model,
    tasks: async () => {
      server.reads += 1;
      return server.tasks.slice();
    },
    interval: () => interval
  });
  model.tasks = server.tasks;
  const rows = () =>
    Array.from(panel.node.querySelectorAll('button.jp-CIBench-task'), b =>
      b.getAttribute('data-task-id')
    );
  return { model, panel, server, relister, rows };
}

/** Let the timers due within `seconds` and the reads they start run. */
async function pass(seconds: number): Promise<void> {
  await jest.advanceTimersByTimeAsync(seconds * 1000);
}

describe('the task list, read again on its own', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    jest.useRealTimers();
    document.body.innerHTML = '';
  });

  it('shows a new task within one interval while the panel is shown', async () => {
    const { server, rows, relister, panel } = setup();
    server.tasks = [...server.tasks, NEW_TASK];
    await pass(9);
    expect(rows()).not.toContain(NEW_TASK.id);
    await pass(1);
    expect(rows()).toContain(NEW_TASK.id);
    relister.dispose();
    panel.dispose();
  });

  it('keeps the filter text, the selection and the focus', async () => {
    const { model, server, rows, panel, relister } = setup();
    const filter = panel.node.querySelector<HTMLInputElement>(
      'input.jp-CIBench-filter'
    )!;
    filter.value = 'e';
    filter.dispatchEvent(new Event('input'));
    model.selected = DETAIL; // the wine task, selected
    const selected = () =>
      panel.node.querySelector('.jp-CIBench-task-selected');
    const wine = `button[data-task-id="${DETAIL.id}"]`;
    panel.node.querySelector<HTMLButtonElement>(wine)!.focus();
    server.tasks = [...server.tasks, NEW_TASK];
    await pass(10);
    expect(rows()).toContain(NEW_TASK.id); // "Bills of the week" matches "e"
    expect(filter.value).toBe('e');
    expect(model.filter).toBe('e');
    expect(selected()?.getAttribute('data-task-id')).toBe(DETAIL.id);
    expect(document.activeElement).toBe(panel.node.querySelector(wine));
    relister.dispose();
    panel.dispose();
  });

  it('takes no focus from elsewhere and redraws nothing when nothing changed', async () => {
    const { server, panel, relister } = setup();
    const elsewhere = document.createElement('input');
    document.body.append(elsewhere);
    elsewhere.focus();
    const list = panel.node.querySelector('.jp-CIBench-tasklist')!;
    const first = list.firstElementChild;
    await pass(10);
    expect(server.reads).toBe(1);
    expect(list.firstElementChild).toBe(first); // the same rows: not redrawn
    server.tasks = [...server.tasks, NEW_TASK];
    await pass(10);
    expect(list.children).toHaveLength(3);
    expect(document.activeElement).toBe(elsewhere);
    relister.dispose();
    panel.dispose();
  });

  it('reads nothing while hidden, and at once when shown again', async () => {
    const { server, rows, panel, relister } = setup();
    panel.hide();
    server.tasks = [...server.tasks, NEW_TASK];
    await pass(30);
    expect(server.reads).toBe(0);
    panel.show();
    await pass(0);
    expect(server.reads).toBe(1);
    expect(rows()).toContain(NEW_TASK.id);
    relister.dispose();
    panel.dispose();
  });

  it('reads when the window regains the focus, even with the timer off', async () => {
    const { server, rows, panel, relister } = setup(0);
    server.tasks = [...server.tasks, NEW_TASK];
    await pass(60);
    expect(server.reads).toBe(0);
    window.dispatchEvent(new Event('focus'));
    await pass(0);
    expect(rows()).toContain(NEW_TASK.id);
    relister.dispose();
    window.dispatchEvent(new Event('focus'));
    await pass(60);
    expect(server.reads).toBe(1); // disposed: no more reads
    panel.dispose();
  });

  it('is a lab setting, documented', () => {
    const root = path.join(__dirname, '..', '..');
    const schema = JSON.parse(
      readFileSync(path.join(root, 'schema', 'plugin.json'), 'utf-8')
    );
    const setting = schema.properties.taskListPoll;
    expect([setting.type, setting.default, setting.minimum]).toEqual([
      'integer',
      RELIST_DEFAULT,
      0
    ]);
    // the lab settings' reference page is generated from the schema (docs/reference/lab-settings.md)
    expect(String(setting.description ?? '')).toMatch(/\S/);
    const page = readFileSync(
      path.join(root, 'docs', 'operate', 'configuration.md'),
      'utf-8'
    );
    expect(page).toContain('`taskListPoll`');
  });
});
