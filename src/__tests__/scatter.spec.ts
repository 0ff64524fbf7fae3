import type { ICompareStep, IComparison } from '../study/api';
import { niceTicks, overlaps, placeLabels, tickText } from '../study/placing';
import { scatterPoints, scatterTables, timeScatter } from '../study/scatter';

function step(
  task: string,
  index: number,
  difficulty: number,
  time: [number, number, number] | null,
  mismatch: string[] = []
): ICompareStep {
  const [q1, median, q3] = time ?? [null, null, null];
  return {
    task,
    lib: 'pandas',
    step: index,
    kind: 'num',
    humans: {
      n: 2,
      passed: 1,
      steps: 2,
      rate: 50,
      ci: [0, 100],
      score: 50,
      quit: 0,
      not_graded: 0,
      time: { n: time ? 2 : 0, median, q1, q3 }
    },
    runs: {},
    mismatch,
    difficulty,
    rank: 1
  };
}

function report(steps: ICompareStep[]): IComparison {
  return { study: 'pilot', steps } as unknown as IComparison;
}

const STEPS = [
  step('cibench_template/pandas/cmp_a', 0, -1, [10, 20, 30]),
  step('cibench_template/pandas/cmp_a', 1, 2, [40, 60, 80], ['model: turns']),
  step('cibench_template/nltk/cmp_b', 0, 0.5, null)
];

describe('the time-vs-difficulty scatter', () => {
  it('has a title and a description naming what it draws', () => {
    const svg = timeScatter(report(STEPS), 'sc');
    expect(svg.getAttribute('role')).toBe('img');
    expect(svg.getAttribute('aria-labelledby')).toBe('sc-title sc-desc');
    expect(svg.querySelector('#sc-title')!.textContent).toBe(
      'Working time vs step difficulty'
    );
    const desc = svg.querySelector('#sc-desc')!.textContent!;
    expect(desc).toContain(
      '2 steps (1 without a working time or a difficulty left out)'
    );
    expect(desc).toContain('The per-step table lists the same values.');
  });

  it('draws a point per step with a time, its values as its title', () => {
    const svg = timeScatter(report(STEPS), 'sc');
    const points = Array.from(
      svg.querySelectorAll('g.jp-CIBench-scatterPoint')
    );
    expect(points.map(g => g.querySelector('title')!.textContent)).toEqual([
      'cmp_a #1: difficulty -1.00, 20.0 s [10.0–30.0]',
      'cmp_a #2 *: difficulty 2.00, 60.0 s [40.0–80.0]'
    ]);
    expect(points[1].classList.contains('jp-mod-mismatch')).toBe(true);
    expect(points[0].classList.contains('jp-mod-mismatch')).toBe(false);
  });

  it('puts harder steps to the right and longer times higher, the IQR as a bar', () => {
    const svg = timeScatter(report(STEPS), 'sc');
    const dots = Array.from(svg.querySelectorAll('circle')).map(c => ({
      x: Number(c.getAttribute('cx')),
      y: Number(c.getAttribute('cy'))
    }));
    expect(dots[1].x).toBeGreaterThan(dots[0].x);
    expect(dots[1].y).toBeLessThan(dots[0].y); // SVG's y grows downwards
    const bar = svg.querySelectorAll('line.jp-CIBench-scatterIQR')[1];
    const [lo, hi] = [bar.getAttribute('y1'), bar.getAttribute('y2')].map(
      Number
    );
    expect(lo).toBeGreaterThan(dots[1].y); // q1 below the median
    expect(hi).toBeLessThan(dots[1].y); // q3 above it
  });

  it('leaves out the steps without a working time', () => {
    expect(scatterPoints(report(STEPS)).map(p => p.label)).toEqual([
      'cmp_a #1',
      'cmp_a #2 *'
    ]);
    const none = timeScatter(report([STEPS[2]]), 'sc');
    expect(none.querySelectorAll('circle')).toHaveLength(0);
    expect(none.querySelector('desc')!.textContent).toContain('0 steps');
  });
});

