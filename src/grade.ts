/**
 * How the lab words a grade and a settle: pass or miss, what was measured,
 * how a step settled (and that it ran nothing, when so), which of a step's
 * runs the person keeps (the attempt's grade rule) and how many runs a turn
 * cap leaves. Pure helpers, shared by the notebook's badges and the panel.
 */
import { GradeRule, IGrade, IPlaySettings, IStepView } from './api';
import { trans } from './i18n';

export const BADGE_PASS = 'jp-CIBench-badge-pass';
export const BADGE_MISS = 'jp-CIBench-badge-miss';
export const BADGE_RECORDED = 'jp-CIBench-badge-recorded';
export const BADGE_PENDING = 'jp-CIBench-badge-pending';

/** A Qwen visualization step's grade without a judge (grading/qwen/lab.py's NO_JUDGE). */
export const NO_JUDGE = 'not graded (no judge configured)';

/**
 * Whether the grade measured nothing: a Qwen benchmark visualization step
 * with no judge configured (or one that failed) is neither passed nor missed.
 */
export function notGraded(grade: IGrade | null | undefined): boolean {
  return grade?.metric === 'qwen_judge' && grade.score === null;
}

/** A grade badge's text: what was measured, or that the turn was recorded. */
export function badgeText(grade: IGrade | null | undefined): string {
  if (!grade) {
    return trans.__('turn recorded');
  }
  if (notGraded(grade)) {
    return grade.detail && grade.detail !== NO_JUDGE
      ? grade.detail
      : trans.__('not graded (no judge configured)');
  }
  if (grade.detail) {
    return grade.detail;
  }
  if (grade.ungradable) {
    return trans.__('ungradable: %1', grade.ungradable);
  }
  return grade.passed ? trans.__('passed') : trans.__('not passed');
}

/** A grade badge's pass/miss class (a recorded or not graded turn is neutral). */
export function badgeClass(grade: IGrade | null | undefined): string {
  if (!grade || notGraded(grade)) {
    return BADGE_RECORDED;
  }
  return grade.passed ? BADGE_PASS : BADGE_MISS;
}

/** Pass or miss, in a word (or that nothing was graded). */
export function passWord(grade: IGrade): string {
  if (notGraded(grade)) {
    return trans.__('not graded');
  }
  return grade.passed ? trans.__('passed') : trans.__('missed');
}

/**
 * A step its last allowed run settled: "settled at the 3-run limit" (`cap`:
 * the step's run limit, `run_limit`; unknown: "settled at the run limit").
 */
export function capText(cap: number | null | undefined): string {
  return cap
    ? trans.__('settled at the %1-run limit', cap)
    : trans.__('settled at the run limit');
}

/** The attempt's grade rule (`best` when the settings predate it). */
export function gradeRule(
  settings: Partial<IPlaySettings> | null | undefined
): GradeRule {
  return settings?.grade_rule === 'settling' ? 'settling' : 'best';
}

/** The grade rule in the words a badge uses. */
export function ruleText(rule: GradeRule | null | undefined): string {
  return rule === 'settling'
    ? trans.__('graded when you settle')
    : trans.__('best run kept');
}

/**
 * Runs the person's run limit leaves the open step (null: no limit, or
 * settled). The limit is the server's (`run_limit`): the attempt's turn cap
 * and, on a Qwen task, the item's calls left after setup.
 */
export function runsLeft(
  step: Pick<IStepView, 'turns' | 'settled' | 'run_limit'>
): number | null {
  const cap = step.run_limit ?? 0;
  if (!cap || step.settled) {
    return null;
  }
  return Math.max(0, cap - step.turns);
}

/** "1 run left", "3 runs left". */
export function runsLeftText(n: number): string {
  return trans._n('%1 run left', '%1 runs left', n);
}

/** "3 turns" / "1 turn". */
export function turnsText(n: number): string {
  return trans._n('%1 turn', '%1 turns', n);
}

/**
 * A step's outcome in words: how it settled, never whether it passed (a
 * person's Next and a player's first error-free turn both "settled"; the kept
 * grade says pass or miss). `cap`: the step's run limit, which a
 * `turn_cap` settle names ("settled at the 3-run limit").
 */
export function outcomeText(
  outcome: string | null,
  settled: boolean,
  cap?: number | null
): string {
  if (!settled) {
    return trans.__('open');
  }
  const words: { [k: string]: string } = {
    next: trans.__('settled'),
    passed: trans.__('settled'),
    gave_up: trans.__('gave up'),
    turn_cap: capText(cap),
    out_of_turns: trans.__('out of turns'),
    stopped: trans.__('stopped at an error'),
    answered: trans.__('answered')
  };
  return outcome
    ? (words[outcome] ?? outcome.replace(/_/g, ' '))
    : trans.__('settled');
}

