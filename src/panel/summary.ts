/**
 * A finished attempt's summary: the per-metric means of the shown profile (a
 * Qwen task's: its family's measures, executable and accuracy),
 * with every other stored profile one click away, and per step its outcome,
 * its kept grade, and its working time beside its wall time. A quit
 * attempt's: the grades its settled steps kept, the step it left "quit" and
 * the ones after it "not played" — no means (the steps it did not settle
 * would count as misses).
 */
import { IAttemptView, IGrade, IBenchmarkMeasures, ISummary } from '../api';
import { notGraded, outcomeText } from '../grade';
import { h } from './dom';
import { profileName } from './qwen';
import {
  DASH,
  formatSeconds,
  keptGradeText,
  qwenRows,
  summaryRows
} from './words';
import { trans } from '../i18n';

/** The profiles a summary can show: the attempt's own first, then the others stored. */
export function summaryProfiles(view: IAttemptView): string[] {
  const stored = Object.keys(view.summaries ?? {}).filter(
    p => p !== view.profile
  );
  return [view.profile, ...stored.sort()];
}

/** The summary of `profile` (the shown one's is `summary`). */
export function summaryOf(
  view: IAttemptView,
  profile: string
): ISummary | null {
  if (profile === view.profile) {
    return view.summary ?? view.summaries?.[profile] ?? null;
  }
  return view.summaries?.[profile] ?? null;
}

/** A step's kept grade under `profile` (the view's own profile: `grade`). */
export function gradeOf(
  view: IAttemptView,
  step: IAttemptView['steps'][number],
  profile: string
): IGrade | null {
  if (profile === view.profile) {
    return step.grade ?? step.grades?.[profile] ?? null;
  }
  return step.grades?.[profile] ?? null;
}

/** What each summary metric averages, one line each. */
export function metricLegendLines(): [string, string][] {
  return [
    [
      trans.__('Tool'),
      trans.__('every step: 1 when its answer ran code, else 0')
    ],
    [
      trans.__('Exec'),
      trans.__('every step: 1 when its code ran without an error, else 0')
    ],
    [
      trans.__('Num'),
      trans.__('number and printed-output steps: 1 when they pass, else 0')
    ],
    [
      trans.__('Text'),
      trans.__("text steps' ROUGE-1 scores (partial scores count)")
    ],
    [
      trans.__('Vis'),
      trans.__(
        "plot steps' scores (partial scores count, so a missed plot adds its 0.80)"
      )
    ]
  ];
}

/** What a Qwen attempt's summary measures, one line each (the family's own). */
function qwenLegendLines(): [string, string, string][] {
  return [
    [
      'executable',
      trans.__('Executable'),
      trans.__(
        'every step: 1 when its kept run ran without an error (nor error: or Traceback in its output), else 0'
      )
    ],
    [
      'math',
      trans.__('Accuracy (%1)', 'math'),
      trans.__(
        'GSM8K steps: 1 when the answer read from the output is the gold, else 0'
      )
    ],
    [
      'visualization',
      trans.__('Accuracy (%1)', 'visualization'),
      trans.__(
        'visualization steps a judge graded: 1 when it said the figure is right, else 0 (not graded without a judge)'
      )
    ]
  ];
}

/**
 * "9 of 13 steps passed" (kept grades of `profile`, the shown one unless
 * told); a quit attempt: "1 of 2 settled steps passed" (the steps it did not
 * settle keep no grade). A step not graded is neither passed nor missed:
 * "0 of 1 graded steps passed · 1 not graded", "Not graded: neither passed
 * nor missed" when no step was.
 */
export function passedText(
  view: IAttemptView,
  profile: string = view.profile
): string {
  const quit = view.status === 'quit';
  const grades = view.steps
    .filter(s => s.settled)
    .map(s => gradeOf(view, s, profile));
  const none = grades.filter(g => notGraded(g)).length;
  const passed = grades.filter(g => g?.passed && !notGraded(g)).length;
  const graded = (quit ? grades.length : view.n_steps) - none;
  if (none && !graded) {
    return trans.__('Not graded: neither passed nor missed');
  }
  const text = passedOf(passed, graded, none > 0, quit);
  return none ? trans.__('%1 · %2 not graded', text, none) : text;
}

/** "9 of 13 steps passed", with "graded" and "settled" steps as they apply. */
function passedOf(
  passed: number,
  n: number,
  graded: boolean,
  settled: boolean
): string {
  if (graded && settled) {
    return trans._n(
      '%2 of %1 graded settled step passed',
      '%2 of %1 graded settled steps passed',
      n,
      passed
    );
  }
  if (graded) {
    return trans._n(
      '%2 of %1 graded step passed',
      '%2 of %1 graded steps passed',
      n,
      passed
    );
  }
  if (settled) {
    return trans._n(
      '%2 of %1 settled step passed',
      '%2 of %1 settled steps passed',
      n,
      passed
    );
  }
  return trans._n('%2 of %1 step passed', '%2 of %1 steps passed', n, passed);
}

/** "Quit at step 3 of 4: …" — why a quit attempt's summary has no means (null: not quit). */
export function quitText(view: IAttemptView): string | null {
  if (view.status !== 'quit') {
    return null;
  }
  return trans.__(
    'Quit at step %1 of %2: only the steps settled before the quit keep a grade, so no means are shown',
    view.current_step + 1,
    view.n_steps
  );
}

/**
 * The summary block: profile tabs (when more than one is stored), the chosen
 * profile's means, and the per-step table.
 */
