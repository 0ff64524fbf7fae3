/**
 * The comparison's time-vs-difficulty scatter, as inline SVG: each step's
 * difficulty (Rasch, people and models together) across, the people's median
 * working time up, its quartiles as an error bar, both axes with round tick
 * values — what the CLI draws as `time_vs_difficulty.png`
 * (cli/compare_plots.py). Steps tied at one point (the same difficulty and
 * median, as the tables round them) are one point labelled `cmp_a #1 +8 tied`;
 * each label sits beside its point clear of the others (placing.ts), and the
 * "Tied points" table below lists the tied steps (and any point whose label
 * found no room). Colours are JupyterLab's CSS variables (style/results.css),
 * so both themes draw it. A title and a description name it; each point's
 * title gives its values; the per-step table is its table fallback. Pure: a
 * report in, an SVG (or tables) out.
 */
import { h } from '../panel/dom';
import type { ICompareStep, IComparison } from './api';
import { bounded, fmt } from './report';
import { IBox, IPlaced, niceTicks, placeLabels, tickText } from './placing';
import { trans } from '../i18n';

const SVG = 'http://www.w3.org/2000/svg';

const PAD = { left: 68, right: 16, top: 12, bottom: 46 };
const WIDTH = 640; // the plot area
const HEIGHT = 300;
/** The chart's text size (px; the SVG is drawn at its own size, so these are screen px). */
export const FONT = 11;
const DOT = 3.5;

/** A step as the scatter draws it (the steps without a median time are left out). */
export interface IScatterPoint {
  label: string;
  difficulty: number;
  median: number;
  q1: number;
  q3: number;
  mismatch: boolean;
}

