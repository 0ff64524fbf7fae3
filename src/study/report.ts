/**
 * The comparison report (`GET studies/{id}/compare`) drawn as DOM: the
 * per-step and per-library tables, the people's pass rate per library beside
 * each run's as inline SVG bars, the notes and mismatches, and the CSV a
 * researcher downloads (the columns of `report --compare --format csv`).
 * Pure: a report in, nodes or text out.
 */
import { csvCell } from '../csvcell';
import { h } from '../panel/dom';
import { IColumn, libraryColumns, stepColumns } from './columns';
import { textWidth } from './placing';
import type {
  ICompareLibrary,
  ICompareStep,
  IComparison,
  IHumanFigures
} from './api';
import { trans } from '../i18n';

const SVG = 'http://www.w3.org/2000/svg';

/** A missing figure. */
export const MISSING = '—';
export const NOT_PLAYED = 'not played';
/** A step whose grade measured nothing: neither passed nor missed. */
export const NOT_GRADED = 'not graded';

/**
 * The report's one rounding rule (as the CLI's, grading/bounds.py): a value
 * and its bounds at one decimal, `8.3 [8.3–8.3]`; `—` without a value.
 */
export function bounded(
  value: number | null,
  lo: number | null,
  hi: number | null,
  unit = ''
): string {
  if (value === null) {
    return MISSING;
  }
  const bounds = lo === null || hi === null ? '' : ` [${fmt(lo)}–${fmt(hi)}]`;
  return `${fmt(value)}${unit}${bounds}`;
}

/** A figure at the report's precision (one decimal). */
export function fmt(x: number): string {
  return x.toFixed(1);
}

/** `1 person`, `2 people`. */
export function peopleText(n: number): string {
  return trans._n('%1 person', '%1 people', n);
}

/** `2 people (+1 quit)`; `not played` when nobody counted or quit. */
export function peopleCell(h: IHumanFigures): string {
  if (!h.n && !h.quit) {
    return notPlayed();
  }
  return peopleText(h.n) + (h.quit ? trans.__(' (+%1 quit)', h.quit) : '');
}

/** NOT_PLAYED in the person's language. */
function notPlayed(): string {
  return trans.__('not played');
}

/** NOT_GRADED in the person's language. */
function notGraded(): string {
  return trans.__('not graded');
}

/**
 * `50.0 [0.0–100.0]`: a pass rate x100 with its CI; `not graded` when every
 * result counted was; `—` without one.
 */
export function rateText(h: IHumanFigures): string {
  if (!h.steps && h.not_graded) {
    return notGraded();
  }
  return bounded(h.rate, h.ci[0], h.ci[1]);
}

/** `25.0 s [22.5–27.5]`: the median working time with its quartiles. */
export function timeText(h: IHumanFigures): string {
  return bounded(h.time.median, h.time.q1, h.time.q3, ' s');
}

/**
 * A run's step result in words: `passed (100.0)` / `missed (0.0)` /
 * `not graded` / `not played`.
 */
export function stepRunText(row: ICompareStep, run: string): string {
  const got = row.runs[run];
  if (!got) {
    return notPlayed();
  }
  if (!got.graded) {
    return notGraded();
  }
  const score = got.score === null ? '' : ` (${fmt(got.score)})`;
  return `${got.passed ? trans.__('passed') : trans.__('missed')}${score}`;
}

/** A task id that may wrap after each `/` (a `<wbr>`), never inside a name. */
function breakable(id: string): (string | HTMLElement)[] {
  const out: (string | HTMLElement)[] = [];
  const parts = id.split('/');
  parts.forEach((part, i) => {
    out.push(i < parts.length - 1 ? `${part}/` : part);
    if (i < parts.length - 1) {
      out.push(h('wbr'));
    }
  });
  return out;
}

function table(
  caption: string,
  head: IColumn[],
  rows: { cells: string[]; mismatch: string[] }[]
): HTMLTableElement {
  const cls = (c: IColumn) => (c.kind ? `jp-CIBench-col-${c.kind}` : '');
  const headRow = h(
    'tr',
    {},
    ...head.map(c =>
      h('th', {
        text: c.text,
        className: cls(c),
        attrs: { scope: 'col', title: c.title }
      })
    )
  );
  const body = rows.map(({ cells, mismatch }) => {
    const tds = cells.map((text, i) =>
      head[i].kind === 'id'
        ? h('td', { className: cls(head[i]) }, ...breakable(text))
        : h('td', { text, className: cls(head[i]) })
    );
    const tr = h('tr', {}, ...tds);
    if (mismatch.length) {
      tr.setAttribute('data-mismatch', mismatch.join('; '));
      tr.title = trans.__('NOT COMPARABLE: %1', mismatch.join('; '));
    }
    return tr;
  });
  return h(
    'table',
    { className: 'jp-CIBench-compareTable' },
    h('caption', { text: caption }),
    h('thead', {}, headRow),
    h('tbody', {}, ...body)
  );
}

