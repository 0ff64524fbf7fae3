/**
 * Grade badges on answer cells: one `div.jp-CIBench-badge` appended to the
 * cell's node, replaced on each change. A final badge says pass or miss in a
 * word and an icon (never colour alone), what was measured, and on a second
 * line which run the person keeps; the step's pass criterion is its hover
 * title and part of its accessible text; a text step's grade adds a third
 * line saying what passes ("to pass: print only the answer, or a sentence
 * naming it, as your last line": its ROUGE-1 score does not say it). `data-state` says what it is:
 * `running` (the kernel runs the cell), `grading` (ran; the server grades),
 * `final`, `error` or `note`. A running badge says when the server stops the
 * run (the turn time limit); a run it stopped says so instead of what was
 * measured.
 */
import { Cell } from '@jupyterlab/cells';
import { checkIcon, closeIcon, errorIcon } from '@jupyterlab/ui-components';

import { IGrade } from '../api';
import {
  BADGE_PENDING,
  BADGE_RECORDED,
  badgeClass,
  badgeText,
  notGraded,
  passWord,
  runningText,
  stoppedText
} from '../grade';
import { trans } from '../i18n';

export const BADGE_CLASS = 'jp-CIBench-badge';
export const BADGE_ERROR = 'jp-CIBench-badge-error';

export type BadgeDataState = 'running' | 'grading' | 'final' | 'error' | 'note';

/** What a badge shows; `rule`: its second line, `criterion`: how the step passes. */
export type BadgeState =
  | { kind: 'running'; limit?: number | null }
  | { kind: 'pending' }
  | {
      kind: 'grade';
      grade: IGrade | null;
      rule?: string;
      criterion?: string;
      /** The run went over the turn time limit (seconds, null: unknown) and was stopped. */
      stoppedAt?: number | null;
      /** The 0-based turn it grades (a settled step's rule line is redone from it). */
      turn?: number;
      /** A text step's short rule of what passes (the view's `passes`). */
      passes?: string | null;
    }
  | { kind: 'error'; message: string }
  | { kind: 'note'; message: string; rule?: string; criterion?: string };

/** A badge's parts, before they become DOM. */
export interface IBadgeLook {
  cls: string;
  state: BadgeDataState;
  icon: 'pass' | 'miss' | 'error' | null;
  /** "passed" / "missed" (final grades only). */
  word: string;
  /** What was measured, or the note. */
  text: string;
  rule: string;
  criterion: string;
  /** What passes, in short (a text step's grade), shown as its own line. */
  passes?: string;
}

/** How a badge state looks. */
export function badgeLook(state: BadgeState): IBadgeLook {
  const base = { icon: null, word: '', rule: '', criterion: '' };
  switch (state.kind) {
    case 'running':
      return {
        ...base,
        cls: BADGE_PENDING,
        state: 'running',
        text: runningText(state.limit)
      };
    case 'pending':
      return {
        ...base,
        cls: BADGE_PENDING,
        state: 'grading',
        text: trans.__('grading…')
      };
    case 'error':
      return {
        ...base,
        cls: BADGE_ERROR,
        state: 'error',
        icon: 'error',
        text: trans.__('not graded: %1', state.message)
      };
    case 'note':
      return {
        ...base,
        cls: BADGE_RECORDED,
        state: 'note',
        text: state.message,
        rule: state.rule ?? '',
        criterion: state.criterion ?? ''
      };
    default:
      return gradeLook(state);
  }
}

function gradeLook({
  grade,
  rule = '',
  criterion = '',
  stoppedAt,
  passes
}: {
  grade: IGrade | null;
  rule?: string;
  criterion?: string;
  stoppedAt?: number | null;
  passes?: string | null;
}): IBadgeLook {
  const measured =
    stoppedAt !== undefined ? stoppedText(stoppedAt) : badgeText(grade);
  const look: IBadgeLook = {
    cls: badgeClass(grade),
    state: 'final',
    icon: null,
    word: '',
    text: measured,
    rule,
    criterion,
    ...(passes ? { passes } : {})
  };
  if (grade && !notGraded(grade)) {
    look.icon = grade.passed ? 'pass' : 'miss';
    look.word = passWord(grade);
    // 'passed' / 'not passed' (no detail) would only repeat the word
    look.text =
      measured === trans.__('passed') || measured === trans.__('not passed')
        ? ''
        : measured;
  }
  return look;
}

const ICONS = { pass: checkIcon, miss: closeIcon, error: errorIcon };

function span(cls: string, text: string): HTMLSpanElement {
  const el = document.createElement('span');
  el.className = cls;
  el.textContent = text;
  return el;
}

function render(look: IBadgeLook): HTMLElement {
  const el = document.createElement('div');
  el.className = `${BADGE_CLASS} ${look.cls}`;
  el.dataset.state = look.state;
  el.setAttribute('role', 'status');
  el.setAttribute('aria-live', 'polite');
  const main = document.createElement('div');
  main.className = 'jp-CIBench-badge-main';
  if (look.icon) {
    const icon = ICONS[look.icon].element({
      tag: 'span',
      className: 'jp-CIBench-badge-icon'
    });
    icon.setAttribute('aria-hidden', 'true');
    main.appendChild(icon);
  }
  if (look.word) {
    main.appendChild(span('jp-CIBench-badge-word', look.word));
  }
  if (look.word && look.text) {
    main.appendChild(span('jp-CIBench-badge-sep', ' · '));
  }
  if (look.text) {
    main.appendChild(span('jp-CIBench-badge-text', look.text));
  }
  el.appendChild(main);
  if (look.rule) {
    el.append(' '); // the lines read apart as text too
    el.appendChild(span('jp-CIBench-badge-rule', look.rule));
  }
  if (look.passes) {
    el.append(' ');
    el.appendChild(span('jp-CIBench-badge-passes', look.passes));
  }
  if (look.criterion) {
    el.title = look.criterion;
    el.appendChild(span('jp-CIBench-srOnly', ` (${look.criterion})`));
  }
  return el;
}

/** The cell's badge, if any. */
export function badgeOf(cell: Cell): HTMLElement | null {
  return cell.node.querySelector(`:scope > .${BADGE_CLASS}`);
}

/** Remove the cell's badge, if any. */
export function clearBadge(cell: Cell): void {
  cell.node
    .querySelectorAll(`:scope > .${BADGE_CLASS}`)
    .forEach(node => node.remove());
}

/** Show (or replace) the cell's badge. */
export function showBadge(
  cell: Cell,
  state: BadgeState,
  step?: number
): HTMLElement {
  clearBadge(cell);
  const el = render(badgeLook(state));
  if (step !== undefined) {
    el.dataset.step = String(step);
  }
  if (state.kind === 'grade' && state.turn !== undefined) {
    el.dataset.turn = String(state.turn);
  }
  cell.node.appendChild(el);
  // a cell not rendered yet adds its parts later: keep the badge last
  void cell.ready.then(() => {
    if (el.parentNode === cell.node) {
      cell.node.appendChild(el);
    }
  });
  return el;
}
