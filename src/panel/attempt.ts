/**
 * The panel's attempt view: the opened steps with their outcome and grade,
 * Next step / Give up, and when the attempt is done its summary and times.
 */
import { IAttemptView, IStepView } from '../api';
import { badgeClass, badgeText } from '../grade';
import {
  ChangeKind,
  CIBenchModel,
  formatSeconds,
  modeLabel,
  outcomeText,
  playerLabel,
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
    } else if (kind === 'autoplay') {
      this.renderAutoplay();
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
        text: `Mode: ${modeLabel(view.mode)} · Player: ${playerLabel(view.player)} · ${progressText(view)}`
      }),
      sandboxNote(view),
      button(
        'Open notebook',
        'jp-CIBench-open',
        () => void this.actions.openNotebook()
      ),
      view.status === 'open' ? null : summary(view),
      stepList(view, step => void this.actions.showTurns(step)),
      view.status !== 'open'
        ? null
        : view.player === 'human'
          ? this.controls()
          : this.playerControls()
    );
    this.renderAutoplay();
  }

  /** Play step / Play all / Stop (enabled by renderAutoplay) for an attached player. */
  private playerControls(): HTMLElement {
    return h(
      'div',
      { className: 'jp-CIBench-actions jp-CIBench-playerActions' },
      h('p', {
        className: 'jp-CIBench-hint',
        text: "The player's code goes into each step's answer cell and runs in the notebook."
      }),
      button(
        'Play step',
        'jp-CIBench-play-step',
        () => void this.actions.playStep(),
        'Play the open step'
      ),
      button(
        'Play all',
        'jp-CIBench-play-all',
        () => void this.actions.playAll(),
        'Play every remaining step'
      ),
      button(
        'Stop',
        'jp-CIBench-stop',
        () => void this.actions.stopPlayer(),
        'Stop the player after the turn in flight'
      ),
      this.giveUpButton(),
      this.autoplayLine
    );
  }

  private isPlaying(): boolean {
    const state = this.model.autoplay;
    return state.playing && state.id === this.model.attempt?.id;
  }

  /** The player's status line and the enabled state of its buttons. */
  private renderAutoplay(): void {
    const state = this.model.autoplay;
    const mine = state.id === this.model.attempt?.id;
    this.autoplayLine.textContent = mine ? state.status : '';
    const playing = this.isPlaying();
    this.node
      .querySelectorAll<HTMLButtonElement>(
        '.jp-CIBench-play-step, .jp-CIBench-play-all'
      )
      .forEach(btn => (btn.disabled = playing));
    const stop = this.node.querySelector<HTMLButtonElement>('.jp-CIBench-stop');
    if (stop) {
      stop.disabled = !playing;
    }
  }

  private autoplayLine = h('p', {
    className: 'jp-CIBench-autoplay-status',
    attrs: { role: 'status', 'aria-live': 'polite' }
  });

  private giveUpButton(): HTMLButtonElement {
    return lockable(
      button(
        'Give up',
        'jp-CIBench-giveup',
        () => void this.actions.giveUp(),
        'Give up this step and open the next'
      ),
      this.model
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
      this.giveUpButton()
    );
  }
}

function noAttempt(): HTMLElement {
  return h('p', {
    className: 'jp-CIBench-empty',
    text: 'No attempt open. Start one from the task list.'
  });
}

function stepList(
  view: IAttemptView,
  onTurns: (step: number) => void
): HTMLElement {
  return h(
    'ol',
    { className: 'jp-CIBench-steps', attrs: { 'aria-label': 'Steps' } },
    ...view.steps.map(step => stepRow(step, onTurns))
  );
}

function stepRow(
  step: IStepView,
  onTurns: (step: number) => void
): HTMLLIElement {
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
    step.turns ? turnsButton(step.index, onTurns) : null,
    grade
  );
}

function turnsButton(
  index: number,
  onTurns: (step: number) => void
): HTMLButtonElement {
  const btn = button(
    'Turns',
    'jp-CIBench-turns-button',
    () => onTurns(index),
    'Code, prompt, raw reply, tokens and latency of each turn'
  );
  btn.setAttribute('aria-label', `Turns of ${stepLabel(index)}`);
  return btn;
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

/** How the attempt's kernels were isolated; an unsandboxed attempt is marked. */
export function sandboxNote(view: IAttemptView): HTMLElement {
  const sandbox = view.sandbox;
  const on = !!sandbox?.enabled;
  const text = on
    ? `Kernel: sandboxed (${sandbox?.tool ?? 'sandbox'}${sandbox?.network ? ', network allowed' : ', no network'})`
    : sandbox
      ? 'Kernel: NOT sandboxed'
      : 'Kernel: sandbox not recorded';
  return h('p', {
    className: on
      ? 'jp-CIBench-sandbox'
      : 'jp-CIBench-sandbox jp-CIBench-unsandboxed',
    text
  });
}