function mark(mismatch: string[]): string {
  return mismatch.length ? `⚠ ${mismatch.join('; ')}` : '';
}

/** `0.12 (3)`: a step's difficulty and rank; `—` for a step nobody played. */
export function difficultyText(row: ICompareStep): string {
  return row.difficulty === null
    ? MISSING
    : `${row.difficulty.toFixed(2)} (${row.rank})`;
}

/** Per step: people n, pass % with CI, time median [IQR], each run, difficulty rank. */
export function stepTable(report: IComparison): HTMLTableElement {
  const runs = report.runs.map(r => r.run);
  const rows = report.steps.map(row => ({
    cells: [
      row.task,
      String(row.step + 1),
      row.kind,
      peopleCell(row.humans),
      rateText(row.humans),
      timeText(row.humans),
      ...runs.map(run => stepRunText(row, run)),
      difficultyText(row),
      mark(row.mismatch)
    ],
    mismatch: row.mismatch
  }));
  return table(trans.__('Per step'), stepColumns(runs), rows);
}

/** Per library: steps, the people's pass % with CI and time, each run's rate. */
export function libraryTable(report: IComparison): HTMLTableElement {
  const runs = report.runs.map(r => r.run);
  const rows = report.libraries.map((row: ICompareLibrary) => ({
    cells: [
      row.lib,
      String(row.steps),
      peopleCell(row.humans),
      rateText(row.humans),
      timeText(row.humans),
      ...runs.map(run => {
        const got = row.runs[run];
        if (!got?.tasks) {
          return notPlayed();
        }
        return got.rate === null
          ? MISSING
          : `${fmt(got.rate)} (${got.passed}/${got.steps})`;
      }),
      mark(row.mismatch)
    ],
    mismatch: row.mismatch
  }));
  return table(trans.__('Per library'), libraryColumns(runs), rows);
}

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: { [name: string]: string | number }
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) {
    el.setAttribute(name, String(value));
  }
  return el;
}

const BAR = 14; // px per bar
const WIDTH = 300; // 100% of a bar
const GAP = 8; // between a label and its bar, a bar and its value
const FONT = 11; // the bars' text size (px: the SVG is drawn at its own size)

/** The bars' geometry: the labels' column and the values' room, measured. */
interface IBarLayout {
  left: number;
  right: number;
}

/**
 * The people's pass rate per library (its CI as a line) beside each run's, as
 * horizontal bars 0–100; a `*` marks a library with a mismatch. The labels'
 * column and the room right of a full bar are as wide as their longest text.
 */
export function libraryBars(report: IComparison): SVGSVGElement {
  const who = ['humans', ...report.runs.map(r => r.run)];
  const group = BAR * who.length + 10;
  const height = group * report.libraries.length + 10;
  const at = barLayout(report, who);
  const width = at.left + WIDTH + at.right;
  const root = svg('svg', {
    class: 'jp-CIBench-compareBars',
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    'font-size': FONT,
    role: 'img',
    'aria-label': trans.__('Pass rate per library: people beside each run')
  });
  report.libraries.forEach((row, i) => {
    const y0 = i * group + 5;
    const label = svg('text', {
      x: 0,
      y: y0 + BAR - 3,
      class: 'jp-CIBench-barLabel'
    });
    label.textContent = libLabel(row);
    root.appendChild(label);
    const [lo, hi] = row.humans.ci;
    who.forEach((name, j) => {
      const past = name === 'humans' && hi !== null ? hi : 0; // the value clears the CI line
      root.append(...oneBar(name, rateOf(row, name), y0 + j * BAR, at, past));
    });
    if (lo !== null && hi !== null) {
      root.appendChild(ciLine(lo, hi, y0 + BAR / 2, at));
    }
  });
  return root;
}

/** The labels' column and the room right of a full bar: their longest text's width, measured. */
function barLayout(report: IComparison, who: string[]): IBarLayout {
  const values: string[] = [];
  report.libraries.forEach(row =>
    who.forEach(name => values.push(valueText(name, rateOf(row, name))))
  );
  const widest = (texts: string[]) =>
    Math.max(0, ...texts.map(t => textWidth(t, FONT)));
  return {
    left: widest(report.libraries.map(libLabel)) + GAP,
    right: widest(values) + GAP
  };
}

function libLabel(row: ICompareLibrary): string {
  return `${row.lib}${row.mismatch.length ? ' *' : ''}`;
}

function rateOf(row: ICompareLibrary, name: string): number | null {
  return name === 'humans' ? row.humans.rate : (row.runs[name]?.rate ?? null);
}

/** A bar's value: `people 50.0`, `ref-e2e 66.7`, `ref-e2e —`. */
function valueText(name: string, rate: number | null): string {
  const who = name === 'humans' ? trans.__('people') : name;
  return `${who} ${rate === null ? MISSING : fmt(rate)}`;
}

