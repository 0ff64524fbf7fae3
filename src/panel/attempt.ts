/**
 * The panel's attempt view: the opened steps with their outcome and grade,
 * Next step / Give up, and when the attempt is done its summary and times.
 */
import { IAttemptView, IStepView } from '../api';
import {
  badgeClass,
  badgeText,
  ChangeKind,
  CIBenchModel,
  formatSeconds,
  modeLabel,
  outcomeText,
  stepLabel,
  summaryRows
} from '../model';
import { IPanelActions, lockable } from './actions';
import { button, h, replaceChildren } from './dom';

/** "Step 3 of 12" or "finished". */
export function progressText(view: IAttemptView): string {
  if (view.status === 'done') {
    return 'finished';
  }
  return `${stepLabel(view.current_step)} of ${view.n_steps}`;
}

export class AttemptView {
  constructor(
    private model: CIBenchModel,
    private actions: IPanelActions
  ) {
    this.node = h('div', { className: 'jp-CIBench-attemptView' });
    this.render();
  }

  readonly node: HTMLElement;

  update(kind: ChangeKind): void {
    if (kind === 'attempt') {
      this.render();
    }
  }

  private render(): void {
    const view = this.model.attempt;
    const back = button(
      'All tasks',
      'jp-CIBench-back',
      () => (this.model.view = 'tasks')
    );
    if (!view) {
      replaceChildren(this.node, back, noAttempt());
      return;
    }
    replaceChildren(
      this.node,
      back,
      h('h3', { className: 'jp-CIBench-attempt-title', text: view.title }),
      h('p', {
        className: 'jp-CIBench-attempt-meta',
        text: `Mode: ${modeLabel(view.mode)} · ${progressText(view)}`
      }),
      button(
        'Open notebook',
        'jp-CIBench-open',
        () => void this.actions.openNotebook()
      ),
      view.status === 'open' ? null : summary(view),
      stepList(view),
      view.status === 'open' ? this.controls() : null
    );
  }

  private controls(): HTMLElement {
    return h(
      'div',
      { className: 'jp-CIBench-actions' },
      h('p', {
        className: 'jp-CIBench-hint',
        text: "Run the step's answer cell to have it graded, then press Next step."
      }),
      lockable(
        button(
          'Next step',
          'jp-CIBench-next',
          () => void this.actions.next(),
          'Settle this step and open the next (Accel Alt N)'
        ),
        this.model
      ),
      lockable(
        button(
          'Give up',
          'jp-CIBench-giveup',
          () => void this.actions.giveUp(),
          'Give up this step and open the next'
        ),
        this.model
      )
    );
  }
}

function noAttempt(): HTMLElement {
  return h('p', {
    className: 'jp-CIBench-empty',
    text: 'No attempt open. Start one from the task list.'
  });
}

function stepList(view: IAttemptView): HTMLElement {
  return h(
    'ol',
    { className: 'jp-CIBench-steps', attrs: { 'aria-label': 'Steps' } },
    ...view.steps.map(step => stepRow(step))
  );
}

function stepRow(step: IStepView): HTMLLIElement {
  const current = !step.settled;
  const grade = step.grade
    ? h('span', {
        className: `jp-CIBench-step-grade ${badgeClass(step.grade).replace('badge', 'grade')}`,
        text: badgeText(step.grade)
      })
    : null;
  const turns = `${step.turns} turn${step.turns === 1 ? '' : 's'}`;
  return h(
    'li',
    {
      className:
        'jp-CIBench-step' + (current ? ' jp-CIBench-step-current' : ''),
      attrs: {
        'data-step': String(step.index),
        ...(current ? { 'aria-current': 'step' } : {})
      }
    },
    h('span', {
      className: 'jp-CIBench-step-label',
      text: stepLabel(step.index)
    }),
    h('code', { className: 'jp-CIBench-step-kind', text: step.kind }),
    h('span', {
      className: 'jp-CIBench-step-outcome',
      text: `${outcomeText(step.outcome, step.settled)} · ${turns}`
    }),
    grade
  );
}

function summary(view: IAttemptView): HTMLElement {
  const rows = summaryRows(view.summary).map(([label, value]) =>
    h(
      'tr',
      {},
      h('th', { text: label, attrs: { scope: 'row' } }),
      h('td', { text: value })
    )
  );
  return h(
    'div',
    { className: 'jp-CIBench-done' },
    h(
      'table',
      { className: 'jp-CIBench-summary' },
      h('caption', { text: `Summary (${view.profile} profile, ×100)` }),
      h('tbody', {}, ...rows)
    ),
    timesTable(view)
  );
}

function timesTable(view: IAttemptView): HTMLElement {
  const head = h(
    'tr',
    {},
    ...['Step', 'Time', 'Outcome'].map(t =>
      h('th', { text: t, attrs: { scope: 'col' } })
    )
  );
  const rows = view.steps.map(step =>
    h(
      'tr',
      {},
      h('th', { text: stepLabel(step.index), attrs: { scope: 'row' } }),
      h('td', { text: formatSeconds(step.seconds) }),
      h('td', { text: outcomeText(step.outcome, step.settled) })
    )
  );
  return h(
    'table',
    { className: 'jp-CIBench-times' },
    h('caption', { text: 'Time per step' }),
    h('thead', {}, head),
    h('tbody', {}, ...rows)
  );
}
