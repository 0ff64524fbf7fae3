import { personTurnCap, playSettingsFrom } from '../settings';

describe('playSettingsFrom', () => {
  it('reads every play setting of the plugin', () => {
    expect(
      playSettingsFrom({
        showGrades: false,
        turnCap: 3,
        reveal: 'after-step',
        gradeRule: 'settling'
      })
    ).toEqual({
      show_grades: false,
      turn_cap: 3,
      reveal: 'after-step',
      grade_rule: 'settling'
    });
  });

  it('drops values the server would refuse', () => {
    expect(
      playSettingsFrom({ turnCap: -1, reveal: 'later', gradeRule: 'last' })
    ).toEqual({});
    expect(playSettingsFrom({ gradeRule: 'best' })).toEqual({
      grade_rule: 'best'
    });
  });
});

describe('personTurnCap', () => {
  const defaults = {
    show_grades: true,
    turn_cap: 3,
    pause_after: 120,
    reveal: 'after-step' as const,
    max_turn: 3,
    grade_rule: 'best' as const
  };

  it("is the person's own cap unless the server locks its settings", () => {
    expect(personTurnCap({ locked: false, defaults }, { turn_cap: 1 })).toBe(1);
    expect(personTurnCap({ locked: false, defaults }, { turn_cap: 0 })).toBe(0);
    expect(personTurnCap({ locked: false, defaults }, {})).toBe(3);
    expect(personTurnCap({ locked: true, defaults }, { turn_cap: 1 })).toBe(3);
  });

  it("is never looser than the server's where it guards its settings", () => {
    const guarded = { locked: false, guarded: true, defaults };
    expect(personTurnCap(guarded, { turn_cap: 50 })).toBe(3);
    expect(personTurnCap(guarded, { turn_cap: 0 })).toBe(3);
    expect(personTurnCap(guarded, { turn_cap: 2 })).toBe(2);
    const none = { ...guarded, defaults: { ...defaults, turn_cap: 0 } };
    expect(personTurnCap(none, { turn_cap: 5 })).toBe(5);
  });
});
