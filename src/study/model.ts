/**
 * The study part of the panel: the server's studies, the one shown, and the
 * consent form's errors by field. Busy and general errors are the panel's
 * (`CIBenchModel.run`).
 */
import { ISignal, Signal } from '@lumino/signaling';

import type { IStudySummary, IStudyView } from './api';

export type StudyChange = 'studies' | 'study';

export class StudyModel {
  get changed(): ISignal<this, StudyChange> {
    return this._changed;
  }

  get studies(): readonly IStudySummary[] {
    return this._studies;
  }
  set studies(rows: readonly IStudySummary[]) {
    this._studies = rows.slice();
    this._changed.emit('studies');
  }

  /** The study the study view shows. */
  get study(): IStudyView | null {
    return this._study;
  }

  /** The consent form's errors, by field (`code`, `accept`, `answers.NAME`). */
  get errors(): { [field: string]: string } {
    return { ...this._errors };
  }

  /** Show `view` (with the consent form's `errors`); the list row follows it. */
  show(
    view: IStudyView | null,
    errors: { [field: string]: string } = {}
  ): void {
    this._study = view;
    this._errors = { ...errors };
    if (view) {
      this._studies = this._studies.map(row =>
        row.id === view.id
          ? {
              ...row,
              state: view.state,
              done: view.done,
              finished: view.finished,
              quit: view.quit,
              n_items: view.n_items
            }
          : row
      );
      this._changed.emit('studies');
    }
    this._changed.emit('study');
  }

  private _changed = new Signal<this, StudyChange>(this);
  private _studies: IStudySummary[] = [];
  private _study: IStudyView | null = null;
  private _errors: { [field: string]: string } = {};
}
