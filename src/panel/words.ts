/**
 * The panel's wording: outcomes, grades, times, summaries and the settle
 * warning, as pure functions of the API's values.
 */
import { GradeRule, IGrade, IStepView, ISummary } from '../api';

export const DASH = '–';

/** 'passed' or 'missed': the kept grade in one word. */
export function passWord(grade: IGrade): 'passed' | 'missed' {
  return grade.passed ? 'passed' : 'missed';
}

/** How a person's step gets its grade under the attempt's grade rule. */
export function ruleText(rule: GradeRule): string {
  return rule === 'best' ? 'best run kept' : 'graded when you settle';
}

/** A summary value (already ×100) with one decimal, or a dash. */
export function formatScore(value: number | null | undefined): string {
  return typeof value === 'number' && isFinite(value) ? value.toFixed(1) : DASH;
}

/** The rows of the summary table: [label, value]. */
export function summaryRows(summary: ISummary | null): [string, string][] {
  const metrics: [string, keyof ISummary][] = [
    ['Tool', 'tool'],
    ['Exec', 'exec'],
    ['Num', 'num'],
    ['Text', 'text'],
    ['Vis', 'vis']
  ];
  return metrics.map(([label, key]) => [
    label,
    formatScore(summary ? (summary[key] as number | null) : null)
  ]);
}

/** Seconds as `1m 05s` / `42.0 s`, or a dash. */
export function formatSeconds(seconds: number | null | undefined): string {
  if (typeof seconds !== 'number' || !isFinite(seconds)) {
    return DASH;
  }
  if (seconds < 60) {
    return `${seconds.toFixed(1)} s`;
  }
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  return `${m}m ${String(s).padStart(2, '0')}s`;
}

/**
 * A step's outcome in words: how it settled, never whether it passed (a
 * person's Next and a player's first error-free turn both "settled"; the kept
 * grade says pass or miss).
 */
export function outcomeText(outcome: string | null, settled: boolean): string {
  if (!settled) {
    return 'open';
  }
  const words: { [k: string]: string } = {
    next: 'settled',
    passed: 'settled',
    gave_up: 'gave up',
    turn_cap: 'out of turns',
    out_of_turns: 'out of turns'
  };
  return outcome ? (words[outcome] ?? outcome.replace(/_/g, ' ')) : 'settled';
}

/** The kept grade in words with its score: "passed · 1.00", "missed", a dash. */
export function keptGradeText(grade: IGrade | null | undefined): string {
  if (!grade) {
    return DASH;
  }
  const score =
    typeof grade.score === 'number' && isFinite(grade.score)
      ? ` · ${grade.score.toFixed(2)}`
      : '';
  return `${passWord(grade)}${score}`;
}

/** "3 turns" / "1 turn". */
export function turnsText(n: number): string {
  return `${n} turn${n === 1 ? '' : 's'}`;
}

/**
 * Why Next step should ask first, or null: the step has no run yet, or its
 * last run raised an error (`lastRunFailed`, read from the notebook).
 */
export function settleWarning(
  step: IStepView | undefined,
  lastRunFailed: boolean
): string | null {
  if (!step || step.settled) {
    return null;
  }
  const label = `Step ${step.index + 1}`;
  if (!step.turns) {
    return `${label} has no run yet.`;
  }
  if (lastRunFailed) {
    return `The last run of ${label} raised an error.`;
  }
  return null;
}

/** A split's short name: cibench_template_chinese -> "template (Chinese)". */
export function splitLabel(split: string): string {
  const words = split.replace(/^cibench_/, '').split('_');
  const [head, ...rest] = words;
  const tail = rest.map(w => (w === 'chinese' ? 'Chinese' : w)).join(' ');
  return tail ? `${head} (${tail})` : head;
}

/** A language code in words (en -> English); unknown codes stay. */
export function languageLabel(language: string): string {
  const names: { [code: string]: string } = { en: 'English', zh: 'Chinese' };
  return names[language] ?? language;
}
