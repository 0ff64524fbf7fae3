import { ApiError } from '../api';
import { CIBenchModel } from '../model';
import type { IComparison, IHumanFigures, StudyApi } from '../study/api';
import { StudyController } from '../study/controller';
import { StudyModel } from '../study/model';
import {
  bounded,
  CSV_HEAD,
  libraryBars,
  libraryTable,
  peopleCell,
  peopleText,
  rateText,
  reportCsv,
  stepTable,
  timeText
} from '../study/report';
import { IResultsState, ResultsView } from '../study/results';

const PANDAS = 'cibench_template/pandas/cmp_a';

function humans(over: Partial<IHumanFigures> = {}): IHumanFigures {
  return {
    n: 2,
    passed: 1,
    steps: 2,
    rate: 50,
    ci: [0, 100],
    score: 50,
    quit: 1,
    not_graded: 0,
    time: { n: 2, median: 25, q1: 22.5, q3: 27.5 },
    ...over
  };
}

/** The model run's figures over the task's (and its library's) 3 steps. */
function modelGroup() {
  return {
    tasks: 1,
    steps: 3,
    passed: 2,
    rate: 66.67,
    score: 66.67,
    not_graded: 0
  };
}

function report(mismatch: string[] = []): IComparison {
  return {
    study: 'pilot',
    profile: 'fair',
    runs: [{ run: 'model', player: 'openai:m', mode: 'e2e' }],
    people: 2,
    notes: [
      'profile: fair',
      'who settles a step differs and is not a mismatch'
    ],
    comparability: {
      mismatches: mismatch.length
        ? [
            {
              run: 'model',
              task: PANDAS,
              field: 'turns',
              humans: [null, 3],
              model: 3,
              reason:
                'turn limit: humans turn_cap 0 (no cap), turn_cap 3; model max_turn 3'
            }
          ]
        : [],
      allowed: mismatch.length > 0
    },
    steps: [
      {
        task: PANDAS,
        lib: 'pandas',
        step: 1,
        kind: 'num',
        humans: humans(),
        runs: {
          model: {
            passed: true,
            graded: true,
            score: 100,
            outcome: 'passed',
            turns: 1
          }
        },
        mismatch,
        difficulty: 0.123,
        rank: 3
      }
    ],
    tasks: [
      {
        task: PANDAS,
        steps: 3,
        humans: humans({ passed: 3, steps: 6 }),
        runs: { model: modelGroup() },
        mismatch
      }
    ],
    libraries: [
      {
        lib: 'pandas',
        split: 'cibench_template',
        steps: 3,
        humans: humans({ passed: 3, steps: 6 }),
        runs: { model: modelGroup() },
        mismatch
      }
    ],
    difficulty: {
      method: 'rasch-jml',
      ridge: 0.1,
      converged: true,
      iterations: 12,
      items: [],
      respondents: []
    }
  };
}

