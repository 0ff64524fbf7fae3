/**
 * Whether a badge still describes the code in its cell: a graded badge stays
 * only while the cell holds the code that was graded — after an edit, or a
 * reload whose cell differs from the kept turn's code, it says "changed since
 * graded", so nobody reads other code as graded. A reopened answer cell left
 * empty gets the kept turn's code back (`putBackCode`), with a note saying so.
 */
import { Cell } from '@jupyterlab/cells';

import { IAttemptView, IStepView, ITurnDetail } from '../api';
import { gaveUpUnrun, ruleLine, runsLeft, stepGradeText } from '../grade';
import { runsAllowedText } from '../panel/words';
import { BadgeState, showBadge } from './badge';
import { trans } from '../i18n';

export const CHANGED = 'changed since graded';
export const PUT_BACK = 'code put back from the graded run';
export const NOT_GRADED = 'not graded (step settled)';
export const NOT_GRADED_QUIT = 'not graded (attempt quit)';

/** What a run of an answer cell that is no turn says: the step settled, or the attempt was quit. */
export function notGraded(status: string): string {
  return status === 'quit'
    ? trans.__('not graded (attempt quit)')
    : trans.__('not graded (step settled)');
}

/** CHANGED in the person's language. */
export function changedText(): string {
  return trans.__('changed since graded');
}

/** PUT_BACK in the person's language. */
export function putBackText(): string {
  return trans.__('code put back from the graded run');
}

/** Code as compared: trailing whitespace does not count. */
export function sameCode(a: string, b: string): boolean {
  return a.replace(/\s+$/, '') === b.replace(/\s+$/, '');
}

/** The 0-based turn whose grade the step keeps (the last one when the view names none: grades hidden). */
export function keptTurn(step: IStepView): number | null {
  if (typeof step.kept_turn === 'number') {
    return step.kept_turn;
  }
  return step.turns > 0 ? step.turns - 1 : null;
}

/**
 * The note an unrun step's cell shows: given up ("gave up · no run", as the
 * panel's step list says), or the runs its limit allows ("1 run allowed": a
 * turn cap's, a Qwen item's calls), before the first run bites into them.
 */
export function unrunNote(view: IAttemptView, step: IStepView): string | null {
  if (gaveUpUnrun(step)) {
    return stepGradeText(step);
  }
  const allowed = step.turns === 0 ? runsLeft(step) : null;
  return allowed !== null ? runsAllowedText(allowed) : null;
}

/**
 * The badge a reopened notebook's answer cell gets: the step's kept grade
 * when the cell still holds the kept turn's code, "changed since graded" when
 * it does not, a note for an unrun step; null for none.
 */
export function restoredBadge(
  view: IAttemptView,
  step: IStepView,
  turns: readonly ITurnDetail[],
  source: string
): BadgeState | null {
  const note = unrunNote(view, step);
  if (note) {
    return { kind: 'note', message: note, criterion: step.criterion };
  }
  const kept = keptTurn(step);
  const turn = turns.find(t => t.step === step.index && t.turn === kept);
  if (!turn) {
    return null; // nothing to vouch for
  }
  if (!sameCode(turn.code, source)) {
    return { kind: 'note', message: changedText(), criterion: step.criterion };
  }
  return {
    kind: 'grade',
    grade: step.grade,
    rule: ruleLine(view.settings, step),
    criterion: step.criterion,
    passes: step.passes
  };
}

/**
 * The code to put back into a reopened notebook's answer cell: the kept
 * turn's, when the cell is empty (the page went away before the notebook was
 * saved); null when the cell holds code (never overwritten) or no turn is kept.
 */
export function putBackCode(
  step: IStepView,
  turns: readonly ITurnDetail[],
  source: string
): string | null {
  if (source.trim()) {
    return null;
  }
  const kept = keptTurn(step);
  const turn = turns.find(t => t.step === step.index && t.turn === kept);
  return turn?.code.trim() ? turn.code : null;
}

/** A put-back cell's badge: its second line says the code was put back. */
export function putBackBadge(state: BadgeState): BadgeState {
  if (state.kind !== 'grade' && state.kind !== 'note') {
    return state;
  }
  const back = putBackText();
  const rule = state.rule ? `${state.rule} · ${back}` : back;
  return { ...state, rule };
}

/** The graded code of cells whose badge shows a grade; notes the ones edited since. */
export class GradedSources {
  /** The cell's badge describes `source`. */
  set(cell: Cell, step: number, source: string): void {
    this.graded.set(cell, { step, source });
    this.check(cell);
  }

  /** The cell's badge no longer shows a grade. */
  forget(cell: Cell): void {
    this.graded.delete(cell);
  }

  /** Badge the cells edited since they were graded (all, or `only`). */
  check(only?: Cell): void {
    for (const [cell, { step, source }] of this.graded) {
      if (only && cell !== only) {
        continue;
      }
      if (cell.isDisposed) {
        this.graded.delete(cell);
      } else if (!sameCode(cell.model.sharedModel.getSource(), source)) {
        this.graded.delete(cell);
        showBadge(cell, { kind: 'note', message: changedText() }, step);
      }
    }
  }

  private graded = new Map<Cell, { step: number; source: string }>();
}