type StepRun = Pick<IStepView, 'outcome' | 'turns' | 'settled' | 'grade'>;

/**
 * What a settled step ran when it ran nothing: "no run" (no turn at all), "no
 * code run" (a player's replies, none of them code); null when it ran code or
 * is still open.
 */
export function ranNothing(step: StepRun): 'no run' | 'no code run' | null {
  if (!step.settled) {
    return null;
  }
  if (step.turns === 0) {
    return 'no run';
  }
  return step.grade?.tool === 0 ? 'no code run' : null;
}

/** Whether the person gave the step up without running anything. */
export function gaveUpUnrun(step: StepRun): boolean {
  return step.outcome === 'gave_up' && step.settled && step.turns === 0;
}

/**
 * How a step settled, with its turns: "settled · 2 turns", "settled at the
 * 3-run limit · 3 turns" (`cap`: the run limit), and for a step that ran
 * nothing, that it did: "gave up · no run", "out of turns · 3 turns, no code
 * run".
 */
export function stepOutcomeText(step: StepRun, cap?: number | null): string {
  const outcome = outcomeText(step.outcome, step.settled, cap);
  const nothing = ranNothing(step);
  if (nothing === 'no run') {
    return trans.__('%1 · no run', outcome);
  }
  const turns = turnsText(step.turns);
  return nothing
    ? trans.__('%1 · %2, no code run', outcome, turns)
    : `${outcome} · ${turns}`;
}

/**
 * A step's grade text: for a settled step that ran nothing, how it settled
 * ("gave up · no run": its grade measured nothing), else the measurement.
 */
export function stepGradeText(step: StepRun, cap?: number | null): string {
  return ranNothing(step) ? stepOutcomeText(step, cap) : badgeText(step.grade);
}

/**
 * The second line of a run's badge: the grade rule, the kept run when under
 * `best` it is an earlier one, and the runs a turn cap leaves — or, once the
 * cap's last run settled the step, that it did ("settled at the 3-run limit").
 * `turn`: the 0-based turn the badge shows (undefined: the step's kept grade).
 */
export function ruleLine(
  settings: Partial<IPlaySettings> | null | undefined,
  step: IStepView | undefined,
  turn?: number
): string {
  const rule = gradeRule(settings);
  // a settled step's rule is past: "graded when you settled" (never "· 2 runs left")
  let text =
    step?.settled && rule === 'settling'
      ? trans.__('graded when you settled')
      : ruleText(rule);
  const kept = step?.kept_turn;
  const other = turn !== undefined && typeof kept === 'number' && kept !== turn;
  if (rule === 'best' && other && step?.grade) {
    text += trans.__(': run %1 (%2)', kept + 1, passWord(step.grade));
  }
  const left = step ? runsLeft(step) : null;
  if (left !== null && left > 0) {
    text += ` · ${runsLeftText(left)}`;
  }
  if (step?.settled && step.outcome === 'turn_cap') {
    text += ` · ${capText(step.run_limit)}`;
  }
  return text;
}

/** What a run of an empty answer cell gets (nothing is sent to the server). */
export const EMPTY_CELL = 'empty cell — nothing to grade';

/** EMPTY_CELL in the person's language. */
export function emptyCellText(): string {
  return trans.__('empty cell — nothing to grade');
}

/** A turn time limit in words: "2 min", "90 s", "1 h", "1 h 30 min". */
export function limitText(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60 || (s < 600 && s % 60 !== 0)) {
    return trans.__('%1 s', s);
  }
  const min = Math.round(s / 60);
  if (min < 60) {
    return trans.__('%1 min', min);
  }
  const h = Math.floor(min / 60);
  const rest = min % 60;
  return rest ? trans.__('%1 h %2 min', h, rest) : trans.__('%1 h', h);
}

/** A running badge's text: "running… · stops at 2 min" (just "running…" when the limit is unknown). */
export function runningText(limit?: number | null): string {
  return limit
    ? trans.__('running… · stops at %1', limitText(limit))
    : trans.__('running…');
}

/** A run stopped at the turn time limit: "stopped at the 2 min limit". */
export function stoppedText(limit?: number | null): string {
  return limit
    ? trans.__('stopped at the %1 limit', limitText(limit))
    : trans.__('stopped at the time limit');
}
