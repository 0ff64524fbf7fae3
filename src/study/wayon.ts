/**
 * The way on from a study task that ended: at the top of the panel's attempt
 * view, while it shows a finished (or quit) attempt of a study, where the
 * participant stands in the study — "Task 1 of 2 ended · 1 of 2 finished" —
 * with **Start next task** (one click to the plan's next task), **Open task**
 * (one in progress) and **Back to the study**. Hidden for any other attempt.
 */
import { IAttemptSummary, IAttemptView } from '../api';
import { CIBenchModel } from '../model';
import { button, h, keepingFocus, replaceChildren } from '../panel/dom';
import type { IPlanItem, IStudyView } from './api';
import type { StudyModel } from './model';
import { endedText, progressLine } from './words';
import { trans } from '../i18n';

/** What the way on's buttons do (the study controller), and how it reads a study. */
export interface IWayOnActions {
  /** The study as the participant stands in it now. */
  study(id: string): Promise<IStudyView>;
  startNext(id: string): Promise<void>;
  openItem(item: IPlanItem): Promise<void>;
  /** The study view of the study. */
  open(id: string): Promise<void>;
}

export class StudyWayOn {
  constructor(
    private lab: CIBenchModel,
    private studies: StudyModel,
    private actions: IWayOnActions
  ) {
    this.node = h('section', { className: 'jp-CIBench-wayOn' });
    this.node.hidden = true;
    lab.changed.connect((_, kind) => {
      if (kind === 'attempt' || kind === 'attempts') {
        this.follow();
      }
    });
    studies.changed.connect((_, kind) => {
      const fresh = this.studies.study;
      if (kind === 'study' && fresh && fresh.id === this.view?.id) {
        this.draw(fresh); // the study view was read again: the same figures here
      }
    });
  }

  readonly node: HTMLElement;

  /**
   * The attempt shown changed, or the attempt rows (which name its study):
   * read its study when it is a study's and ended.
   */
  private follow(): void {
    const attempt = this.lab.attempt;
    const id = endedIn(attempt, this.lab.attempts);
    const key = id ? `${attempt!.id}:${attempt!.status}:${id}` : null;
    if (key === this.key) {
      return;
    }
    this.key = key;
    if (!id) {
      this.draw(null);
      return;
    }
    this.actions.study(id).then(
      view => this.key === key && this.draw(view),
      () => this.key === key && this.draw(null) // not shown: the study view says where they stand
    );
  }

  private draw(view: IStudyView | null): void {
    this.view = view;
    this.node.hidden = !view;
    if (!view) {
      replaceChildren(this.node);
      return;
    }
    this.node.setAttribute('aria-label', view.title);
    keepingFocus(this.node, () =>
      replaceChildren(
        this.node,
        h('p', { className: 'jp-CIBench-wayOnText', text: this.text(view) }),
        h(
          'div',
          { className: 'jp-CIBench-studyActions' },
          ...this.buttons(view)
        )
      )
    );
  }

  /** "Task 1 of 2 ended · 1 of 2 finished", or the study's progress line when all ended. */
  private text(view: IStudyView): string {
    const index = view.items.findIndex(
      i => i.attempt_id === this.lab.attempt?.id
    );
    if (index < 0 || (view.next === null && view.current === null)) {
      return progressLine(view);
    }
    return trans.__(
      'Task %1 of %2 ended · %3',
      index + 1,
      view.n_items,
      endedText(view)
    );
  }

  private buttons(view: IStudyView): HTMLElement[] {
    const out: HTMLElement[] = [];
    const current = view.current === null ? null : view.items[view.current];
    if (current) {
      const open = button(
        trans.__('Open task'),
        'jp-CIBench-openItem',
        () => void this.actions.openItem(current)
      );
      out.push(open);
    } else if (view.next !== null) {
      const next = view.items[view.next];
      const start = button(
        trans.__('Start next task'),
        'jp-CIBench-startNext',
        () => void this.actions.startNext(view.id),
        trans.__('Task %1 of %2: %3', view.next + 1, view.n_items, next.title)
      );
      start.setAttribute('data-primary', '');
      out.push(start);
    }
    out.push(
      button(
        trans.__('Back to the study'),
        'jp-CIBench-toStudy',
        () => void this.actions.open(view.id)
      )
    );
    return out;
  }

  private key: string | null = null;
  private view: IStudyView | null = null;
}

/** The study of an attempt that ended (finished or quit), by its row; null for any other. */
function endedIn(
  attempt: IAttemptView | null,
  rows: readonly IAttemptSummary[]
): string | null {
  if (!attempt || attempt.status === 'open') {
    return null;
  }
  return rows.find(row => row.id === attempt.id)?.study_id ?? null;
}
