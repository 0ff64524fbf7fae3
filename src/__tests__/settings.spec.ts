import { playSettingsFrom } from '../settings';

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
