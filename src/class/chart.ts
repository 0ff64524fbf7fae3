/**
 * The class's pass rate per step (where the class is stuck): plain SVG bars in
 * JupyterLab's colours, one group per task, each bar the share of those who
 * settled the step that passed it (someone still on a step is no miss),
 * labelled with its counts and how many are still on it; the same figures as
 * a visually hidden list for screen readers.
 */
import { h } from '../panel/dom';
import type { IClassProgress, IStepPassRate } from './api';
import { trans } from '../i18n';

const SVG = 'http://www.w3.org/2000/svg';
const BAR = 14; // px per bar
const LEFT = 70; // the step labels' width
const WIDTH = 200; // 100% of a bar
const GAP = 18; // a task's title above its bars

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: { [name: string]: string | number },
  text?: string
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) {
    el.setAttribute(name, String(value));
  }
  if (text !== undefined) {
    el.textContent = text;
  }
  return el;
}

/** What the chart counts, said once above it (and to a screen reader). */
export const RATE_LEGEND =
  'Of those who settled a step, how many passed it; those still on it, and steps not graded, are not counted';

/** RATE_LEGEND in the person's language. */
function rateLegend(): string {
  return trans.__(
    'Of those who settled a step, how many passed it; those still on it, and steps not graded, are not counted'
  );
}

/** The attempts still on a step: they reached it and have not settled it. */
function stillOn(rate: IStepPassRate): number {
  return rate.reached - rate.settled;
}

/**
 * The attempts that settled a step and were graded: a step not graded (a
 * Qwen visualization step without a judge) is neither passed nor missed.
 */
function graded(rate: IStepPassRate): number {
  return rate.settled - rate.not_graded;
}

/**
 * A step's rate in words: "step 2: 1 of 2 who settled it passed (50%) · 1
 * still on it", "… · 1 not graded", "step 3: nobody settled it yet · 2 still
 * on it".
 */
export function rateText(rate: IStepPassRate): string {
  const on = stillOn(rate) ? trans.__(' · %1 still on it', stillOn(rate)) : '';
  if (!rate.settled) {
    return trans.__('step %1: nobody settled it yet%2', rate.step + 1, on);
  }
  const of = graded(rate);
  const pct = of ? Math.round((100 * rate.passed) / of) : 0;
  const none = rate.not_graded
    ? trans.__(' · %1 not graded', rate.not_graded)
    : '';
  return trans.__(
    'step %1: %2 of %3 who settled it passed (%4%)%5%6',
    rate.step + 1,
    rate.passed,
    of,
    pct,
    none,
    on
  );
}

/** The chart and its text twin, for the task `task` (all when null). */
export function passRateChart(
  progress: IClassProgress,
  task: string | null
): HTMLElement {
  const rates = progress.pass_rates.filter(
    r => task === null || r.task_id === task
  );
  const titles = new Map(progress.tasks.map(t => [t.task_id, t.title]));
  const groups = new Map<string, IStepPassRate[]>();
  for (const rate of rates) {
    groups.set(rate.task_id, [...(groups.get(rate.task_id) ?? []), rate]);
  }
  const list = h('ul', { className: 'jp-CIBench-srOnly' });
  for (const [taskId, group] of groups) {
    const title = titles.get(taskId) ?? taskId;
    list.appendChild(
      h('li', { text: `${title}: ${group.map(rateText).join('; ')}` })
    );
  }
  return h(
    'figure',
    {
      className: 'jp-CIBench-passRates',
      attrs: { 'aria-label': trans.__('Pass rate per step') }
    },
    h(
      'figcaption',
      {},
      h('span', { text: trans.__('Pass rate per step') }),
      h('span', { className: 'jp-CIBench-chartLegend', text: rateLegend() })
    ),
    rates.length
      ? bars(groups, titles)
      : h('p', { text: trans.__('No step reached yet.') }),
    list
  );
}

/** One group of bars per task, under its title. */
function bars(
  groups: Map<string, IStepPassRate[]>,
  titles: Map<string, string>
): SVGSVGElement {
  const height = Array.from(groups.values()).reduce(
    (n, g) => n + GAP + g.length * BAR,
    0
  );
  const root = svg('svg', {
    class: 'jp-CIBench-passChart',
    viewBox: `0 0 ${LEFT + WIDTH + 120} ${Math.max(height, BAR)}`,
    role: 'img',
    'aria-label': trans.__(
      'Pass rate per step of each task (the text list follows)'
    )
  });
  let y = 0;
  for (const [taskId, group] of groups) {
    const title = titles.get(taskId) ?? taskId;
    root.appendChild(
      svg('text', { x: 0, y: y + 12, class: 'jp-CIBench-chartTask' }, title)
    );
    y += GAP;
    for (const rate of group) {
      root.append(...bar(rate, y));
      y += BAR;
    }
  }
  return root;
}

function bar(rate: IStepPassRate, y: number): SVGElement[] {
  const share = graded(rate) ? rate.passed / graded(rate) : 0;
  const back = svg('rect', {
    x: LEFT,
    y: y + 1,
    width: WIDTH,
    height: BAR - 3,
    class: 'jp-CIBench-chartTrack'
  });
  const front = svg('rect', {
    x: LEFT,
    y: y + 1,
    width: share * WIDTH,
    height: BAR - 3,
    class: 'jp-CIBench-chartBar',
    'data-step': rate.step
  });
  front.appendChild(svg('title', {}, rateText(rate)));
  const label = svg(
    'text',
    { x: 0, y: y + BAR - 3, class: 'jp-CIBench-chartLabel' },
    trans.__('step %1', rate.step + 1)
  );
  const value = svg(
    'text',
    { x: LEFT + WIDTH + 6, y: y + BAR - 3, class: 'jp-CIBench-chartLabel' },
    `${rate.passed}/${graded(rate)}${stillOn(rate) ? trans.__(' · %1 on it', stillOn(rate)) : ''}`
  );
  return [label, back, front, value];
}
