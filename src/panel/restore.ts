/**
 * The panel reopens where it was after a reload: the layout restorer brings
 * the sidebar back, and this keeps which view it showed and which attempt.
 */
import { IStateDB } from '@jupyterlab/statedb';
import { ReadonlyJSONObject } from '@lumino/coreutils';

import { CIBenchModel, ViewKind } from '../model';

export const STATE_KEY = 'cibench-lab:panel';

/** What is kept of the panel. */
export interface IPanelState {
  view: ViewKind;
  attempt: string | null;
}

/** The panel's state now. */
export function panelState(model: CIBenchModel): IPanelState {
  return { view: model.view, attempt: model.attempt?.id ?? null };
}

/** A stored value as a panel state, or null when it is not one. */
export function readPanelState(value: unknown): IPanelState | null {
  if (!value || typeof value !== 'object') {
    return null;
  }
  const v = value as { view?: unknown; attempt?: unknown };
  if (v.view !== 'tasks' && v.view !== 'attempt') {
    return null;
  }
  const attempt = typeof v.attempt === 'string' ? v.attempt : null;
  return { view: v.view, attempt };
}

/**
 * Show the stored attempt (unless a reopened notebook already put one in the
 * panel), then save the panel's state whenever its view or attempt changes.
 */
export async function restorePanel(
  model: CIBenchModel,
  state: IStateDB,
  show: (attemptId: string) => Promise<void>
): Promise<void> {
  try {
    const saved = readPanelState(await state.fetch(STATE_KEY));
    if (saved?.attempt && !model.attempt) {
      await show(saved.attempt);
    }
    if (saved && !model.attempt) {
      model.view = 'tasks';
    } else if (saved) {
      model.view = saved.view;
    }
  } catch (err) {
    console.warn('cibench-lab: the panel state was not restored', err);
  }
  let last = JSON.stringify(panelState(model));
  model.changed.connect((_, kind) => {
    if (kind !== 'view' && kind !== 'attempt') {
      return;
    }
    const now = panelState(model);
    if (JSON.stringify(now) !== last) {
      last = JSON.stringify(now);
      void state.save(STATE_KEY, now as unknown as ReadonlyJSONObject);
    }
  });
}
