/**
 * The Undo window of a settle a person starts (Next step, Give up): the
 * settle waits a few seconds, shown in the panel with a countdown, and is
 * sent when the window ends — or at once on "Settle now", or with a keepalive
 * request when the page is closed or reloaded inside the window. Turn-cap
 * and player settles are the server's and never wait here.
 */
import { CIBenchModel, IPendingSettle } from '../model';

/** How long a person's settle can be undone. */
export const UNDO_SECONDS = 5;

/** A settle waiting in the window. */
export interface ISettleRequest {
  attemptId: string;
  /** Where the attempt's notebook is (reopened to apply the settle). */
  notebookPath: string;
  step: number;
  kind: IPendingSettle['kind'];
}

export interface IUndoOptions {
  model: CIBenchModel;
  /** Send the settle (the window ended or "Settle now"). */
  commit: (request: ISettleRequest) => Promise<void>;
  /** Send the settle with a request that outlives the page. */
  beacon: (request: ISettleRequest) => void;
  seconds?: number;
  /** Where `pagehide` is listened for (the window; absent in tests). */
  target?: EventTarget;
}

export class UndoWindow {
  constructor(private options: IUndoOptions) {
    options.target?.addEventListener('pagehide', this.onPageHide);
  }

  /** The settle waiting, if any. */
  get request(): ISettleRequest | null {
    return this._request;
  }

  /**
   * Open the window for `request`. A settle already waiting (another
   * attempt's) is sent first: one window at a time.
   */
  async start(request: ISettleRequest): Promise<void> {
    if (this._request) {
      await this.now();
    }
    const seconds = this.options.seconds ?? UNDO_SECONDS;
    this._request = request;
    this._remaining = seconds;
    this.publish();
    this.ticker = setInterval(() => {
      this._remaining = Math.max(1, this._remaining - 1);
      this.publish();
    }, 1000);
    this.deadline = setTimeout(() => void this.now(), seconds * 1000);
  }

  /** Cancel the waiting settle; true when there was one. */
  undo(): boolean {
    const had = this._request !== null;
    this.clear();
    return had;
  }

  /** Send the waiting settle now. */
  async now(): Promise<void> {
    const request = this._request;
    this.clear();
    if (request) {
      await this.options.commit(request);
    }
  }

  dispose(): void {
    this.options.target?.removeEventListener('pagehide', this.onPageHide);
    this.clear();
  }

  private onPageHide = (): void => {
    const request = this._request;
    this.clear();
    if (request) {
      this.options.beacon(request);
    }
  };

  private publish(): void {
    const r = this._request;
    this.options.model.pending = r
      ? {
          attemptId: r.attemptId,
          step: r.step,
          kind: r.kind,
          remaining: this._remaining
        }
      : null;
  }

  private clear(): void {
    clearInterval(this.ticker);
    clearTimeout(this.deadline);
    this.ticker = undefined;
    this.deadline = undefined;
    if (this._request) {
      this._request = null;
      this.publish();
    }
  }

  private _request: ISettleRequest | null = null;
  private _remaining = 0;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private deadline: ReturnType<typeof setTimeout> | undefined;
}
