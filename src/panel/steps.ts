/**
 * The attempt view's step list: each opened step with its outcome, its kept
 * grade in words, how the open step passes, and — for a settled step the
 * reveal policy shows — its reference (code, Thought, output, plot).
 */
import { IAttemptView, IReference, IStepView } from '../api';
import {
  badgeText,
  notGraded,
  passWord,
  ranNothing,
  stepOutcomeText
} from '../grade';
import { stepLabel } from '../model';
import { button, h } from './dom';
import { settledNote } from './record';
import { trans } from '../i18n';

/** What the step list remembers between renders (the attempt view keeps it). */
export interface IStepListState {
  /** The list is expanded. */
  open: boolean;
  /** Steps whose reference is expanded. */
  references: Set<number>;
  /** The open step the list last scrolled to (it scrolls again only when it changes). */
  scrolledTo?: number;
}

/** "3 of 12 steps settled". */
export function settledText(view: IAttemptView): string {
  const settled = view.steps.filter(s => s.settled).length;
  return trans.__('%1 of %2 steps settled', settled, view.n_steps);
}

/**
 * The collapsible list of opened steps; `kind`: what names each step's kind
 * (a Qwen task's family, "visualization", instead of CIBench's `exec`).
 */
export function stepList(
  view: IAttemptView,
  state: IStepListState,
  onTurns: (step: number) => void,
  kind?: string | null
): HTMLElement {
  const details = h(
    'details',
    { className: 'jp-CIBench-stepList' },
    h('summary', {
      className: 'jp-CIBench-stepList-summary',
      text: trans.__('Steps (%1)', settledText(view))
    }),
    h(
      'ol',
      {
        className: 'jp-CIBench-steps',
        attrs: { 'aria-label': trans.__('Steps') }
      },
      ...view.steps.map(step =>
        stepRow(step, state, onTurns, step.run_limit, kind ?? step.kind)
      )
    )
  );
  details.open = state.open;
  details.addEventListener('toggle', () => (state.open = details.open));
  scrollToOpenStep(details, view, state);
  return details;
}

/**
 * Once the list is in the page, bring the open step into view — when it is
 * a step the list has not scrolled to yet (a re-render leaves the scroll be).
 */
function scrollToOpenStep(
  list: HTMLElement,
  view: IAttemptView,
  state: IStepListState
): void {
  if (view.status !== 'open' || state.scrolledTo === view.current_step) {
    return;
  }
  state.scrolledTo = view.current_step;
  queueMicrotask(() =>
    list
      .querySelector<HTMLElement>('.jp-CIBench-step-current')
      ?.scrollIntoView?.({ block: 'nearest' })
  );
}

/**
 * A grade in words, with an icon (never colour alone), and what was measured
 * (nothing, for a settled step that ran nothing: its outcome says so). A
 * grade that measured nothing is neither pass nor miss: "– not graded (no
 * judge configured)", neutral.
 */
export function gradeLine(step: IStepView): HTMLElement | null {
  const grade = step.grade;
  if (!grade) {
    return null;
  }
  const none = notGraded(grade);
  const kept = step.settled ? trans.__('kept') : trans.__('so far');
  const measured = ranNothing(step) ? '' : `: ${badgeText(grade)}`;
  const mark = none ? 'none' : grade.passed ? 'pass' : 'miss';
  return h(
    'span',
    { className: `jp-CIBench-step-grade jp-CIBench-grade-${mark}` },
    h('span', {
      className: 'jp-CIBench-grade-icon',
      text: none ? '–' : grade.passed ? '✓' : '✗',
      attrs: { 'aria-hidden': 'true' }
    }),
    none ? ` ${badgeText(grade)}` : ` ${passWord(grade)} (${kept})${measured}`
  );
}

/** One step's row; `cap`: the person's run limit (a step it settled says so). */
function stepRow(
  step: IStepView,
  state: IStepListState,
  onTurns: (step: number) => void,
  cap: number | null,
  kind: string
): HTMLLIElement {
  const current = !step.settled;
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
    h('code', { className: 'jp-CIBench-step-kind', text: kind }),
    h('span', {
      className: 'jp-CIBench-step-outcome',
      text: stepOutcomeText(step, cap)
    }),
    step.turns ? turnsButton(step.index, onTurns) : null,
    gradeLine(step),
    current && step.criterion
      ? h('span', {
          className: 'jp-CIBench-step-criterion',
          text: trans.__('How it passes: %1', step.criterion)
        })
      : null,
    settledNote(step),
    step.reference ? referenceNode(step.index, step.reference, state) : null
  );
}

function turnsButton(
  index: number,
  onTurns: (step: number) => void
): HTMLButtonElement {
  const btn = button(
    trans.__('Turns'),
    'jp-CIBench-turns-button',
    () => onTurns(index),
    trans.__('Code, prompt, raw reply, tokens and latency of each turn')
  );
  btn.setAttribute('aria-label', trans.__('Turns of %1', stepLabel(index)));
  return btn;
}

/** A settled step's reference, collapsed: Thought, code, output, plot. */
export function referenceNode(
  index: number,
  ref: IReference,
  state: IStepListState
): HTMLElement {
  const details = h(
    'details',
    {
      className: 'jp-CIBench-reference',
      attrs: { 'data-step': String(index) }
    },
    h('summary', { text: trans.__('Reference for %1', stepLabel(index)) }),
    referencePart(trans.__('Thought'), ref.thought, 'jp-CIBench-ref-thought'),
    referencePart(trans.__('Code'), ref.code, 'jp-CIBench-ref-code'),
    referencePart(
      ref.code.trim() ? trans.__('Output') : trans.__('Answer'),
      ref.output,
      'jp-CIBench-ref-output'
    ),
    ref.image
      ? h('img', {
          className: 'jp-CIBench-ref-image',
          attrs: {
            src: imageSource(ref.image),
            alt: trans.__('The reference plot of %1', stepLabel(index))
          }
        })
      : null
  );
  details.open = state.references.has(index);
  details.addEventListener('toggle', () => {
    if (details.open) {
      state.references.add(index);
    } else {
      state.references.delete(index);
    }
  });
  return details;
}

/** One labelled part of a reference (none for blank text). */
function referencePart(
  label: string,
  text: string,
  cls: string
): HTMLElement | null {
  if (!text.trim()) {
    return null;
  }
  return h(
    'div',
    { className: `jp-CIBench-ref-part ${cls}` },
    h('span', { className: 'jp-CIBench-ref-label', text: label }),
    h('pre', { text })
  );
}

/** A `src` for a base64 PNG (or a data URL as it is). */
export function imageSource(image: string): string {
  return image.startsWith('data:') ? image : `data:image/png;base64,${image}`;
}
