/**
 * The study's results view, for its researchers: choose recorded runs (check
 * boxes), the grading profile and whether to show a comparison whose
 * conditions differ; Compare draws what `GET studies/{id}/compare` answers —
 * the notes and mismatches, the per-library bars and table, the people's
 * working time against each step's difficulty (scatter.ts) with its tied
 * points, the per-step table — and Download CSV saves it in the CLI's CSV
 * columns. It is drawn in the main area (plugin.ts), where a report has room.
 */
import { button, h, keepingFocus, replaceChildren } from '../panel/dom';
import type { IComparison, IRecordedRun, ProfileName } from './api';
import {
  libraryBars,
  libraryTable,
  notesList,
  peopleText,
  reportCsv,
  stepTable
} from './report';
import { scatterTables, timeScatter } from './scatter';
import { trans } from '../i18n';

/** What the results view asks of the study controller. */
export interface IResultsActions {
  compare(runs: string[], profile: ProfileName, allow: boolean): Promise<void>;
  /** The panel's study view of the study shown. */
  backToStudy(): Promise<void>;
}

/** What the results view shows: the study, its runs, the last report or refusal. */
export interface IResultsState {
  study: string;
  title: string;
  runs: IRecordedRun[];
  report: IComparison | null;
  /** The server's refusal (a mismatch named field by field), shown in place of a report. */
  refused: string | null;
}

/** The grading profiles (their names are the CLI's, never translated). */
const PROFILES = ['fair', 'cibench'];

export class ResultsView {
  constructor(private actions: IResultsActions) {
    this.node = h('div', {
      className: 'jp-CIBench-resultsView',
      attrs: { 'aria-label': trans.__('Study results') }
    });
  }

  readonly node: HTMLElement;

  show(state: IResultsState): void {
    const before = this.state?.study === state.study ? this.asked() : null;
    keepingFocus(this.node, () => this.render(state, before));
  }

  focus(): void {
    this.node
      .querySelector<HTMLElement>('input, button[data-primary]')
      ?.focus();
  }

  private state: IResultsState | null = null;

  /** What the form asks now (null before it is drawn). */
  private asked(): IAsked | null {
    const form = this.node.querySelector('form');
    if (!form) {
      return null;
    }
    const boxes = form.querySelectorAll<HTMLInputElement>('input[name="run"]');
    const allow = form.querySelector<HTMLInputElement>(
      'input[name="allow_mismatch"]'
    );
    return {
      runs: Array.from(boxes)
        .filter(b => b.checked)
        .map(b => b.value),
      profile: form.querySelector('select')!.value as ProfileName,
      allow: !!allow?.checked
    };
  }

  private render(state: IResultsState, before: IAsked | null): void {
    this.state = state;
    const back = button(
      trans.__('Back to the study'),
      'jp-CIBench-back',
      () => void this.actions.backToStudy(),
      trans.__("The study's view in the CIBench panel")
    );
    replaceChildren(
      this.node,
      back,
      h('h3', {
        className: 'jp-CIBench-studyTitle',
        text: trans.__('Results: %1', state.title)
      }),
      this.form(state, before),
      state.refused
        ? h('p', {
            className: 'jp-CIBench-compareRefused',
            text: state.refused,
            attrs: { role: 'alert' }
          })
        : null,
      state.report ? this.report(state.report) : null
    );
  }