/** One respondent group's bar (its value as a title) and its value, right of the bar and of `past` (%). */
function oneBar(
  name: string,
  rate: number | null,
  y: number,
  at: IBarLayout,
  past: number
): SVGElement[] {
  const people = name === 'humans';
  const length = ((rate ?? 0) * WIDTH) / 100;
  const rect = svg('rect', {
    x: at.left,
    y: y + 1,
    width: length,
    height: BAR - 2,
    class: `jp-CIBench-bar jp-CIBench-bar-${people ? 'humans' : 'run'}`
  });
  const title = svg('title', {});
  const who = name === 'humans' ? trans.__('humans') : name;
  title.textContent = `${who}: ${rate === null ? notPlayed() : fmt(rate)}`;
  rect.appendChild(title);
  const value = svg('text', {
    x: at.left + (Math.max(rate ?? 0, past) * WIDTH) / 100 + GAP / 2,
    y: y + BAR - 3,
    class: 'jp-CIBench-barValue'
  });
  value.textContent = valueText(name, rate);
  return [rect, value];
}

function ciLine(lo: number, hi: number, y: number, at: IBarLayout): SVGElement {
  return svg('line', {
    x1: at.left + (lo * WIDTH) / 100,
    x2: at.left + (hi * WIDTH) / 100,
    y1: y,
    y2: y,
    class: 'jp-CIBench-barCI'
  });
}

/** The notes, then one line per mismatch (both values named). */
export function notesList(report: IComparison): HTMLElement {
  const mismatches = report.comparability.mismatches.map(m =>
    h('li', {
      className: 'jp-CIBench-compareMismatch',
      text: trans.__(
        'NOT COMPARABLE: run %1, task %2: %3',
        m.run,
        m.task,
        m.reason
      )
    })
  );
  return h(
    'ul',
    {
      className: 'jp-CIBench-compareNotes',
      attrs: { 'aria-label': trans.__('Notes') }
    },
    ...mismatches,
    ...report.notes.map(text => h('li', { text }))
  );
}

/** The CLI's CSV columns (`report --compare --format csv`). */
export const CSV_HEAD = [
  'profile', 'section', 'task', 'lib', 'step', 'kind', 'who', 'n', 'passed', 'steps', 'rate',
  'ci_lo', 'ci_hi', 'score', 'time_median', 'time_q1', 'time_q3', 'quit', 'not_graded',
  'difficulty', 'rank', 'mismatch'
]; // prettier-ignore

type Cell = string | number | boolean | null | undefined;
type AnyRow = {
  task?: string;
  lib?: string;
  step?: number;
  kind?: string;
  difficulty?: number | null;
  rank?: number | null;
  humans: IHumanFigures;
  runs: { [run: string]: unknown };
  mismatch: string[];
};

/** Long format, as the CLI writes it: per section, row and respondent group. */
export function reportCsv(report: IComparison): string {
  const out: Cell[][] = [CSV_HEAD];
  const sections: [string, AnyRow[]][] = [
    ['step', report.steps],
    ['task', report.tasks],
    ['library', report.libraries]
  ];
  for (const [section, rows] of sections) {
    for (const row of rows) {
      out.push(...csvGroup(report.profile, section, row));
    }
  }
  return out.map(cells => cells.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

function csvGroup(profile: string, section: string, row: AnyRow): Cell[][] {
  const where = [profile, section, row.task, row.lib, row.step, row.kind];
  const tail = [row.difficulty, row.rank];
  const hu = row.humans;
  const t = hu.time;
  const lines: Cell[][] = [
    [...where, 'humans', hu.n, hu.passed, hu.steps, hu.rate, hu.ci[0], hu.ci[1], hu.score,
     t.median, t.q1, t.q3, hu.quit, hu.not_graded, ...tail, row.mismatch.join('; ')]
  ]; // prettier-ignore
  for (const [run, value] of Object.entries(row.runs)) {
    const marks = row.mismatch.filter(m => m.startsWith(`${run}: `)).join('; ');
    const blank = ['', '', '', ''];
    const got = value as { [k: string]: Cell } | null;
    if (!got) {
      lines.push([...where, run, 0, '', '', '', '', '', '', ...blank, '', ...tail, marks]);
    } else if (section === 'step' && !got.graded) {
      lines.push([...where, run, 1, 0, 0, '', '', '', got.score, ...blank, 1, ...tail, marks]);
    } else if (section === 'step') {
      const passed = got.passed ? 1 : 0;
      lines.push([...where, run, 1, passed, 1, 100 * passed, '', '', got.score, ...blank, 0, ...tail, marks]);
    } else {
      lines.push([...where, run, got.tasks, got.passed, got.steps, got.rate, '', '', got.score, ...blank, got.not_graded, ...tail, marks]);
    } // prettier-ignore
  }
  return lines;
}
