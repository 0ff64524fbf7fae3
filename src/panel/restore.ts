/**
 * The panel reopens where it was after a reload: the layout restorer brings
 * the sidebar back, and this keeps which view it showed, which attempt and
 * which study (the study view is drawn by the studies plugin when the panel's
 * `study` is set; a `results` view an older lab saved reopens as its study's
 * view — the results are a main-area tab now, which the layout restorer keeps).
 */
import { IStateDB } from '@jupyterlab/statedb';
import { ReadonlyJSONObject } from '@lumino/coreutils';

import { CIBenchModel, ViewKind } from '../model';

export const STATE_KEY = 'cibench-lab:panel';

/** What is kept of the panel. */
export interface IPanelState {
  view: Exclude<ViewKind, 'results'>;
  attempt: string | null;
  /** The study of the study view (null in the other views). */
  study: string | null;
}

/** The panel's state now. */
export function panelState(model: CIBenchModel): IPanelState {
  const inStudy = model.view === 'study' || model.view === 'results';
  return {
    view: inStudy ? 'study' : (model.view as 'tasks' | 'attempt'),
    attempt: model.attempt?.id ?? null,
    study: inStudy ? model.study : null
  };
}

/** A stored value as a panel state, or null when it is not one. */
export function readPanelState(value: unknown): IPanelState | null {
  if (!value || typeof value !== 'object') {
    return null;
  }
  const v = value as { view?: unknown; attempt?: unknown; study?: unknown };
  const attempt = typeof v.attempt === 'string' ? v.attempt : null;
  const study = typeof v.study === 'string' && v.study ? v.study : null;
  if ((v.view === 'study' || v.view === 'results') && study) {
    return { view: 'study', attempt, study };
  }
  if (v.view !== 'tasks' && v.view !== 'attempt' && v.view !== 'study') {
    return null;
  }
  // a study view without its study reopens on the task list
  return { view: v.view === 'study' ? 'tasks' : v.view, attempt, study: null };
}

/**
 * Show the stored attempt (unless a reopened notebook already put one in the
 * panel) and the stored view — a study view by its study — then save the
 * panel's state whenever its view, attempt or study changes.
 */
export async function restorePanel(
  model: CIBenchModel,
  state: IStateDB,
  show: (attemptId: string) => Promise<void>
): Promise<void> {
  try {
    const saved = readPanelState(await state.fetch(STATE_KEY));
    if (saved?.attempt && !model.attempt) {
      // one gone or not the participant's now (a shared seat): the view is still restored
      await show(saved.attempt).catch(() => undefined);
    }
    if (saved?.study) {
      model.study = saved.study; // the studies plugin draws it
      model.view = 'study';
    } else if (saved) {
      model.view =
        saved.view === 'attempt' && !model.attempt ? 'tasks' : saved.view;
    }
  } catch (err) {
    console.warn('cibench-lab: the panel state was not restored', err);
  }
  let last = JSON.stringify(panelState(model));
  model.changed.connect((_, kind) => {
    if (kind !== 'view' && kind !== 'attempt' && kind !== 'study') {
      return;
    }
    const now = panelState(model);
    if (JSON.stringify(now) !== last) {
      last = JSON.stringify(now);
      void state.save(STATE_KEY, now as unknown as ReadonlyJSONObject);
    }
  });
}