describe('the scatter keeps its text readable', () => {
  const TIES = [
    ...Array.from({ length: 9 }, (_, i) =>
      step('cibench_template/sklearn/cmp_many', i, 1.45, [30, 30, 30])
    ),
    step('cibench_template/pandas/cmp_a', 0, -3.86, [22.5, 25, 27.5]),
    step('cibench_template/pandas/cmp_a', 2, 1.45, [70, 80, 90])
  ];

  it('has round tick values on both axes, covering the points', () => {
    const svg = timeScatter(report(TIES), 'sc');
    const ticks = (axis: string) =>
      Array.from(
        svg.querySelectorAll(`.jp-CIBench-scatterTick[data-axis="${axis}"]`)
      ).map(t => t.textContent);
    expect(ticks('x')).toEqual(['-4', '-3', '-2', '-1', '0', '1', '2']);
    expect(ticks('y')).toEqual([
      '0 s',
      '20 s',
      '40 s',
      '60 s',
      '80 s',
      '100 s'
    ]);
  });

  it('draws steps tied at one point as one labelled point and lists them', () => {
    const svg = timeScatter(report(TIES), 'sc');
    const points = Array.from(
      svg.querySelectorAll('g.jp-CIBench-scatterPoint')
    );
    expect(points).toHaveLength(3);
    const labels = points.map(g => g.querySelector('text')?.textContent);
    expect(labels).toContain('cmp_many #1 +8 tied');
    expect(
      points.find(g => g.textContent!.includes('tied'))!.querySelector('title')!
        .textContent
    ).toBe(
      'cmp_many #1, cmp_many #2, cmp_many #3, cmp_many #4, cmp_many #5, cmp_many #6, ' +
        'cmp_many #7, cmp_many #8, cmp_many #9 (9 tied): difficulty 1.45, 30.0 s [30.0–30.0]'
    );
    const [table] = scatterTables(report(TIES));
    expect(table.querySelector('caption')!.textContent).toBe('Tied points');
    const cells = Array.from(table.querySelectorAll('tbody td')).map(
      td => td.textContent
    );
    expect(cells).toEqual([
      '1.45',
      '30.0 s [30.0–30.0]',
      Array.from({ length: 9 }, (_, i) => `cmp_many #${i + 1}`).join(', ')
    ]);
    expect(scatterTables(report(STEPS))).toEqual([]); // nothing tied, every label placed
  });

  it('places the labels inside the plot, clear of one another and of the points', () => {
    const crowd = Array.from({ length: 12 }, (_, i) =>
      step('cibench_template/pandas/a_rather_long_task_name', i, 1 + i * 0.01, [
        40,
        50 + i,
        60
      ])
    );
    const placed = placeLabels(
      crowd.map((_, i) => ({ cx: 300 + i, cy: 100 + i, text: `label ${i}` })),
      11,
      { x: 0, y: 0, w: 640, h: 300 },
      [{ x: 295, y: 95, w: 20, h: 20 }]
    );
    const boxes = placed.filter(p => p !== null).map(p => p!.box);
    expect(boxes.length).toBeGreaterThan(6);
    boxes.forEach((a, i) =>
      boxes.slice(i + 1).forEach(b => expect(overlaps(a, b)).toBe(false))
    );
    boxes.forEach(b =>
      expect(overlaps(b, { x: 295, y: 95, w: 20, h: 20 })).toBe(false)
    );
    expect(placed.some(p => p === null)).toBe(true); // no room left: listed, not drawn over
    expect(
      scatterTables(report(crowd)).map(
        t => t.querySelector('caption')!.textContent
      )
    ).toEqual(['Points without a label']);
  });

  it('rounds ticks to 1, 2 or 5 times a power of ten', () => {
    expect(niceTicks(-3.86, 1.45, 6)).toEqual([-4, -3, -2, -1, 0, 1, 2]);
    expect(niceTicks(0, 0.3)).toEqual([0, 0.1, 0.2, 0.3]);
    expect(tickText(0.1, [0, 0.1])).toBe('0.1');
  });
});
