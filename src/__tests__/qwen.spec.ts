import {
  BADGE_PASS,
  BADGE_RECORDED,
  NO_JUDGE,
  badgeClass,
  badgeText,
  notGraded,
  passWord
} from '../grade';
import { isQwen, profileName, qwenLine, startMode } from '../panel/qwen';
import { grade } from './fixtures';

describe('a Qwen benchmark step in the lab', () => {
  it('says a visualization step without a judge is not graded, neither pass nor miss', () => {
    const g = grade({
      kind: 'exec',
      metric: 'qwen_judge',
      score: null,
      passed: false,
      detail: NO_JUDGE
    });
    expect(notGraded(g)).toBe(true);
    expect(badgeText(g)).toBe('not graded (no judge configured)');
    expect(badgeClass(g)).toBe(BADGE_RECORDED);
    expect(passWord(g)).toBe('not graded');
  });

  it('grades a judged figure, math and general steps as any other', () => {
    const judged = grade({ metric: 'qwen_judge', score: 1, passed: true });
    const general = grade({
      metric: 'qwen_executable',
      score: null,
      detail: 'executable'
    });
    expect(notGraded(judged)).toBe(false);
    expect(badgeClass(general)).toBe(BADGE_PASS);
    expect(badgeText(general)).toBe('executable');
  });

  it('has no oracle mode and its own words in the panel', () => {
    const task = { benchmark: 'qwen' as const, libraries: ['qwen-vis'] };
    expect(isQwen(task)).toBe(true);
    expect(isQwen({ benchmark: 'cibench' })).toBe(false);
    expect(startMode(task, 'oracle')).toBe('e2e');
    expect(startMode({ benchmark: 'cibench' }, 'oracle')).toBe('oracle');
    expect(qwenLine(task)).toBe(
      'Qwen Code Interpreter Benchmark · one step · visualization'
    );
    expect(profileName('cibench', true)).toBe('qwen');
    expect(profileName('fair', true)).toBe('fair');
    expect(profileName('cibench', false)).toBe('cibench');
  });
});
