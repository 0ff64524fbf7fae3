/**
 * What the panel shows of a Qwen Code Interpreter Benchmark task (the task
 * summary's `benchmark` is `qwen`): one step, no oracle mode, its family in
 * words instead of CIBench's step kinds, its `cibench` profile named for the
 * rules it holds there (the original's: `qwen`) and, from the summary's
 * `benchmark_item`, the question (the title is its start), its files, hard or
 * easy and the runs a person gets — in the list, the intro and the filter.
 */
import { ITaskSummary, Mode } from '../api';
import { languageLabel, runsAllowedText } from './words';
import { trans } from '../i18n';

type Benchmarked = Pick<ITaskSummary, 'benchmark'> | null | undefined;

/** A Qwen task's item as the task list carries it. */
export type QwenItem = NonNullable<ITaskSummary['benchmark_item']>;

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

/** A family's word in the person's language (an unknown family stays). */
function familyWord(family: string): string {
  const words: { [family: string]: string } = {
    visualization: trans.__('visualization'),
    math: trans.__('math'),
    general: trans.__('general')
  };
  return words[family] ?? family;
}

/** A Qwen task's family in words ("visualization"; null: not a Qwen task). */
export function qwenFamily(
  task: Pick<ITaskSummary, 'libraries'> | null | undefined
): string | null {
  return task?.libraries.map(l => FAMILIES[l]).find(Boolean) ?? null;
}

/** "Qwen Code Interpreter Benchmark · one step · visualization". */
export function qwenLine(task: Pick<ITaskSummary, 'libraries'>): string {
  const family = qwenFamily(task);
  const parts = [
    trans.__('Qwen Code Interpreter Benchmark'),
    trans.__('one step')
  ];
  return (family ? [...parts, familyWord(family)] : parts).join(' · ');
}

/** A profile's name as the panel shows it: on a Qwen task `cibench` holds the original's rules. */
export function profileName(profile: string, qwen: boolean): string {
  return qwen && profile === 'cibench' ? 'qwen' : profile;
}

/** "visualization (hard)", "math". */
function familyText(item: QwenItem): string {
  const family = familyWord(FAMILIES[item.family] ?? item.family);
  return item.difficulty
    ? `${family} (${difficultyWord(item.difficulty)})`
    : family;
}

/** "easy" / "hard" in the person's language. */
function difficultyWord(difficulty: string): string {
  const words: { [d: string]: string } = {
    easy: trans.__('easy'),
    hard: trans.__('hard')
  };
  return words[difficulty] ?? difficulty;
}

/** "eval_code_interpreter_v1 line 6": where the item came from. */
export function sourceText(item: QwenItem): string {
  return trans.__('%1 line %2', item.source.replace(/\.jsonl$/, ''), item.line);
}

/**
 * A Qwen task's line under its title: "math · eval_code_interpreter_v1 line 6
 * · English" (null: not a Qwen task, or a server without the item).
 */
export function qwenMeta(
  task: Pick<ITaskSummary, 'language' | 'benchmark_item'>
): string | null {
  const item = task.benchmark_item;
  if (!item) {
    return null;
  }
  return [familyText(item), sourceText(item), languageLabel(task.language)]
    .filter(Boolean)
    .join(' · ');
}

/**
 * What the intro says of the item besides its question: its files, hard or
 * easy, and the runs a person gets: the item's calls left after setup, or
 * the turn cap a new attempt would get (`turnCap`, 0: none) where lower.
 */
export function itemFacts(item: QwenItem, turnCap = 0): string[] {
  const files = item.files.length
    ? trans.__(
        'Files: %1 (the kernel runs in upload_file/)',
        item.files.join(', ')
      )
    : trans.__('No files');
  const facts = [files];
  if (item.difficulty === 'easy') {
    facts.push(
      trans.__(
        'Easy: the first turn is given, already run, above your answer cell'
      )
    );
  } else if (item.difficulty === 'hard') {
    facts.push(trans.__('Hard: no turn is given'));
  }
  const capped = turnCap > 0 && turnCap < item.runs;
  const spent = item.calls - item.runs;
  const why = capped
    ? trans.__(' (the turn cap; the item allows %1)', item.runs)
    : spent > 0
      ? trans.__(" (the item's %1 calls, less the first turn's)", item.calls)
      : '';
  const runs = capped ? turnCap : item.runs;
  facts.push(
    trans.__(
      '%1%2: the run that reaches it settles the step',
      runsAllowedText(runs),
      why
    )
  );
  return facts;
}

/** The text the task filter searches besides a task's id, title and libraries. */
export function searchText(task: Pick<ITaskSummary, 'benchmark_item'>): string {
  const item = task.benchmark_item;
  return item ? [item.question, ...item.files, sourceText(item)].join(' ') : '';
}

/**
 * How the Start bar names the task it starts: a Qwen task by its id's last
 * part first ("ci_0006 · Solve x**2 …"), so two items whose questions start
 * alike read apart even where the bar cuts the line short.
 */
export function startName(
  task: Pick<ITaskSummary, 'id' | 'title' | 'benchmark_item'>
): string {
  if (!task.benchmark_item) {
    return task.title;
  }
  const stem = task.id.split('/').pop() ?? task.id;
  return `${stem} · ${task.title}`;
}
