/**
 * What the task list shows of each task: its facets (split, library,
 * language), a title that tells same-named tasks apart, and the mark of the
 * caller's attempts at it.
 */
import { IAttemptSummary, ITaskSummary } from '../api';
import { ITaskFacets } from '../model';
import { qwenMeta } from './qwen';
import { languageLabel, passedCount, splitLabel } from './words';
import { trans } from '../i18n';

export type FacetKey = keyof ITaskFacets;

/** The facets in the order the panel shows them, with their labels. */
export function facetList(): [FacetKey, string][] {
  return [
    ['split', trans.__('Split')],
    ['lib', trans.__('Library')],
    ['language', trans.__('Language')]
  ];
}

/** A facet value in words. */
export function facetLabel(key: FacetKey, value: string): string {
  if (key === 'split') {
    return splitLabel(value);
  }
  return key === 'language' ? languageLabel(value) : value;
}

/** The values of one facet among `tasks`, sorted, with how many tasks have each. */
export function facetOptions(
  tasks: readonly ITaskSummary[],
  key: FacetKey
): [string, number][] {
  const counts = new Map<string, number>();
  for (const task of tasks) {
    const value = task[key];
    if (value) {
      counts.set(value, (counts.get(value) ?? 0) + 1);
    }
  }
  return [...counts].sort((a, b) => a[0].localeCompare(b[0]));
}

/** "12 of 101 tasks". */
export function matchCount(shown: number, total: number): string {
  return shown === total
    ? trans._n('%1 task', '%1 tasks', total)
    : trans._n('%2 of %1 task', '%2 of %1 tasks', total, shown);
}

/**
 * A task's title, with its split and language when another task has the
 * same title (a template and a generation task, an English and a Chinese one).
 */
export function taskTitle(
  task: Pick<ITaskSummary, 'id' | 'title' | 'split' | 'language'>,
  tasks: readonly ITaskSummary[]
): string {
  const twins = tasks.filter(t => t.title === task.title && t.id !== task.id);
  if (!twins.length) {
    return task.title;
  }
  const parts = [splitLabel(task.split)];
  if (twins.some(t => t.language !== task.language)) {
    parts.push(languageLabel(task.language));
  }
  return `${task.title} (${parts.join(', ')})`;
}

/**
 * One line describing a task: libraries · language · split · steps; a Qwen
 * task's family, where it came from and its language.
 */
export function taskMeta(task: ITaskSummary): string {
  const qwen = qwenMeta(task);
  if (qwen) {
    return qwen;
  }
  const libs = task.libraries?.length ? task.libraries.join(', ') : task.lib;
  const steps = trans._n('%1 step', '%1 steps', task.steps);
  return [libs, languageLabel(task.language), splitLabel(task.split), steps]
    .filter(Boolean)
    .join(' · ');
}

/**
 * The mark of the caller's attempts at a task, or null: the latest one's date
 * and how many steps passed ("attempted 2024-01-05 · 9/13 passed"), or where
 * an open one is ("in progress: step 3 of 13").
 */
export function attemptMark(
  taskId: string,
  attempts: readonly IAttemptSummary[]
): string | null {
  const mine = attempts
    .filter(a => a.task_id === taskId)
    .sort((a, b) => b.created_at.localeCompare(a.created_at));
  if (!mine.length) {
    return null;
  }
  const latest = mine[0];
  const more = mine.length > 1 ? trans.__(' (%1 attempts)', mine.length) : '';
  if (latest.status === 'open') {
    const at = latest.current_step + 1;
    return trans.__('in progress: step %1 of %2%3', at, latest.n_steps, more);
  }
  const date = latest.created_at.slice(0, 10);
  const passed = passedCount(latest);
  return passed
    ? trans.__('attempted %1 · %2%3', date, passed, more)
    : trans.__('attempted %1%2', date, more);
}

/** The task id's split (its first segment), for rows that do not carry it. */
export function splitOf(taskId: string): string {
  return taskId.split('/')[0] ?? '';
}
