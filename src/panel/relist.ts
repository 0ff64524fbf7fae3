/**
 * The panel's task list, read again on its own: a task a teacher made shows
 * in a student's open list without Refresh. The list is read when the panel
 * is shown, when the browser tab becomes visible or the window regains the
 * focus, and every `taskListPoll` seconds (schema/plugin.json) while the
 * panel is shown and the tab visible. A read that changes nothing draws
 * nothing; one that does sets the model's tasks, which the list redraws
 * keeping the filter, the facets, the selection and the focus (tasklist.ts).
 * It never takes the focus, never sets the panel busy, and a failed read
 * says nothing (Refresh says why).
 */
import { IMessageHandler, Message, MessageLoop } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import type { ISettingRegistry } from '@jupyterlab/settingregistry';

import { ITaskSummary } from '../api';
import { CIBenchModel } from '../model';
import { followNumber } from '../settings';

/** Seconds between reads by default (schema/plugin.json: taskListPoll). */
export const RELIST_DEFAULT = 10;
/** How often (s) a timer turned off (`taskListPoll` 0) looks whether it is on again. */
const IDLE_CHECK = 5;

/** What the re-reading needs: the panel, its model, `GET tasks` and the interval (s; 0: off). */
export interface ITaskRelistOptions {
  panel: Widget;
  model: CIBenchModel;
  tasks: () => Promise<readonly ITaskSummary[]>;
  interval: () => number;
}

export class TaskRelister {
  constructor(private options: ITaskRelistOptions) {
    MessageLoop.installMessageHook(options.panel, this.onMessage);
    document.addEventListener('visibilitychange', this.onWake);
    window.addEventListener('focus', this.onWake);
    this.schedule();
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    window.clearTimeout(this.timer);
    MessageLoop.removeMessageHook(this.options.panel, this.onMessage);
    document.removeEventListener('visibilitychange', this.onWake);
    window.removeEventListener('focus', this.onWake);
  }

  /** Read the task list now, if the panel is shown (one read at a time). */
  async relist(): Promise<void> {
    if (this.reading || this.disposed || !this.shown()) {
      return;
    }
    this.reading = true;
    try {
      const tasks = await this.options.tasks();
      const { model } = this.options;
      if (!this.disposed && !sameTasks(tasks, model.tasks)) {
        model.tasks = tasks;
      }
    } catch (err) {
      console.debug('cibench-lab: the task list was not read again', err);
    } finally {
      this.reading = false;
    }
  }

  private shown(): boolean {
    return this.options.panel.isVisible && !document.hidden;
  }

  private schedule(): void {
    window.clearTimeout(this.timer);
    if (this.disposed) {
      return;
    }
    const seconds = this.options.interval();
    const on = seconds > 0;
    this.timer = window.setTimeout(
      () =>
        void (on ? this.relist() : Promise.resolve()).then(() =>
          this.schedule()
        ),
      (on ? seconds : IDLE_CHECK) * 1000
    );
  }

  private onMessage = (_: IMessageHandler, msg: Message): boolean => {
    if (msg.type === 'after-show') {
      void this.relist();
    }
    return true; // the panel handles the message as ever
  };

  private onWake = (): void => {
    void this.relist();
  };

  private disposed = false;
  private reading = false;
  private timer = 0;
}

/** Whether two task lists are the same (order included). */
export function sameTasks(
  a: readonly ITaskSummary[],
  b: readonly ITaskSummary[]
): boolean {
  return a.length === b.length && JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Read the panel's task list again on its own, every `taskListPoll` seconds
 * of the lab's settings (`pluginId`) and whenever the panel shows again.
 */
export function relistTasks(
  panel: Widget,
  model: CIBenchModel,
  tasks: () => Promise<readonly ITaskSummary[]>,
  registry: ISettingRegistry | null,
  pluginId: string
): TaskRelister {
  let seconds = RELIST_DEFAULT;
  followNumber(registry, pluginId, 'taskListPoll', RELIST_DEFAULT, 0, s => {
    seconds = s;
  });
  return new TaskRelister({ panel, model, tasks, interval: () => seconds });
}
