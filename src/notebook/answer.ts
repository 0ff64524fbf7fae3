/**
 * Which cell is graded, said on the cells themselves: every answer cell
 * carries a label — the open step's "Step n · graded" (with a marker, class
 * `jp-CIBench-answer-current`), a settled step's "Step n · settled" — which
 * is also the cell's accessible name; a code cell the lab did not add (a
 * person's scratch cell) gets a note, once it is active or run, saying its
 * runs are not graded and where the step's answer is. Labels, notes and a
 * settled step's badge follow the attempt view (`markAnswers`), so none of
 * them outlives the step it names: a badge run while the step was open
 * ("graded when you settle · 2 runs left") says how it settled instead.
 */
import { Cell } from '@jupyterlab/cells';
import { Notebook } from '@jupyterlab/notebook';

import { IAttemptView } from '../api';
import { ruleLine } from '../grade';
import { badgeOf, clearBadge, showBadge } from './badge';
import { cellTag } from './cells';
import { putBackText } from './freshness';
import { attachLabel } from './labels';
import { trans } from '../i18n';

export const CURRENT_CLASS = 'jp-CIBench-answer-current';
export const ANSWER_LABEL_CLASS = 'jp-CIBench-answerLabel';

/** What an answer cell's label says: its title and, lighter, a note. */
export interface IAnswerLabel {
  title: string;
  note: string;
}

/** Whether `step` is the open step of an open attempt (its answer cell is graded). */
export function isGradedStep(view: IAttemptView, step: number): boolean {
  return view.status === 'open' && step === view.current_step;
}

/** The label of step `step`'s answer cell (0-based). */
export function answerLabelText(
  view: IAttemptView,
  step: number
): IAnswerLabel {
  const n = step + 1;
  if (isGradedStep(view, step)) {
    return {
      title: trans.__('Step %1 · graded', n),
      note: trans.__('each run here is a turn; Shift+Enter runs it and stays')
    };
  }
  const settled = view.steps.find(s => s.index === step)?.settled;
  return {
    title: settled
      ? trans.__('Step %1 · settled', n)
      : trans.__('Step %1 · not settled', n),
    note: trans.__('runs here are not graded')
  };
}

/** What a run of a person's own code cell says ("not graded — step 3's answer is in the marked cell"). */
export function scratchText(view: IAttemptView): string {
  if (view.status !== 'open') {
    return trans.__('not graded');
  }
  return trans.__(
    "not graded — step %1's answer is in the marked cell",
    view.current_step + 1
  );
}

/** Whether a cell is a code cell the lab did not add (the person's own). */
export function isScratch(cell: Cell): boolean {
  return cell.model.type === 'code' && !cellTag(cell);
}

/** Note on a scratch cell that its runs are not graded, and where the step's answer is. */
export function noteScratch(cell: Cell, view: IAttemptView): void {
  showBadge(
    cell,
    { kind: 'note', message: scratchText(view) },
    view.current_step
  );
}

function labelOf(cell: Cell): HTMLElement {
  const found = cell.node.querySelector<HTMLElement>(
    `:scope > .${ANSWER_LABEL_CLASS}`
  );
  if (found) {
    return found;
  }
  const label = document.createElement('div');
  label.className = `jp-CIBench-cellLabel ${ANSWER_LABEL_CLASS}`;
  label.id = `jp-CIBench-answerLabel-${cell.model.id}`;
  attachLabel(cell, label);
  return label;
}

/** Give an answer cell its label (as the view has it) and, for the open step, the marker. */
export function markAnswer(cell: Cell, view: IAttemptView, step: number): void {
  const { title, note } = answerLabelText(view, step);
  const label = labelOf(cell);
  const text = `${title} · ${note}`;
  if (label.textContent !== text) {
    const strong = document.createElement('span');
    strong.className = 'jp-CIBench-cellLabel-text';
    strong.textContent = title;
    const light = document.createElement('span');
    light.className = 'jp-CIBench-cellLabel-note';
    light.textContent = ` · ${note}`;
    label.replaceChildren(strong, light);
  }
  cell.toggleClass(CURRENT_CLASS, isGradedStep(view, step));
  settledRule(cell, view, step);
}

/** A settled step's grade badge: its second line as the settled step has it (no runs left). */
function settledRule(cell: Cell, view: IAttemptView, index: number): void {
  const badge = badgeOf(cell);
  const rule = badge?.querySelector('.jp-CIBench-badge-rule');
  const step = view.steps.find(s => s.index === index);
  if (!badge || !rule || !step?.settled || badge.dataset.state !== 'final') {
    return;
  }
  const turn = badge.dataset.turn ? Number(badge.dataset.turn) : undefined;
  const put = putBackText();
  const back = rule.textContent?.includes(put) ? ` · ${put}` : '';
  const text = ruleLine(view.settings, step, turn) + back;
  if (rule.textContent !== text) {
    rule.textContent = text;
  }
}

/**
 * Label every answer cell as the view has it, and bring the scratch cells'
 * notes up to date (the step they point to moved on, or the attempt ended).
 */
export function markAnswers(nb: Notebook, view: IAttemptView): void {
  for (const cell of nb.widgets) {
    const tag = cellTag(cell);
    if (tag?.role === 'answer' && tag.step !== undefined) {
      markAnswer(cell, view, tag.step);
    } else if (isScratch(cell) && badgeOf(cell)) {
      if (view.status === 'open') {
        noteScratch(cell, view);
      } else {
        clearBadge(cell);
      }
    }
  }
}