  private form(state: IResultsState, before: IAsked | null): HTMLElement {
    const profile = h(
      'select',
      { attrs: { name: 'profile', 'aria-label': trans.__('Grading profile') } },
      ...PROFILES.map(name =>
        h('option', { text: name, attrs: { value: name } })
      )
    );
    profile.value = before?.profile ?? state.report?.profile ?? 'fair';
    const allow = checkbox(
      'allow_mismatch',
      `jp-CIBench-allow-${state.study}`,
      trans.__('Show a comparison whose conditions differ (marked)'),
      before?.allow ?? false
    );
    const form = h(
      'form',
      { className: 'jp-CIBench-compareForm' },
      runChoices(state, before),
      h('label', { text: trans.__('Profile') + ' ' }, profile),
      allow,
      h('button', {
        className: 'jp-mod-styled jp-mod-accept jp-CIBench-compare',
        text: trans.__('Compare'),
        attrs: { type: 'submit', 'data-primary': '' }
      })
    );
    form.addEventListener('submit', event => {
      event.preventDefault();
      const asked = this.asked();
      if (asked) {
        void this.actions.compare(asked.runs, asked.profile, asked.allow);
      }
    });
    return form;
  }

  private report(report: IComparison): HTMLElement {
    const download = button(
      trans.__('Download CSV'),
      'jp-CIBench-compareCsv',
      () => this.download(report),
      trans.__('The comparison in the columns of report --compare --format csv')
    );
    const runs = report.runs.map(r => r.run).join(', ');
    return h(
      'section',
      {
        className: 'jp-CIBench-compareReport',
        attrs: { 'aria-label': trans.__('Comparison') }
      },
      h('p', {
        className: 'jp-CIBench-compareHead',
        text: trans.__(
          '%1 vs %2 · profile %3',
          peopleText(report.people),
          runs,
          report.profile
        ),
        attrs: { role: 'status' }
      }),
      download,
      notesList(report),
      scroll(libraryBars(report), trans.__('Pass rate per library')),
      scroll(libraryTable(report)),
      scroll(
        timeScatter(report, `jp-CIBench-scatter-${report.study}`),
        trans.__('Working time vs step difficulty')
      ),
      ...scatterTables(report).map(table => scroll(table)),
      scroll(stepTable(report))
    );
  }

  private download(report: IComparison): void {
    const blob = new Blob([reportCsv(report)], { type: 'text/csv' });
    const url = URL.createObjectURL(blob);
    const link = h('a', {
      attrs: {
        href: url,
        download: `compare-${this.state?.study ?? report.study}-${report.profile}.csv`
      }
    });
    document.body.appendChild(link);
    link.click();
    link.remove();
    URL.revokeObjectURL(url);
  }
}

/** The form's choices: the runs, the profile, allow_mismatch. */
interface IAsked {
  runs: string[];
  profile: ProfileName;
  allow: boolean;
}

/** The recorded runs as check boxes (those checked before stay checked). */
function runChoices(state: IResultsState, before: IAsked | null): HTMLElement {
  const runs = state.runs.map(run => {
    return checkbox(
      'run',
      `jp-CIBench-run-${state.study}-${run.run}`,
      trans._n(
        '%2 (%3, %4, %1 task)',
        '%2 (%3, %4, %1 tasks)',
        run.tasks,
        run.run,
        run.player,
        run.mode
      ),
      !!before?.runs.includes(run.run),
      run.run
    );
  });
  const none = h('p', {
    text: trans.__('No recorded runs (cibench-lab run --run NAME).')
  });
  return h(
    'fieldset',
    {},
    h('legend', { text: trans.__('Runs to compare with') }),
    ...(runs.length ? runs : [none])
  );
}

function checkbox(
  name: string,
  id: string,
  label: string,
  checked: boolean,
  value = 'on'
): HTMLElement {
  const box = h('input', { attrs: { type: 'checkbox', name, value, id } });
  box.checked = checked;
  return h('div', {}, box, h('label', { text: label, attrs: { for: id } }));
}

/**
 * A wide table or chart in a box that scrolls sideways (focusable, so keys
 * scroll it), named by the table's caption or `label`.
 */
function scroll(content: Element, label?: string): HTMLElement {
  return h(
    'div',
    {
      className: 'jp-CIBench-compareScroll',
      attrs: {
        tabindex: '0',
        role: 'region',
        'aria-label':
          label ?? content.querySelector('caption')?.textContent ?? ''
      }
    },
    content as HTMLElement
  );
}
