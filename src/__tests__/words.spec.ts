import { IGrade } from '../api';
import { filterTasks, NO_FACETS } from '../model';
import {
  attemptMark,
  facetLabel,
  facetOptions,
  matchCount,
  taskMeta,
  taskTitle
} from '../panel/facets';
import {
  keptGradeText,
  languageLabel,
  roleText,
  settleWarning,
  splitLabel
} from '../panel/words';
import { attemptRow, attemptView, grade, TASKS } from './fixtures';

describe('grade wording', () => {
  it('says the kept grade in a word, with the score when there is one', () => {
    expect(keptGradeText(grade())).toBe('passed · 1.00');
    expect(keptGradeText(grade({ score: 0.4, passed: false }))).toBe(
      'missed · 0.40'
    );
    expect(keptGradeText(grade({ kind: 'exec', score: null }))).toBe('passed');
    expect(keptGradeText(null)).toBe('–');
  });

  it("names the bar a missed scored step's partial score falls short of", () => {
    const vis = (over: Partial<IGrade>) =>
      keptGradeText(grade({ kind: 'vis', passed: false, ...over }));
    expect(vis({ profile: 'fair', score: 0.8 })).toBe(
      'missed · 0.80 (pass at 1.00)'
    );
    expect(
      vis({ profile: 'fair', score: 0.8, detail: 'plot SSIM 0.80 (RGB)' })
    ).toBe('missed · 0.80 (pass at 0.99)');
    expect(vis({ profile: 'cibench', score: 0.5 })).toBe(
      'missed · 0.50 (pass at 0.99)'
    );
    expect(vis({ score: 0 })).toBe('missed · 0.00');
    expect(
      keptGradeText(grade({ kind: 'text', score: 0.6, passed: false }))
    ).toBe('missed · 0.60 (pass at 0.999)');
  });
});

describe('settleWarning', () => {
  const [settled, open] = attemptView().steps;

  it('asks first for a step without a run or with a failed last run', () => {
    expect(settleWarning(open, false)).toBe('Step 2 has no run yet.');
    expect(settleWarning({ ...open, turns: 2 }, true)).toBe(
      'The last run of Step 2 raised an error.'
    );
  });

  it('does not ask for a step whose last run ran, or a settled one', () => {
    expect(settleWarning({ ...open, turns: 1 }, false)).toBeNull();
    expect(settleWarning(settled, true)).toBeNull();
    expect(settleWarning(undefined, true)).toBeNull();
  });
});

describe('task facets', () => {
  it('filters by split, library and language, then by words', () => {
    const zh = { ...NO_FACETS, language: 'zh' };
    expect(filterTasks(TASKS, '', zh).map(t => t.lib)).toEqual(['nltk']);
    const gen = { ...NO_FACETS, split: 'cibench_generation' };
    expect(filterTasks(TASKS, '', gen).map(t => t.lib)).toEqual(['seaborn']);
    expect(filterTasks(TASKS, 'wine', gen)).toEqual([]);
    const lib = { ...NO_FACETS, lib: 'pandas' };
    expect(filterTasks(TASKS, 'wine', lib)).toHaveLength(1);
  });

  it('offers each value with its count, sorted', () => {
    expect(facetOptions(TASKS, 'language')).toEqual([
      ['en', 2],
      ['zh', 1]
    ]);
    expect(facetOptions(TASKS, 'split').map(([v]) => v)).toEqual([
      'cibench_generation',
      'cibench_template',
      'cibench_template_chinese'
    ]);
    expect(facetLabel('split', 'cibench_template_chinese')).toBe(
      'template (Chinese)'
    );
    expect(facetLabel('language', 'zh')).toBe('Chinese');
    expect(facetLabel('lib', 'nltk')).toBe('nltk');
  });

  it('counts the matches', () => {
    expect(matchCount(3, 3)).toBe('3 tasks');
    expect(matchCount(1, 3)).toBe('1 of 3 tasks');
  });

  it('names splits and languages in words', () => {
    expect(splitLabel('cibench_generation')).toBe('generation');
    expect(splitLabel('cibench_template')).toBe('template');
    expect(languageLabel('en')).toBe('English');
    expect(languageLabel('fr')).toBe('fr');
    expect(taskMeta(TASKS[1])).toBe(
      'nltk · Chinese · template (Chinese) · 2 steps'
    );
  });
});

describe('taskTitle', () => {
  const twin = {
    ...TASKS[0],
    id: 'cibench_generation/pandas/wine_quality',
    split: 'cibench_generation'
  };
  const zh = {
    ...TASKS[0],
    id: 'cibench_template_chinese/pandas/wine_quality',
    split: 'cibench_template_chinese',
    language: 'zh'
  };

  it('keeps a unique title', () => {
    expect(taskTitle(TASKS[0], TASKS)).toBe('Wine quality');
  });

  it('tells same-named tasks apart by split and language', () => {
    const all = [...TASKS, twin];
    expect(taskTitle(TASKS[0], all)).toBe('Wine quality (template)');
    expect(taskTitle(twin, all)).toBe('Wine quality (generation)');
    const three = [...all, zh];
    expect(taskTitle(zh, three)).toBe(
      'Wine quality (template (Chinese), Chinese)'
    );
  });
});

describe('attemptMark', () => {
  const id = TASKS[0].id;

  it('is null for a task never attempted', () => {
    expect(attemptMark(id, [])).toBeNull();
    expect(attemptMark(id, [attemptRow({ task_id: 'other' })])).toBeNull();
  });

  it("shows the latest attempt's date and passed count", () => {
    const rows = [
      attemptRow({
        id: 'a',
        status: 'done',
        passed: 1,
        created_at: '2024-01-02T10:00:00Z'
      }),
      attemptRow({
        id: 'b',
        status: 'done',
        passed: 2,
        created_at: '2024-03-04T10:00:00Z'
      })
    ];
    expect(attemptMark(id, rows)).toBe(
      'attempted 2024-03-04 · 2/3 passed (2 attempts)'
    );
  });

  it('says where an open attempt is, and degrades without passed', () => {
    expect(attemptMark(id, [attemptRow({ current_step: 1 })])).toBe(
      'in progress: step 2 of 3'
    );
    const old = attemptRow({ status: 'done', passed: undefined });
    expect(attemptMark(id, [old])).toBe('attempted 2024-01-01');
  });
});

describe('roleText', () => {
  it('names the roles beyond participant, and the classes in its title', () => {
    expect(roleText(null)).toEqual({ text: '', title: '' });
    expect(
      roleText({ name: 'ada', roles: ['participant'], classes: ['stats'] })
    ).toEqual({ text: 'participant', title: 'ada: participant; in stats' });
    expect(
      roleText({
        name: 'teach',
        roles: ['participant', 'instructor', 'researcher'],
        classes: ['bio', 'stats']
      })
    ).toEqual({
      text: 'instructor · researcher',
      title: 'teach: participant, instructor, researcher; teaches bio, stats'
    });
  });
});
