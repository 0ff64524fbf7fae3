import {
  BADGE_MISS,
  BADGE_PASS,
  BADGE_RECORDED,
  badgeClass,
  badgeText,
  capText,
  gaveUpUnrun,
  EMPTY_CELL,
  gradeRule,
  limitText,
  outcomeText,
  passWord,
  ranNothing,
  ruleLine,
  ruleText,
  runsLeft,
  runsLeftText,
  runningText,
  stepGradeText,
  stepOutcomeText,
  stoppedText,
  turnsText
} from '../grade';
import { attemptView, grade } from './fixtures';

describe('badges', () => {
  it('shows the detail of a passing grade with the pass class', () => {
    const g = grade();
    expect(badgeText(g)).toBe('number matched');
    expect(badgeClass(g)).toBe(BADGE_PASS);
    expect(BADGE_PASS).toBe('jp-CIBench-badge-pass');
  });

  it('shows a missed grade with the miss class', () => {
    const g = grade({
      passed: false,
      score: 0,
      detail: 'expected a printed number; your output had none'
    });
    expect(badgeText(g)).toBe(
      'expected a printed number; your output had none'
    );
    expect(badgeClass(g)).toBe('jp-CIBench-badge-miss');
    expect(BADGE_MISS).toBe('jp-CIBench-badge-miss');
  });

  it('handles exec steps (score null) by passed', () => {
    const ok = grade({
      kind: 'exec',
      score: null,
      detail: 'ran without error'
    });
    const bad = grade({
      kind: 'exec',
      score: null,
      exec: 0,
      passed: false,
      detail: 'raised an error (KeyError)'
    });
    expect(badgeClass(ok)).toBe(BADGE_PASS);
    expect(badgeText(ok)).toBe('ran without error');
    expect(badgeClass(bad)).toBe(BADGE_MISS);
    expect(badgeText(bad)).toBe('raised an error (KeyError)');
  });

  it('says "turn recorded" when live grades are off (null grade)', () => {
    expect(badgeText(null)).toBe('turn recorded');
    expect(badgeClass(null)).toBe(BADGE_RECORDED);
    expect(badgeText(undefined)).toBe('turn recorded');
  });

  it('falls back when the detail is empty', () => {
    expect(badgeText(grade({ detail: '' }))).toBe('passed');
    expect(badgeText(grade({ detail: '', passed: false }))).toBe('not passed');
    expect(badgeText(grade({ detail: '', ungradable: 'no image' }))).toBe(
      'ungradable: no image'
    );
  });
});

describe('pass or miss in words', () => {
  it('says passed or missed', () => {
    expect(passWord(grade())).toBe('passed');
    expect(passWord(grade({ passed: false }))).toBe('missed');
  });
});

describe('grade rule', () => {
  it('defaults to best when the settings predate it', () => {
    expect(gradeRule(attemptView().settings)).toBe('best');
    expect(gradeRule(null)).toBe('best');
    expect(gradeRule({ grade_rule: 'settling' })).toBe('settling');
  });

  it('names the rule as the badges say it', () => {
    expect(ruleText('best')).toBe('best run kept');
    expect(ruleText('settling')).toBe('graded when you settle');
    expect(ruleText(undefined)).toBe('best run kept');
  });

  it('names an earlier kept run under best', () => {
    const step = {
      ...attemptView().steps[1],
      turns: 3,
      kept_turn: 1,
      grade: grade()
    };
    expect(ruleLine({}, step, 2)).toBe('best run kept: run 2 (passed)');
    expect(ruleLine({}, step, 1)).toBe('best run kept');
    expect(ruleLine({}, step)).toBe('best run kept');
    expect(ruleLine({ grade_rule: 'settling' }, step, 2)).toBe(
      'graded when you settle'
    );
  });
});

describe('turn cap', () => {
  const open = attemptView().steps[1];

  it('counts the runs the run limit leaves an open step', () => {
    expect(runsLeft({ ...open, turns: 2, run_limit: 3 })).toBe(1);
    expect(runsLeft({ ...open, turns: 0, run_limit: 3 })).toBe(3);
    expect(runsLeft({ ...open, turns: 5, run_limit: 3 })).toBe(0);
    expect(runsLeft({ ...open, run_limit: null })).toBeNull();
    expect(runsLeft({ ...open, settled: true, run_limit: 3 })).toBeNull();
  });

  it("follows the server's limit, not the turn cap (a Qwen item's calls)", () => {
    // a general item allows 1 call: the limit is 1 with no turn cap, or a cap of 3
    const qwen = { ...open, turns: 0, run_limit: 1 };
    expect(ruleLine({ turn_cap: 0 }, { ...qwen, grade: grade() })).toBe(
      'best run kept · 1 run left'
    );
    expect(ruleLine({ turn_cap: 3 }, { ...qwen, grade: grade() })).toBe(
      'best run kept · 1 run left'
    );
    const settled = { ...qwen, turns: 1, settled: true, outcome: 'turn_cap' };
    expect(ruleLine({ turn_cap: 0 }, settled)).toBe(
      'best run kept · settled at the 1-run limit'
    );
  });

  it('says "1 run left" before the last run', () => {
    expect(runsLeftText(1)).toBe('1 run left');
    expect(runsLeftText(2)).toBe('2 runs left');
    const step = { ...open, turns: 2, kept_turn: 1, grade: grade() };
    expect(ruleLine({ turn_cap: 3 }, { ...step, run_limit: 3 }, 1)).toBe(
      'best run kept · 1 run left'
    );
    expect(ruleLine({ turn_cap: 2 }, { ...step, run_limit: 2 }, 1)).toBe(
      'best run kept'
    );
  });

  it("says a step the cap's last run settled was settled at the limit", () => {
    expect(capText(3)).toBe('settled at the 3-run limit');
    expect(capText(1)).toBe('settled at the 1-run limit');
    expect(capText(0)).toBe('settled at the run limit');
    const step = {
      ...open,
      turns: 3,
      settled: true,
      outcome: 'turn_cap',
      kept_turn: null,
      grade: null,
      run_limit: 3
    };
    const parity = { turn_cap: 3, grade_rule: 'settling' as const };
    // settled: the rule is past ("graded when you settled"), never "· 0 runs left"
    expect(ruleLine(parity, step, 2)).toBe(
      'graded when you settled · settled at the 3-run limit'
    );
    expect(
      ruleLine({ turn_cap: 2 }, { ...step, turns: 2, run_limit: 2 }, 1)
    ).toBe('best run kept · settled at the 2-run limit');
    expect(outcomeText('turn_cap', true, 3)).toBe('settled at the 3-run limit');
    expect(stepOutcomeText(step, 3)).toBe(
      'settled at the 3-run limit · 3 turns'
    );
    // Next on the cap's last run, or a player's max_turn: not the cap's settle
    expect(ruleLine(parity, { ...step, outcome: 'next' }, 2)).toBe(
      'graded when you settled'
    );
    // open, with runs left: the rule as it stands, and what is left
    expect(
      ruleLine(parity, { ...step, settled: false, outcome: null, turns: 1 }, 0)
    ).toBe('graded when you settle · 2 runs left');
    expect(outcomeText('out_of_turns', true, 3)).toBe('out of turns');
  });
});

