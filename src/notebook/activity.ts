/**
 * The person's activity in an attempt's notebook, for the server's working
 * clock and the action trace (`POST attempts/{id}/activity`).
 *
 * Edits are reported on the leading edge: the first at once, then none for
 * 20 s — the edits meanwhile are only counted, per cell, for the next report
 * (a report is never sent later than the edit that caused it, so it never
 * dates work late). Only edits made while the notebook has the focus on a
 * visible page count: a change the lab makes itself, or one made while the
 * person is elsewhere, is not their edit. While the clock is paused an edit is
 * reported at once (the server resumes the clock). Each run scheduled in the
 * notebook is reported at once with its msg_id and cell id (which cell ran,
 * for the trace the server records from the kernel).
 */
import { Cell, CodeCell, ICellModel } from '@jupyterlab/cells';
import { Notebook, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';

import { CIBenchApi, IAttemptView } from '../api';

type SharedCell = ICellModel['sharedModel'];

/** At most one edit report per this many ms (the first edit of a quiet spell at once). */
export const ACTIVITY_INTERVAL_MS = 20_000;
/** Changes of one cell's source less than this apart (no other cell edited between) are one edit. */
export const EDIT_GAP_MS = 3_000;

/** Leading-edge throttle: `take()` is true at most once per interval, unless forced. */
export class LeadingEdge {
  constructor(private interval = ACTIVITY_INTERVAL_MS) {}

  /** Whether to report now; a report taken starts a new interval. */
  take(force = false): boolean {
    const now = Date.now();
    if (!force && now - this.last < this.interval) {
      return false;
    }
    this.last = now;
    return true;
  }

  private last = -Infinity;
}

/**
 * Edits per cell, not keystrokes: a burst of changes to one cell is one edit;
 * it ends when EDIT_GAP_MS pass without a change, another cell is edited, or
 * the cell runs.
 */
export class EditCounter {
  /** The source of `cellId` changed. */
  change(cellId: string): void {
    const now = Date.now();
    if (cellId !== this.cell || now - this.at >= EDIT_GAP_MS) {
      this.counts.set(cellId, (this.counts.get(cellId) ?? 0) + 1);
    }
    this.cell = cellId;
    this.at = now;
  }

  /** `cellId` ran: its next change is a new edit. */
  ran(cellId: string): void {
    if (cellId === this.cell) {
      this.cell = null;
    }
  }

  /** The counts since the last call, by cell id (emptied). */
  take(): Record<string, number> {
    const out: Record<string, number> = {};
    this.counts.forEach((count, cell) => (out[cell] = count));
    this.counts.clear();
    return out;
  }

  private counts = new Map<string, number>();
  private cell: string | null = null;
  private at = -Infinity;
}

/** What the reporter needs of an attempt's notebook session. */
export interface IActivitySession {
  readonly panel: NotebookPanel;
  readonly view: IAttemptView;
  readonly isDisposed: boolean;
}

/** Reports one attempt notebook's edits and runs while a person's attempt is open. */
export class ActivityReporter {
  constructor(
    private session: IActivitySession,
    private api: CIBenchApi,
    /** The server resumed the paused clock (the view is out of date). */
    private onResumed: (attemptId: string) => void
  ) {
    const cells = session.panel.model?.cells;
    if (cells) {
      for (let i = 0; i < cells.length; i++) {
        this.watch(cells.get(i));
      }
      cells.changed.connect(this.onCells, this);
    }
    NotebookActions.executionScheduled.connect(this.onScheduled, this);
  }

  dispose(): void {
    this.disposed = true;
    this.session.panel.model?.cells.changed.disconnect(this.onCells, this);
    NotebookActions.executionScheduled.disconnect(this.onScheduled, this);
    this.watched.forEach(shared =>
      shared.changed.disconnect(this.onCell, this)
    );
    this.watched.clear();
  }

  /** Whether the person is in the notebook: it has the focus on a visible page. */
  focused(): boolean {
    const panel = this.session.panel;
    return (
      document.visibilityState === 'visible' &&
      panel.isVisible &&
      panel.node.contains(document.activeElement)
    );
  }

  private watch(cell: ICellModel): void {
    const shared = cell.sharedModel;
    if (!this.watched.has(shared)) {
      this.watched.add(shared);
      shared.changed.connect(this.onCell, this);
    }
  }

  private onCells(
    _: unknown,
    change: { type: string; newValues: readonly ICellModel[] }
  ): void {
    if (change.type === 'add' || change.type === 'set') {
      change.newValues.forEach(cell => this.watch(cell));
    }
  }

  private onCell(shared: SharedCell, change: { sourceChange?: unknown }): void {
    if (!change.sourceChange || !this.open() || !this.focused()) {
      return;
    }
    this.edits.change(shared.getId());
    if (this.throttle.take(this.session.view.paused)) {
      this.send({ cells: this.edits.take() });
    }
  }

  private async onScheduled(
    _: unknown,
    args: { notebook: Notebook; cell: Cell }
  ): Promise<void> {
    if (args.notebook !== this.session.panel.content || !this.open()) {
      return;
    }
    const cellId = args.cell.model.sharedModel.getId();
    this.edits.ran(cellId);
    await Promise.resolve(); // the run's future is set just after the signal
    const future = (args.cell as CodeCell).outputArea?.future;
    const msgId = future?.msg.header.msg_id;
    if (msgId && !this.disposed) {
      this.send({ cells: this.edits.take(), runs: { [msgId]: cellId } });
    }
  }

  private open(): boolean {
    const view = this.session.view;
    return (
      !this.disposed &&
      !this.session.isDisposed &&
      view.player === 'human' &&
      view.status === 'open'
    );
  }

  private send(body: {
    cells: Record<string, number>;
    runs?: Record<string, string>;
  }): void {
    const view = this.session.view;
    // A run's start on the kernel resumes a paused clock too, perhaps before this report arrives.
    const ranWhilePaused = body.runs !== undefined && view.paused;
    this.api.activity(view.id, view.current_step, body).then(
      answer => {
        if (answer.resumed || ranWhilePaused) {
          this.onResumed(view.id);
        }
      },
      err => console.debug('cibench-lab: activity not recorded', err)
    );
  }

  private throttle = new LeadingEdge();
  private edits = new EditCounter();
  private watched = new Set<SharedCell>();
  private disposed = false;
}