export function summaryNode(
  view: IAttemptView,
  chosen: string,
  choose: (profile: string) => void,
  qwen = false
): HTMLElement {
  const profiles = summaryProfiles(view);
  const profile = profiles.includes(chosen) ? chosen : view.profile;
  const name = (p: string) => profileName(p, qwen);
  const quit = quitText(view);
  const summary = summaryOf(view, profile);
  const measures = qwen ? summary?.benchmark_measures : undefined;
  const means = quit
    ? [h('p', { className: 'jp-CIBench-quitNote', text: quit })]
    : [
        metricsTable(
          measures ? qwenRows(measures) : summaryRows(summary),
          name(profile),
          profile === view.profile
        ),
        metricLegend(measures ? qwenLegend(measures) : metricLegendLines())
      ];
  const other =
    profile === view.profile ? '' : trans.__(' (%1 profile)', name(profile));
  return h(
    'div',
    { className: 'jp-CIBench-done', attrs: { 'data-status': view.status } },
    h('p', {
      className: 'jp-CIBench-passed',
      text: passedText(view, profile) + other
    }),
    profiles.length > 1 ? profileTabs(profiles, profile, choose, name) : null,
    ...means,
    stepsTable(view, profile)
  );
}

function profileTabs(
  profiles: string[],
  chosen: string,
  choose: (profile: string) => void,
  name: (profile: string) => string
): HTMLElement {
  return h(
    'div',
    {
      className: 'jp-CIBench-profiles',
      attrs: { role: 'group', 'aria-label': trans.__('Summary profile') }
    },
    ...profiles.map((p, i) =>
      h('button', {
        className: 'jp-CIBench-button jp-CIBench-profile',
        text: i === 0 ? `${name(p)} (shown)` : name(p),
        attrs: {
          type: 'button',
          'aria-pressed': String(p === chosen),
          'data-profile': p
        },
        onClick: () => choose(p)
      })
    )
  );
}

/** The legend lines of a Qwen attempt's measures (its family's accuracy only). */
function qwenLegend(measures: IBenchmarkMeasures): [string, string][] {
  return qwenLegendLines()
    .filter(([key]) => key === 'executable' || key === measures.accuracy_of)
    .map(([, term, what]) => [term, what]);
}

function metricsTable(
  values: [string, string][],
  profile: string,
  shown: boolean
): HTMLElement {
  const rows = values.map(([label, value]) =>
    h(
      'tr',
      {},
      h('th', { text: label, attrs: { scope: 'row' } }),
      h('td', { text: value })
    )
  );
  const caption = shown
    ? trans.__('Summary (%1 profile, ×100)', profile)
    : trans.__('Summary (%1 profile, not the one badges use, ×100)', profile);
  return h(
    'table',
    { className: 'jp-CIBench-summary', attrs: { 'data-profile': profile } },
    h('caption', { text: caption }),
    h('tbody', {}, ...rows)
  );
}

function metricLegend(legend: [string, string][]): HTMLElement {
  return h(
    'dl',
    {
      className: 'jp-CIBench-legend',
      attrs: { 'aria-label': trans.__('Metrics') }
    },
    ...([] as HTMLElement[]).concat(
      ...legend.map(([term, what]) => [
        h('dt', { text: term }),
        h('dd', { text: trans.__('mean of %1', what) })
      ])
    )
  );
}

/** "8.0 s / 12.3 s": working time beside wall time. */
export function timeText(
  working: number | null | undefined,
  wall: number | null
): string {
  return `${formatSeconds(working)} / ${formatSeconds(wall)}`;
}

/** Per step: Outcome, Kept grade (under `profile`), and its time (working / wall). */
export function stepsTable(
  view: IAttemptView,
  profile: string = view.profile
): HTMLElement {
  const heads = [
    trans.__('Step'),
    trans.__('Outcome'),
    trans.__('Kept grade'),
    trans.__('Time (working / wall)')
  ];
  const head = h(
    'tr',
    {},
    ...heads.map(t => h('th', { text: t, attrs: { scope: 'col' } }))
  );
  const rows = stepRows(view, profile).map(cells =>
    h(
      'tr',
      {},
      h('th', { text: cells[0], attrs: { scope: 'row' } }),
      ...cells.slice(1).map(text => h('td', { text }))
    )
  );
  return h(
    'div',
    { className: 'jp-CIBench-tableScroll' },
    h(
      'table',
      { className: 'jp-CIBench-times', attrs: { 'data-profile': profile } },
      h('caption', { text: trans.__('Steps') }),
      h('thead', {}, head),
      h('tbody', {}, ...rows)
    )
  );
}

/**
 * The steps table's rows: step, outcome, kept grade, time. A quit attempt
 * lists every step: the one it left "quit" (no grade: it never settled), the
 * ones after it "not played".
 */
export function stepRows(
  view: IAttemptView,
  profile: string = view.profile
): string[][] {
  const quit = view.status === 'quit';
  const rows = view.steps.map(step => [
    String(step.index + 1),
    quit && !step.settled
      ? trans.__('quit')
      : outcomeText(step.outcome, step.settled, step.run_limit),
    quit && !step.settled
      ? trans.__('not graded (quit)')
      : keptGradeText(gradeOf(view, step, profile)),
    timeText(step.working_seconds, step.seconds)
  ]);
  if (quit) {
    for (let i = view.steps.length; i < view.n_steps; i++) {
      rows.push([String(i + 1), trans.__('not played'), DASH, DASH]);
    }
  }
  return rows;
}