/** Steps at one point: the first step's label for them all. */
interface IGroup {
  points: IScatterPoint[];
  cx: number;
  cy: number;
  label: string;
  placed: IPlaced | null;
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

/** The points grouped by where they are drawn: the same difficulty and median, as rounded. */
function tied(points: IScatterPoint[]): IScatterPoint[][] {
  const groups = new Map<string, IScatterPoint[]>();
  for (const p of points) {
    const key = `${p.difficulty.toFixed(2)} ${fmt(p.median)} ${fmt(p.q1)} ${fmt(p.q3)}`;
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  return [...groups.values()];
}

/** The axes' ticks and scales, the groups at their places, their labels placed. */
function layout(report: IComparison) {
  const points = scatterPoints(report);
  const xTicks = niceTicks(
    Math.min(...points.map(p => p.difficulty), 0),
    Math.max(...points.map(p => p.difficulty), 0),
    6
  );
  const yTicks = niceTicks(0, Math.max(...points.map(p => p.q3), 1));
  const x = scale(xTicks, WIDTH);
  const y = scale(yTicks, HEIGHT);
  const at: At = (d, s) => ({
    cx: PAD.left + x(d),
    cy: PAD.top + HEIGHT - y(s)
  });
  const groups: IGroup[] = tied(points).map(ps => ({
    points: ps,
    ...at(ps[0].difficulty, ps[0].median),
    label:
      ps[0].label + (ps.length > 1 ? trans.__(' +%1 tied', ps.length - 1) : ''),
    placed: null
  }));
  placeAll(groups, at);
  return { points, groups, xTicks, yTicks, at };
}

/** Each group's label placed clear of the others, of every dot and IQR bar (the tied first). */
function placeAll(groups: IGroup[], at: At): void {
  const dots: IBox[] = groups.map(g => ({
    x: g.cx - DOT - 1,
    y: g.cy - DOT - 1,
    w: 2 * DOT + 2,
    h: 2 * DOT + 2
  }));
  const bars: IBox[] = groups.map(g => {
    const p = g.points[0];
    const top = at(p.difficulty, p.q3).cy;
    return { x: g.cx - 1, y: top, w: 2, h: at(p.difficulty, p.q1).cy - top };
  });
  const order = [...groups].sort((a, b) => b.points.length - a.points.length);
  const placed = placeLabels(
    order.map(g => ({ cx: g.cx, cy: g.cy, text: g.label })),
    FONT,
    { x: PAD.left, y: PAD.top, w: WIDTH, h: HEIGHT },
    [...dots, ...bars]
  );
  order.forEach((g, i) => (g.placed = placed[i]));
}

/** A linear scale from the ticks' span onto [0, size]. */
function scale(ticks: number[], size: number): (v: number) => number {
  const lo = ticks[0];
  const span = ticks[ticks.length - 1] - lo || 1;
  return v => ((v - lo) / span) * size;
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
  const { points, groups, xTicks, yTicks, at } = layout(report);
  const width = PAD.left + WIDTH + PAD.right;
  const height = PAD.top + HEIGHT + PAD.bottom;
  const root = el('svg', {
    class: 'jp-CIBench-compareScatter',
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    'font-size': FONT,
    role: 'img',
    'aria-labelledby': `${id}-title ${id}-desc`
  });
  root.append(
    el(
      'title',
      { id: `${id}-title` },
      trans.__('Working time vs step difficulty')
    ),
    el('desc', { id: `${id}-desc` }, describe(report, points, groups)),
    ...axes(xTicks, yTicks, at)
  );
  for (const g of groups) {
    root.appendChild(point(g, at));
  }
  return root;
}

/** The description: what is drawn and where the numbers are. */
function describe(
  report: IComparison,
  points: IScatterPoint[],
  groups: IGroup[]
): string {
  const left = report.steps.length - points.length;
  const without = left
    ? trans.__(' (%1 without a working time or a difficulty left out)', left)
    : '';
  const ties = groups.some(g => g.points.length > 1)
    ? trans.__(
        ' Steps tied at one point are one point, listed in the tied points table.'
      )
    : '';
  return trans._n(
    "Each step's difficulty (Rasch, people and models together; larger is harder) across, the people's median working time in seconds up, its quartiles as a bar: %1 step%2.%3 The per-step table lists the same values.",
    "Each step's difficulty (Rasch, people and models together; larger is harder) across, the people's median working time in seconds up, its quartiles as a bar: %1 steps%2.%3 The per-step table lists the same values.",
    points.length,
    without,
    ties
  );
}

type At = (d: number, s: number) => { cx: number; cy: number };

const AXIS = { class: 'jp-CIBench-scatterAxis' };
const TEXT = 'jp-CIBench-scatterText';

/** The axes, their tick marks and values, and their titles. */
function axes(xTicks: number[], yTicks: number[], at: At): SVGElement[] {
  const x0 = PAD.left;
  const y0 = PAD.top + HEIGHT;
  const out: SVGElement[] = [
    el('line', { ...AXIS, x1: x0, x2: x0 + WIDTH, y1: y0, y2: y0 }),
    el('line', { ...AXIS, x1: x0, x2: x0, y1: PAD.top, y2: y0 })
  ];
  for (const v of xTicks) {
    const { cx } = at(v, 0);
    out.push(
      el('line', { ...AXIS, x1: cx, x2: cx, y1: y0, y2: y0 + 4 }),
      tick('x', cx, y0 + 4 + FONT, 'middle', tickText(v, xTicks))
    );
  }
  for (const v of yTicks) {
    const { cy } = at(xTicks[0], v);
    out.push(
      el('line', { ...AXIS, x1: x0 - 4, x2: x0, y1: cy, y2: cy }),
      tick('y', x0 - 6, cy + FONT * 0.35, 'end', `${tickText(v, yTicks)} s`)
    );
  }
  return [...out, ...axisTitles()];
}

function tick(
  axis: 'x' | 'y',
  x: number,
  y: number,
  anchor: string,
  text: string
): SVGElement {
  const attrs = { x, y, 'text-anchor': anchor, 'data-axis': axis };
  return el(
    'text',
    { class: `${TEXT} jp-CIBench-scatterTick`, ...attrs },
    text
  );
}

/** What each axis holds, across below it and up beside it. */
function axisTitles(): SVGElement[] {
  const middle = PAD.top + HEIGHT / 2;
  return [
    el(
      'text',
      {
        class: TEXT,
        x: PAD.left + WIDTH / 2,
        y: PAD.top + HEIGHT + 4 + FONT * 2 + 8,
        'text-anchor': 'middle'
      },
      trans.__('step difficulty (Rasch, people and models; larger is harder)')
    ),
    el(
      'text',
      {
        class: TEXT,
        x: FONT,
        y: middle,
        'text-anchor': 'middle',
        transform: `rotate(-90 ${FONT} ${middle})`
      },
      trans.__("people's working time (median, IQR)")
    )
  ];
}

/** One point (its steps' IQR bars, its dot, all its steps' values as a title) and its label. */
function point(g: IGroup, at: At): SVGElement {
  const mismatch = g.points.some(p => p.mismatch);
  const node = el('g', {
    class: `jp-CIBench-scatterPoint${mismatch ? ' jp-mod-mismatch' : ''}`
  });
  const p = g.points[0];
  node.append(
    el('title', {}, groupTitle(g.points)),
    el('line', {
      class: 'jp-CIBench-scatterIQR',
      x1: g.cx,
      x2: g.cx,
      y1: at(p.difficulty, p.q1).cy,
      y2: at(p.difficulty, p.q3).cy
    }),
    el('circle', { class: 'jp-CIBench-scatterDot', cx: g.cx, cy: g.cy, r: DOT })
  );
  if (g.placed) {
    const { x, y, anchor } = g.placed;
    node.appendChild(
      el(
        'text',
        { class: 'jp-CIBench-scatterText', x, y, 'text-anchor': anchor },
        g.label
      )
    );
  }
  return node;
}

/** `cmp_a #2: difficulty 0.12, 25.0 s [22.5–27.5]`. */
export function pointTitle(p: IScatterPoint): string {
  return (
    trans.__('%1: difficulty %2, ', p.label, p.difficulty.toFixed(2)) +
    bounded(p.median, p.q1, p.q3, ' s')
  );
}

/** A point's title: its step's values, or its tied steps' names and their one set of values. */
function groupTitle(points: IScatterPoint[]): string {
  if (points.length === 1) {
    return pointTitle(points[0]);
  }
  const names = points.map(p => p.label).join(', ');
  return pointTitle({
    ...points[0],
    label: trans.__('%1 (%2 tied)', names, points.length)
  });
}

/**
 * The tables below the scatter: "Tied points" (the steps each tied point
 * stands for) and "Points without a label" (a label that found no room);
 * none when there is nothing to list.
 */
export function scatterTables(report: IComparison): HTMLTableElement[] {
  const { groups } = layout(report);
  const ties = groups.filter(g => g.points.length > 1);
  const bare = groups.filter(g => !g.placed && g.points.length === 1);
  return [
    ties.length ? pointsTable(trans.__('Tied points'), ties) : null,
    bare.length ? pointsTable(trans.__('Points without a label'), bare) : null
  ].filter((t): t is HTMLTableElement => t !== null);
}

/** The points tables' columns: text and tooltip. */
function pointColumns(): [string, string][] {
  return [
    [
      trans.__('Difficulty'),
      trans.__(
        'The difficulty estimate of the steps at this point (Rasch; larger is harder)'
      )
    ],
    [
      trans.__('Time'),
      trans.__(
        "The people's median working time at these steps [first–third quartile]"
      )
    ],
    [trans.__('Steps'), trans.__('The steps drawn at this point (task #step)')]
  ];
}

function pointsTable(caption: string, groups: IGroup[]): HTMLTableElement {
  const head = pointColumns().map(([text, title]) =>
    h('th', { text, attrs: { scope: 'col', title } })
  );
  return h(
    'table',
    { className: 'jp-CIBench-compareTable jp-CIBench-pointsTable' },
    h('caption', { text: caption }),
    h('thead', {}, h('tr', {}, ...head)),
    h('tbody', {}, ...groups.map(pointRow))
  );
}

/** A point's row: its difficulty, its steps' time, its steps. */
function pointRow(g: IGroup): HTMLElement {
  const p = g.points[0];
  const num = 'jp-CIBench-col-num';
  return h(
    'tr',
    {},
    h('td', { className: num, text: p.difficulty.toFixed(2) }),
    h('td', { className: num, text: bounded(p.median, p.q1, p.q3, ' s') }),
    h('td', { text: g.points.map(q => q.label).join(', ') })
  );
}