describe('the comparison report', () => {
  it('draws the per-step row: people, pass % with CI, time, the run, the rank', () => {
    const table = stepTable(report());
    const head = Array.from(table.querySelectorAll('th')).map(
      th => th.textContent
    );
    expect(head).toEqual([
      'Task',
      'Step',
      'Kind',
      'People',
      'Pass % [95% CI]',
      'Time',
      'model',
      'Difficulty (rank)',
      'Mismatch'
    ]);
    const cells = Array.from(table.querySelectorAll('tbody td')).map(
      td => td.textContent
    );
    expect(cells).toEqual([
      PANDAS,
      '2', // numbered from 1, as the CLI's table
      'num',
      '2 people (+1 quit)',
      '50.0 [0.0–100.0]',
      '25.0 s [22.5–27.5]',
      'passed (100.0)',
      '0.12 (3)',
      ''
    ]);
    expect(table.querySelector('tr[data-mismatch]')).toBeNull();
    const task = table.querySelector('tbody td')!;
    expect(task.querySelectorAll('wbr')).toHaveLength(2); // wraps at the slashes only
    const figures = table.querySelectorAll('tbody td.jp-CIBench-col-num');
    expect(figures).toHaveLength(6); // step, people, pass %, time, the run, difficulty
  });

  it('marks a mismatched row and names it in the last cell', () => {
    const table = stepTable(report(['model: turn limit']));
    const row = table.querySelector('tbody tr')!;
    expect(row.getAttribute('data-mismatch')).toBe('model: turn limit');
    expect(row.lastElementChild!.textContent).toBe('⚠ model: turn limit');
  });

  it('words missing figures as a dash', () => {
    const none = humans({ rate: null, ci: [null, null] });
    none.time = { n: 0, median: null, q1: null, q3: null };
    expect(rateText(none)).toBe('—');
    expect(timeText(none)).toBe('—');
  });

  it('shows a value and its bounds by one rounding rule', () => {
    expect(bounded(8.33, 8.33, 8.33)).toBe('8.3 [8.3–8.3]');
    expect(rateText(humans({ rate: 50, ci: [0, 100] }))).toBe(
      '50.0 [0.0–100.0]'
    );
    expect(bounded(25, 22.5, 27.5, ' s')).toBe('25.0 s [22.5–27.5]');
    expect(bounded(8.3, null, null)).toBe('8.3');
  });

  it('counts one person as a person', () => {
    expect(peopleText(1)).toBe('1 person');
    expect(peopleText(2)).toBe('2 people');
    expect(peopleCell(humans({ n: 1, quit: 0 }))).toBe('1 person');
    expect(peopleCell(humans({ n: 0, quit: 1 }))).toBe('0 people (+1 quit)');
    expect(peopleCell(humans({ n: 0, quit: 0 }))).toBe('not played');
  });

  it('gives every column header a tooltip saying what it holds', () => {
    for (const table of [stepTable(report()), libraryTable(report())]) {
      const heads = Array.from(table.querySelectorAll('th'));
      expect(heads.length).toBeGreaterThan(5);
      for (const th of heads) {
        expect(th.title.length).toBeGreaterThan(15);
      }
    }
    const titles = Array.from(stepTable(report()).querySelectorAll('th')).map(
      th => th.title
    );
    expect(titles[4]).toMatch(/pass rate.*bootstrap.*95%|95%.*bootstrap/);
    expect(titles[5]).toMatch(/median.*quartile/);
    expect(titles[6]).toMatch(/Run model’s score/);
    expect(titles[7]).toMatch(/difficulty estimate/);
  });

  it('shows a step nobody played as not played, never a missing row', () => {
    const rep = report();
    const none = humans({ n: 0, passed: 0, steps: 0, rate: null, quit: 0 });
    none.ci = [null, null];
    none.time = { n: 0, median: null, q1: null, q3: null };
    rep.steps.push({
      ...rep.steps[0],
      task: 'cibench_template/sklearn/cmp_d',
      step: 0,
      humans: none,
      runs: { model: null },
      difficulty: null,
      rank: null
    });
    const rows = stepTable(rep).querySelectorAll('tbody tr');
    expect(rows).toHaveLength(2);
    const cells = Array.from(rows[1].querySelectorAll('td')).map(
      td => td.textContent
    );
    expect(cells.slice(3)).toEqual([
      'not played',
      '—',
      '—',
      'not played',
      '—',
      ''
    ]);
  });

  it('shows a step whose grade measured nothing as not graded, in the table and the CSV', () => {
    const rep = report();
    const step = rep.steps[0];
    step.kind = 'vis';
    step.humans = humans({ passed: 0, steps: 0, rate: null, not_graded: 2 });
    step.humans.ci = [null, null];
    step.runs.model = { ...step.runs.model!, passed: false, graded: false };
    step.runs.model.score = null;
    const cells = Array.from(
      stepTable(rep).querySelectorAll('tbody tr td')
    ).map(td => td.textContent);
    expect(cells.slice(3, 7)).toEqual([
      '2 people (+1 quit)',
      'not graded',
      '25.0 s [22.5–27.5]',
      'not graded'
    ]);
    const lines = reportCsv(rep).trim().split('\r\n');
    expect(lines[1]).toBe(
      `fair,step,${PANDAS},pandas,1,vis,humans,2,0,0,,,,50,25,22.5,27.5,1,2,0.123,3,`
    );
    expect(lines[2]).toBe(
      `fair,step,${PANDAS},pandas,1,vis,model,1,0,0,,,,,,,,,1,0.123,3,`
    );
  });

  it('draws a bar per library and respondent group, a * for a mismatch', () => {
    const bars = libraryBars(report(['model: turn limit']));
    const rects = Array.from(bars.querySelectorAll('rect'));
    expect(rects.map(r => r.querySelector('title')!.textContent)).toEqual([
      'humans: 50.0',
      'model: 66.7'
    ]);
    expect(Number(rects[1].getAttribute('width'))).toBeCloseTo(200.01, 1); // 66.67% of 300 px
    expect(bars.querySelector('text')!.textContent).toBe('pandas *');
    expect(bars.querySelector('line')).not.toBeNull(); // the people's CI
  });

  it('writes a run named like a formula as text (csvcell.ts)', () => {
    const rep = JSON.parse(
      JSON.stringify(report()).replace(/"model"/g, '"=cmd|calc"')
    ) as IComparison;
    const csv = reportCsv(rep);
    expect(csv).toContain(",'=cmd|calc,");
    expect(csv).not.toMatch(/(^|,)=cmd/m);
  });

  it("writes the CLI's CSV columns, one row per section and group", () => {
    const lines = reportCsv(report(['model: turn limit']))
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe(CSV_HEAD.join(','));
    expect(lines).toHaveLength(7);
    expect(lines[2]).toBe(
      `fair,step,${PANDAS},pandas,1,num,model,1,1,1,100,,,100,,,,,0,0.123,3,model: turn limit`
    );
    expect(lines[5]).toBe(
      'fair,library,,pandas,,,humans,2,3,6,50,0,100,50,25,22.5,27.5,1,0,,,model: turn limit'
    );
  });
});

