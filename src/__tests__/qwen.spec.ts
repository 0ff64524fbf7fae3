import {
  BADGE_PASS,
  BADGE_RECORDED,
  NO_JUDGE,
  badgeClass,
  badgeText,
  notGraded,
  passWord
} from '../grade';
import { MessageLoop } from '@lumino/messaging';

import { CIBenchModel, filterTasks } from '../model';
import { CIBenchPanel } from '../panel/panel';
import {
  isQwen,
  itemFacts,
  profileName,
  qwenLine,
  qwenMeta,
  startMode,
  startName
} from '../panel/qwen';
import { taskMeta } from '../panel/tasks';
import { attemptView, fakeActions, grade, QWEN_TASKS, TASKS } from './fixtures';

const attemptOf = (taskId: string) => attemptView({ task_id: taskId });

const [MATH, SUM, EASY] = QWEN_TASKS;

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

describe('a Qwen item before play', () => {
  it('is listed by its question, its family, source line and language', () => {
    expect(MATH.title).toBe('Solve x**2 - 5*x + 6 = 0 and print the roots.');
    expect(taskMeta(MATH)).toBe(
      'math · eval_code_interpreter_v1 line 6 · English'
    );
    expect(qwenMeta(EASY)).toBe(
      'visualization (easy) · eval_code_interpreter_v1 line 2 · English'
    );
    expect(qwenMeta(TASKS[0])).toBeNull(); // a CIBench task keeps its line
    expect(taskMeta(TASKS[0])).toContain('pandas, matplotlib');
  });

  it('says its files, hard or easy and the runs allowed', () => {
    expect(itemFacts(MATH.benchmark_item!)).toEqual([
      'No files',
      '1 run allowed: the run that reaches it settles the step'
    ]);
    expect(itemFacts(EASY.benchmark_item!)).toEqual([
      'Files: weather/weather.csv (the kernel runs in upload_file/)',
      'Easy: the first turn is given, already run, above your answer cell',
      "3 runs allowed (the item's 4 calls, less the first turn's): the run that reaches it settles the step"
    ]);
  });

  it('counts the runs allowed by a lower turn cap, never a higher one', () => {
    expect(itemFacts(EASY.benchmark_item!, 2)[2]).toBe(
      '2 runs allowed (the turn cap; the item allows 3): the run that reaches it settles the step'
    );
    expect(itemFacts(EASY.benchmark_item!, 5)).toEqual(
      itemFacts(EASY.benchmark_item!)
    );
    expect(itemFacts(EASY.benchmark_item!, 0)).toEqual(
      itemFacts(EASY.benchmark_item!)
    );
  });

  it('is found by words of its question, in Chinese too', () => {
    const all = [...TASKS, ...QWEN_TASKS];
    expect(filterTasks(all, '求').map(t => t.id)).toEqual([SUM.id]);
    expect(filterTasks(all, '总金额').map(t => t.id)).toEqual([
      QWEN_TASKS[3].id
    ]);
    expect(filterTasks(all, 'roots').map(t => t.id)).toEqual([MATH.id]);
    expect(filterTasks(all, 'weather.csv').map(t => t.id)).toEqual([EASY.id]);
    expect(filterTasks(all, 'line 7').map(t => t.id)).toEqual([SUM.id]);
  });

  it('is named on the Start bar by its id first', () => {
    expect(startName(MATH)).toBe(
      'ci_0006 · Solve x**2 - 5*x + 6 = 0 and print the roots.'
    );
    expect(startName(TASKS[0])).toBe('Wine quality');
  });
});

describe('the panel on a Qwen item', () => {
  function setup() {
    const model = new CIBenchModel();
    const actions = fakeActions();
    actions.selectTask = async (id: string) => {
      actions.calls.push(`select ${id}`);
      model.selected = QWEN_TASKS.find(t => t.id === id) ?? null;
    };
    const panel = new CIBenchPanel(model, actions);
    document.body.appendChild(panel.node);
    model.tasks = [...TASKS, ...QWEN_TASKS];
    const q = <T extends HTMLElement>(sel: string) =>
      panel.node.querySelector<T>(sel);
    return { model, actions, panel, q };
  }

  it('shows the question as written, its facts, and no mode', async () => {
    const { model, panel, q } = setup();
    model.selected = EASY;
    const question = q('.jp-CIBench-detail .jp-CIBench-question')!;
    expect(question.textContent).toBe(EASY.benchmark_item!.question);
    expect(
      Array.from(panel.node.querySelectorAll('.jp-CIBench-fact')).map(
        li => li.textContent
      )
    ).toHaveLength(3);
    expect(q('.jp-CIBench-mode')).toBeNull();
    model.selected = SUM;
    expect(q('.jp-CIBench-question')!.getAttribute('lang')).toBe('zh');
    expect(q('.jp-CIBench-barHint')!.textContent).toBe(
      'ci_0007 · 求 1 到 100 的整数之和。'
    );
    panel.dispose();
    panel.node.remove();
  });

  it('moves the keyboard to Start when Enter picks the only match', async () => {
    const { model, actions, panel, q } = setup();
    const filter = q<HTMLInputElement>('input.jp-CIBench-filter')!;
    filter.focus();
    filter.value = '求';
    filter.dispatchEvent(new Event('input'));
    filter.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })
    );
    await new Promise(r => setTimeout(r, 0));
    expect(actions.calls).toEqual([`select ${SUM.id}`]);
    expect(model.selected?.id).toBe(SUM.id);
    expect(document.activeElement).toBe(q('.jp-CIBench-start'));
    panel.dispose();
    panel.node.remove();
  });

  it('leaves no task selected for Start after "All tasks"', () => {
    const { model, panel, q } = setup();
    model.selected = MATH;
    model.showAttempt(attemptOf(MATH.id));
    MessageLoop.flush();
    q<HTMLButtonElement>('.jp-CIBench-back')!.click();
    expect(model.view).toBe('tasks');
    expect(model.selected).toBeNull();
    const start = q<HTMLButtonElement>('.jp-CIBench-start')!;
    expect(start.disabled).toBe(true);
    expect(q('.jp-CIBench-barHint')!.textContent).toBe(
      'Select a task to start.'
    );
    expect(q('.jp-CIBench-detail')!.hidden).toBe(true);
    panel.dispose();
    panel.node.remove();
  });

  it('has no banner landmark of its own in the sidebar', () => {
    const { panel } = setup();
    expect(panel.node.querySelector('header, [role="banner"]')).toBeNull();
    expect(panel.node.querySelector('.jp-CIBench-header')?.tagName).toBe('DIV');
    panel.dispose();
    panel.node.remove();
  });
});
