/**
 * What the panel shows of a Qwen Code Interpreter Benchmark task (the task
 * summary's `benchmark` is `qwen`): one step, no oracle mode, its family in
 * words instead of CIBench's step kinds, and its `cibench` profile named for
 * the rules it holds there (the original's: `qwen`).
 */
import { ITaskSummary, Mode } from '../api';

type Benchmarked = Pick<ITaskSummary, 'benchmark'> | null | undefined;

/** Whether the task is one of Qwen's benchmark. */
export function isQwen(task: Benchmarked): boolean {
  return task?.benchmark === 'qwen';
}

/** The mode a Start sends: a Qwen task is played end-to-end only. */
export function startMode(task: Benchmarked, mode: Mode): Mode {
  return isQwen(task) ? 'e2e' : mode;
}

const FAMILIES: { [family: string]: string } = {
  'qwen-vis': 'visualization',
  'qwen-math': 'math',
  'qwen-general': 'general'
};

/** A Qwen task's family in words ("visualization"; null: not a Qwen task). */
export function qwenFamily(
  task: Pick<ITaskSummary, 'libraries'> | null | undefined
): string | null {
  return task?.libraries.map(l => FAMILIES[l]).find(Boolean) ?? null;
}

/** "Qwen Code Interpreter Benchmark · one step · visualization". */
export function qwenLine(task: Pick<ITaskSummary, 'libraries'>): string {
  const family = qwenFamily(task);
  const parts = ['Qwen Code Interpreter Benchmark', 'one step'];
  return (family ? [...parts, family] : parts).join(' · ');
}

/** A profile's name as the panel shows it: on a Qwen task `cibench` holds the original's rules. */
export function profileName(profile: string, qwen: boolean): string {
  return qwen && profile === 'cibench' ? 'qwen' : profile;
}