describe('the results view', () => {
  function setUp(compare: StudyApi['compare']) {
    const shown: IResultsState[] = [];
    const lab = new CIBenchModel();
    const model = new StudyModel();
    const api = {
      runs: async () => [
        {
          run: 'model',
          player: 'openai:m',
          mode: 'e2e',
          created_at: '',
          tasks: 2
        }
      ],
      compare
    } as unknown as StudyApi;
    const host = {
      api,
      lab,
      openAttempt: async () => undefined,
      refresh: async () => undefined,
      closeNotebooks: async () => undefined,
      closeTabsExcept: async () => undefined,
      confirm: async () => true,
      reveal: () => undefined,
      showResults: (state: IResultsState) => {
        shown.push(state);
        view.show(state);
      }
    };
    const controller = new StudyController(model, host);
    const view = new ResultsView(controller);
    model.show({ id: 'pilot', title: 'Pilot' } as never);
    return { controller, view, shown, lab };
  }

  it('offers the runs, sends the chosen ones and draws the report', async () => {
    const asked: unknown[] = [];
    const { controller, view, lab, shown } = setUp(async (...args) => {
      asked.push(args);
      return report();
    });
    await controller.results();
    expect(shown).toHaveLength(1); // drawn in the main area: the panel keeps its view
    expect(lab.view).not.toBe('results');
    const box = view.node.querySelector<HTMLInputElement>('input[name="run"]')!;
    expect(view.node.querySelector(`label[for="${box.id}"]`)!.textContent).toBe(
      'model (openai:m, e2e, 2 tasks)'
    );
    box.checked = true;
    view.node
      .querySelector('form')!
      .dispatchEvent(new Event('submit', { cancelable: true }));
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(asked).toEqual([['pilot', ['model'], 'fair', false]]);
    expect(view.node.querySelectorAll('table')).toHaveLength(2);
    const scatter = view.node.querySelector('svg.jp-CIBench-compareScatter')!;
    expect(scatter.querySelectorAll('circle')).toHaveLength(1); // the one step
    expect(scatter.getAttribute('aria-labelledby')).toBe(
      'jp-CIBench-scatter-pilot-title jp-CIBench-scatter-pilot-desc'
    );
    expect(
      view.node.querySelector('.jp-CIBench-compareNotes')!.textContent
    ).toContain('who settles a step differs');
    const again =
      view.node.querySelector<HTMLInputElement>('input[name="run"]')!;
    expect(again.checked).toBe(true); // the choice stays after the redraw
  });

  it("shows the server's refusal of a mismatch in place of a report", async () => {
    const { controller, view, shown } = setUp(async () => {
      throw new ApiError('not comparable: turn limit: humans …; model …', 409);
    });
    await controller.results();
    await controller.compare(['model'], 'fair', false);
    expect(shown[shown.length - 1].refused).toContain(
      'not comparable: turn limit'
    );
    expect(view.node.querySelector('[role="alert"]')!.textContent).toContain(
      'turn limit'
    );
    expect(view.node.querySelector('table')).toBeNull();
    await controller.compare([], 'fair', false);
    expect(shown[shown.length - 1].refused).toBe(
      'Choose at least one run to compare with.'
    );
  });
});
