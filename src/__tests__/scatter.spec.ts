import type { ICompareStep, IComparison } from '../study/api';
import { scatterPoints, timeScatter } from '../study/scatter';

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
