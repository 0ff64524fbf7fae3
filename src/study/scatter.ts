/**
 * The comparison's time-vs-difficulty scatter, as inline SVG: each step's
 * difficulty (Rasch, people and models together) across, the people's median
 * working time up, its quartiles as an error bar — what the CLI draws as
 * `time_vs_difficulty.png` (cli/compare_plots.py). Colours are JupyterLab's
 * CSS variables (style/results.css), so both themes draw it. A title and a
 * description name it; each point's title gives its values; the per-step
 * table beside it is its table fallback. Pure: a report in, an SVG out.
 */
import type { ICompareStep, IComparison } from './api';
import { bounded, fmt } from './report';

const SVG = 'http://www.w3.org/2000/svg';

const PAD = { left: 46, right: 12, top: 10, bottom: 34 };
const WIDTH = 420; // the plot area
const HEIGHT = 220;

/** A step as the scatter draws it (the steps without a median time are left out). */
export interface IScatterPoint {
  label: string;
  difficulty: number;
  median: number;
  q1: number;
  q3: number;
  mismatch: boolean;
}

/** `cmp_a #2` (a `*` for a mismatch), as the CLI's labels. */
export function pointLabel(row: ICompareStep): string {
  const name = row.task.split('/').pop() ?? row.task;
  return `${name} #${row.step + 1}${row.mismatch.length ? ' *' : ''}`;
}

/** The steps with a median working time and a difficulty, as points. */
export function scatterPoints(report: IComparison): IScatterPoint[] {
  const points: IScatterPoint[] = [];
  for (const row of report.steps) {
    const t = row.humans.time;
    if (t.median === null || row.difficulty === null) {
      continue;
    }
    points.push({
      label: pointLabel(row),
      difficulty: row.difficulty,
      median: t.median,
      q1: t.q1 ?? t.median,
      q3: t.q3 ?? t.median,
      mismatch: row.mismatch.length > 0
    });
  }
  return points;
}

/** A linear scale from [lo, hi] (widened when empty) onto [0, size]. */
function scale(lo: number, hi: number, size: number): (v: number) => number {
  const span = hi - lo || 1;
  const from = hi - lo ? lo : lo - 0.5;
  return v => ((v - from) / span) * size;
}

function el<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: { [name: string]: string | number },
  text?: string
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) {
    node.setAttribute(name, String(value));
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

/** The scatter; `id` makes its title's and description's ids unique in the page. */
export function timeScatter(report: IComparison, id: string): SVGSVGElement {
  const points = scatterPoints(report);
  const root = el('svg', {
    class: 'jp-CIBench-compareScatter',
    viewBox: `0 0 ${PAD.left + WIDTH + PAD.right} ${PAD.top + HEIGHT + PAD.bottom}`,
    role: 'img',
    'aria-labelledby': `${id}-title ${id}-desc`
  });
  root.append(
    el('title', { id: `${id}-title` }, 'Working time vs step difficulty'),
    el('desc', { id: `${id}-desc` }, describe(report, points))
  );
  const xs = points.map(p => p.difficulty);
  const ys = [0, ...points.map(p => p.q3), ...points.map(p => p.q1)];
  const x = scale(Math.min(...xs, 0), Math.max(...xs, 0), WIDTH);
  const y = scale(0, Math.max(...ys, 1), HEIGHT);
  const at = (d: number, s: number) => ({
    cx: PAD.left + x(d),
    cy: PAD.top + HEIGHT - y(s)
  });
  root.append(...axes(Math.max(...ys, 1)));
  for (const p of points) {
    root.appendChild(point(p, at));
  }
  return root;
}

/** The description: what is drawn and where the numbers are. */
function describe(report: IComparison, points: IScatterPoint[]): string {
  const left = report.steps.length - points.length;
  const without = left
    ? ` (${left} without a working time or a difficulty left out)`
    : '';
  return (
    `Each step's difficulty (Rasch, people and models together; larger is harder) across, ` +
    `the people's median working time in seconds up, its quartiles as a bar: ` +
    `${points.length} step${points.length === 1 ? '' : 's'}${without}. ` +
    'The per-step table lists the same values.'
  );
}

/** The axes with their labels and the time axis' top value. */
function axes(top: number): SVGElement[] {
  const x0 = PAD.left;
  const y0 = PAD.top + HEIGHT;
  const cls = { class: 'jp-CIBench-scatterAxis' };
  const text = { class: 'jp-CIBench-scatterText' };
  return [
    el('line', { ...cls, x1: x0, x2: x0 + WIDTH, y1: y0, y2: y0 }),
    el('line', { ...cls, x1: x0, x2: x0, y1: PAD.top, y2: y0 }),
    el('text', { ...text, x: x0 - 4, y: y0, 'text-anchor': 'end' }, '0 s'),
    el(
      'text',
      { ...text, x: x0 - 4, y: PAD.top + 8, 'text-anchor': 'end' },
      `${fmt(top)} s`
    ),
    el(
      'text',
      { ...text, x: x0 + WIDTH / 2, y: y0 + 26, 'text-anchor': 'middle' },
      'step difficulty (larger is harder)'
    )
  ];
}

/** One step: its IQR bar, its dot (its values as a title) and its label. */
function point(
  p: IScatterPoint,
  at: (d: number, s: number) => { cx: number; cy: number }
): SVGElement {
  const { cx, cy } = at(p.difficulty, p.median);
  const g = el('g', {
    class: `jp-CIBench-scatterPoint${p.mismatch ? ' jp-mod-mismatch' : ''}`
  });
  const lo = at(p.difficulty, p.q1).cy;
  const hi = at(p.difficulty, p.q3).cy;
  g.append(
    el('title', {}, pointTitle(p)),
    el('line', {
      class: 'jp-CIBench-scatterIQR',
      x1: cx,
      x2: cx,
      y1: lo,
      y2: hi
    }),
    el('circle', { class: 'jp-CIBench-scatterDot', cx, cy, r: 3.5 }),
    el(
      'text',
      { class: 'jp-CIBench-scatterText', x: cx + 5, y: cy - 4 },
      p.label
    )
  );
  return g;
}

/** `cmp_a #2: difficulty 0.12, 25.0 s [22.5–27.5]`. */
export function pointTitle(p: IScatterPoint): string {
  return (
    `${p.label}: difficulty ${p.difficulty.toFixed(2)}, ` +
    bounded(p.median, p.q1, p.q3, ' s')
  );
}
