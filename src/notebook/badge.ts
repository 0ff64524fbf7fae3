/**
 * Grade badges on answer cells: one `div.jp-CIBench-badge` appended to the
 * cell's node, replaced on each run.
 */
import { Cell } from '@jupyterlab/cells';

import { IGrade } from '../api';
import { BADGE_PENDING, BADGE_RECORDED, badgeClass, badgeText } from '../model';

export const BADGE_CLASS = 'jp-CIBench-badge';
export const BADGE_ERROR = 'jp-CIBench-badge-error';

/** What a badge shows: a grade (null: recorded, ungraded), pending, or an error. */
export type BadgeState =
  | { kind: 'grade'; grade: IGrade | null }
  | { kind: 'pending' }
  | { kind: 'error'; message: string }
  | { kind: 'note'; message: string };

function look(state: BadgeState): [string, string] {
  switch (state.kind) {
    case 'pending':
      return [BADGE_PENDING, 'grading…'];
    case 'error':
      return [BADGE_ERROR, `not graded: ${state.message}`];
    case 'note':
      return [BADGE_RECORDED, state.message];
    default:
      return [badgeClass(state.grade), badgeText(state.grade)];
  }
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
  const [cls, text] = look(state);
  const el = document.createElement('div');
  el.className = `${BADGE_CLASS} ${cls}`;
  el.textContent = text;
  el.setAttribute('role', 'status');
  el.setAttribute('aria-live', 'polite');
  if (step !== undefined) {
    el.dataset.step = String(step);
  }
  cell.node.appendChild(el);
  return el;
}
