/**
 * The panel's wording: kept grades, times, summaries, splits and languages
 * and the settle warning, as pure functions of the API's values (a grade's
 * and a settle's own words are in ../grade.ts).
 */
import {
  IAttemptSummary,
  IGrade,
  IMe,
  IBenchmarkMeasures,
  IStepView,
  ISummary
} from '../api';
import { passWord } from '../grade';
import { trans } from '../i18n';

export const DASH = '–';

/** A summary value (already ×100) with one decimal, or a dash. */
export function formatScore(value: number | null | undefined): string {
  return typeof value === 'number' && isFinite(value) ? value.toFixed(1) : DASH;
}

/** The rows of the summary table: [label, value]. */
export function summaryRows(summary: ISummary | null): [string, string][] {
  const metrics: [string, keyof ISummary][] = [
    [trans.__('Tool'), 'tool'],
    [trans.__('Exec'), 'exec'],
    [trans.__('Num'), 'num'],
    [trans.__('Text'), 'text'],
    [trans.__('Vis'), 'vis']
  ];
  return metrics.map(([label, key]) => [
    label,
    formatScore(summary ? (summary[key] as number | null) : null)
  ]);
}

/**
 * A Qwen benchmark attempt's summary rows: the executable rate and, for a
 * family that has one, its accuracy ("not graded" when no step of it was).
 */
export function qwenRows(measures: IBenchmarkMeasures): [string, string][] {
  const rows: [string, string][] = [
    [trans.__('Executable'), formatScore(measures.executable)]
  ];
  if (measures.accuracy_of) {
    const none = measures.accuracy === null && measures.not_graded > 0;
    rows.push([
      trans.__('Accuracy (%1)', measures.accuracy_of),
      none ? trans.__('not graded') : formatScore(measures.accuracy)
    ]);
  }
  return rows;
}

/**
 * A finished attempt's passed steps in a few words, as the attempt list and
 * the task list say them: "9/12 passed"; a step not graded is neither passed
 * nor missed: "0/1 passed · 1 not graded", and "not graded" when none was.
 */
export function passedCount(
  a: Pick<IAttemptSummary, 'passed' | 'not_graded' | 'n_steps'>
): string | null {
  if (typeof a.passed !== 'number') {
    return null;
  }
  const none = a.not_graded ?? 0;
  if (none >= a.n_steps) {
    return trans.__('not graded');
  }
  const count = trans.__('%1/%2 passed', a.passed, a.n_steps - none);
  return none ? trans.__('%1 · %2 not graded', count, none) : count;
}

/** Seconds as `1m 05s` / `42.0 s`, or a dash. */
export function formatSeconds(seconds: number | null | undefined): string {
  if (typeof seconds !== 'number' || !isFinite(seconds)) {
    return DASH;
  }
  if (seconds < 60) {
    return trans.__('%1 s', seconds.toFixed(1));
  }
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  return trans.__('%1m %2s', m, String(s).padStart(2, '0'));
}

/** The kept grade in words with its score: "passed · 1.00", "missed", a dash. */
export function keptGradeText(grade: IGrade | null | undefined): string {
  if (!grade) {
    return DASH;
  }
  if (typeof grade.score !== 'number' || !isFinite(grade.score)) {
    return passWord(grade);
  }
  const at = grade.passed ? null : passAt(grade);
  const bar =
    at === null ? '' : trans.__(' (pass at %1)', at >= 1 ? '1.00' : String(at));
  return `${passWord(grade)} · ${grade.score.toFixed(2)}${bar}`;
}

/**
 * The score a scored (text, vis) step passes at, for a missed grade that has
 * part of it: a partial score reads as a miss only beside its bar. The bars
 * are the graders' (grading/cibench.py PASS_SCORE; the fair structural plot
 * grade passes at 1); a fair vis grade from SSIM says so in its detail.
 */
export function passAt(grade: IGrade): number | null {
  if (!grade.score || grade.score >= 1 || grade.ungradable) {
    return null;
  }
  if (grade.kind === 'text') {
    return PASS_SCORE.text;
  }
  if (grade.kind !== 'vis') {
    return null;
  }
  const ssim = grade.profile !== 'fair' || grade.detail.startsWith('plot SSIM');
  return ssim ? PASS_SCORE.vis : 1;
}

const PASS_SCORE = { text: 0.999, vis: 0.99 };

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
  if (!step.turns) {
    return trans.__('Step %1 has no run yet.', step.index + 1);
  }
  if (lastRunFailed) {
    return trans.__('The last run of Step %1 raised an error.', step.index + 1);
  }
  return null;
}

/** A split's short name: cibench_template_chinese -> "template (Chinese)". */
export function splitLabel(split: string): string {
  const words = split.replace(/^cibench_/, '').split('_');
  const [head, ...rest] = words;
  const tail = rest
    .map(w => (w === 'chinese' ? trans.__('Chinese') : w))
    .join(' ');
  return tail ? `${head} (${tail})` : head;
}

/** A language code in words (en -> English); unknown codes stay. */
export function languageLabel(language: string): string {
  const names: { [code: string]: string } = {
    en: trans.__('English'),
    zh: trans.__('Chinese')
  };
  return names[language] ?? language;
}

/**
 * The user's role as the panel header shows it: their roles beyond
 * participant (everyone is one), else `participant`; the title adds the name
 * and classes.
 */
export function roleText(me: IMe | null): { text: string; title: string } {
  if (!me) {
    return { text: '', title: '' };
  }
  const more = me.roles.filter(role => role !== 'participant');
  const text = more.length
    ? more.map(roleWord).join(' · ')
    : trans.__('participant');
  const classes = me.classes.length
    ? me.roles.includes('instructor')
      ? trans.__('; teaches %1', me.classes.join(', '))
      : trans.__('; in %1', me.classes.join(', '))
    : '';
  const roles = me.roles.map(roleWord).join(', ');
  return { text, title: `${me.name}: ${roles}${classes}` };
}

/** A role in words (an unknown role stays as the server names it). */
function roleWord(role: string): string {
  const words: { [role: string]: string } = {
    participant: trans.__('participant'),
    instructor: trans.__('instructor'),
    researcher: trans.__('researcher')
  };
  return words[role] ?? role;
}

/** "1 run allowed", "3 runs allowed": a step's run limit before its first run. */
export function runsAllowedText(n: number): string {
  return trans._n('%1 run allowed', '%1 runs allowed', n);
}