describe('how a step settled', () => {
  it('says how a step settled, never "done" for a miss', () => {
    expect(outcomeText(null, false)).toBe('open');
    expect(outcomeText('next', true)).toBe('settled');
    expect(outcomeText('passed', true)).toBe('settled');
    expect(outcomeText('turn_cap', true)).toBe('settled at the run limit');
    expect(outcomeText('out_of_turns', true)).toBe('out of turns');
    expect(outcomeText('gave_up', true)).toBe('gave up');
    expect(outcomeText('stopped', true)).toBe('stopped at an error');
    expect(outcomeText('answered', true)).toBe('answered');
    expect(outcomeText('weird_one', true)).toBe('weird one');
    expect(turnsText(1)).toBe('1 turn');
    expect(turnsText(0)).toBe('0 turns');
  });

  const ran = { ...attemptView().steps[0], turns: 2 };
  // how the server grades a step with no turn: nothing measured, "not run yet"
  const unrun = {
    ...ran,
    turns: 0,
    kept_turn: null,
    grade: grade({ passed: false, tool: 0, exec: 0, detail: 'not run yet' })
  };

  it('says how a step with runs settled, and its measurement', () => {
    expect(ranNothing(ran)).toBeNull();
    expect(stepOutcomeText(ran)).toBe('settled · 2 turns');
    expect(stepGradeText(ran)).toBe('ran without error');
    const open = attemptView().steps[1];
    expect(stepOutcomeText({ ...open, turns: 1 })).toBe('open · 1 turn');
  });

  it.each([
    ['gave_up', 'gave up · no run'],
    ['next', 'settled · no run'],
    ['passed', 'settled · no run'],
    ['turn_cap', 'settled at the run limit · no run'],
    ['out_of_turns', 'out of turns · no run']
  ])('words a step settled (%s) without a run truthfully', (outcome, text) => {
    const step = { ...unrun, outcome };
    expect(ranNothing(step)).toBe('no run');
    expect(stepOutcomeText(step)).toBe(text);
    expect(stepGradeText(step)).toBe(text);
    expect(stepGradeText(step)).not.toContain('yet');
    expect(stepOutcomeText({ ...step, grade: null })).toBe(text); // grades hidden
    expect(gaveUpUnrun(step)).toBe(outcome === 'gave_up');
  });

  it("says so when a player's replies ran no code", () => {
    const step = {
      ...unrun,
      turns: 3,
      outcome: 'out_of_turns',
      grade: grade({ ...unrun.grade, detail: 'no code run yet' })
    };
    expect(ranNothing(step)).toBe('no code run');
    expect(stepGradeText(step)).toBe('out of turns · 3 turns, no code run');
    expect(gaveUpUnrun({ ...step, outcome: 'gave_up' })).toBe(false);
  });

  it('leaves an open step without a run to its measurement', () => {
    const open = { ...unrun, settled: false, outcome: null };
    expect(ranNothing(open)).toBeNull();
    expect(stepOutcomeText(open)).toBe('open · 0 turns');
    expect(stepGradeText(open)).toBe('not run yet');
    expect(gaveUpUnrun({ ...open, outcome: 'gave_up' })).toBe(false);
  });
});

describe('turn time limit', () => {
  it('words the limit in the unit a person reads', () => {
    expect(limitText(120)).toBe('2 min');
    expect(limitText(30)).toBe('30 s');
    expect(limitText(90)).toBe('90 s');
    expect(limitText(600)).toBe('10 min');
    expect(limitText(3600)).toBe('1 h');
    expect(limitText(5400)).toBe('1 h 30 min');
  });

  it('says the limit while running and when a run was stopped at it', () => {
    expect(runningText(120)).toBe('running… · stops at 2 min');
    expect(runningText(null)).toBe('running…');
    expect(stoppedText(120)).toBe('stopped at the 2 min limit');
    expect(stoppedText(undefined)).toBe('stopped at the time limit');
  });

  it('says an empty cell has nothing to grade', () => {
    expect(EMPTY_CELL).toBe('empty cell — nothing to grade');
  });
});
