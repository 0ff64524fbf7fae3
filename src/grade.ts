/**
 * How the lab words a grade: pass or miss, what was measured, which of a
 * step's runs the person keeps (the attempt's grade rule) and how many runs a
 * turn cap leaves. Pure helpers, shared by the notebook's badges and the panel.
 */
import { IGrade, IPlaySettings, IStepView } from './api';

export const BADGE_PASS = 'jp-CIBench-badge-pass';
export const BADGE_MISS = 'jp-CIBench-badge-miss';
export const BADGE_RECORDED = 'jp-CIBench-badge-recorded';
export const BADGE_PENDING = 'jp-CIBench-badge-pending';

/** Which of a step's turns a person keeps (`settings.grade_rule`). */
export type GradeRule = 'best' | 'settling';

/** A grade badge's text: what was measured, or that the turn was recorded. */
export function badgeText(grade: IGrade | null | undefined): string {
  if (!grade) {
    return 'turn recorded';
  }
  if (grade.detail) {
    return grade.detail;
  }
  if (grade.ungradable) {
    return `ungradable: ${grade.ungradable}`;
  }
  return grade.passed ? 'passed' : 'not passed';
}

/** A grade badge's pass/miss class (a recorded, ungraded turn is neutral). */
export function badgeClass(grade: IGrade | null | undefined): string {
  if (!grade) {
    return BADGE_RECORDED;
  }
  return grade.passed ? BADGE_PASS : BADGE_MISS;
}

/** Pass or miss, in a word. */
export function passWord(grade: IGrade): 'passed' | 'missed' {
  return grade.passed ? 'passed' : 'missed';
}

/** The attempt's grade rule (`best` when the settings predate it). */
export function gradeRule(
  settings: Partial<IPlaySettings> | null | undefined
): GradeRule {
  return settings?.grade_rule === 'settling' ? 'settling' : 'best';
}

/** The grade rule in the words a badge uses. */
export function ruleText(rule: GradeRule | null | undefined): string {
  return rule === 'settling' ? 'graded when you settle' : 'best run kept';
}

/** Runs a turn cap leaves the open step (null: no cap, or settled). */
export function runsLeft(
  step: Pick<IStepView, 'turns' | 'settled'>,
  settings: Partial<IPlaySettings> | null | undefined
): number | null {
  const cap = settings?.turn_cap ?? 0;
  if (!cap || step.settled) {
    return null;
  }
  return Math.max(0, cap - step.turns);
}

/** "1 run left", "3 runs left". */
export function runsLeftText(n: number): string {
  return `${n} run${n === 1 ? '' : 's'} left`;
}

/** Whether the person gave the step up without running anything. */
export function gaveUpUnrun(
  step: Pick<IStepView, 'outcome' | 'turns'>
): boolean {
  return step.outcome === 'gave_up' && step.turns === 0;
}

/** A step's grade text: "given up" for a step given up unrun, else the measurement. */
export function stepGradeText(
  step: Pick<IStepView, 'outcome' | 'turns' | 'grade'>
): string {
  return gaveUpUnrun(step) ? 'given up' : badgeText(step.grade);
}

/**
 * The second line of a run's badge: the grade rule, the kept run when under
 * `best` it is an earlier one, and the runs a turn cap leaves.
 * `turn`: the 0-based turn the badge shows (undefined: the step's kept grade).
 */
export function ruleLine(
  settings: Partial<IPlaySettings> | null | undefined,
  step: IStepView | undefined,
  turn?: number
): string {
  const rule = gradeRule(settings);
  let text = ruleText(rule);
  const kept = step?.kept_turn;
  const other = turn !== undefined && typeof kept === 'number' && kept !== turn;
  if (rule === 'best' && other && step?.grade) {
    text += `: run ${kept + 1} (${passWord(step.grade)})`;
  }
  const left = step ? runsLeft(step, settings) : null;
  if (left !== null && left > 0) {
    text += ` · ${runsLeftText(left)}`;
  }
  return text;
}
