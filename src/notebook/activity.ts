/**
 * The person's activity in an attempt's notebook, for the server's working
 * clock: edits are reported at most once per interval (20 s) — the first at
 * once, later ones at the end of the interval they fall in.
 */

/** How often at most an attempt's notebook reports activity. */
export const ACTIVITY_INTERVAL_MS = 20_000;

/** Timers, replaceable in tests. */
export interface IClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const REAL_CLOCK: IClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: handle => clearTimeout(handle as ReturnType<typeof setTimeout>)
};

export class ActivityThrottle {
  constructor(
    private send: () => void,
    private interval = ACTIVITY_INTERVAL_MS,
    private clock: IClock = REAL_CLOCK
  ) {}

  /** Something was edited. */
  note(): void {
    if (this.disposed || this.timer !== null) {
      return; // a report is due at the end of this interval
    }
    const wait = this.last + this.interval - this.clock.now();
    if (wait <= 0) {
      this.fire();
    } else {
      this.timer = this.clock.setTimeout(() => {
        this.timer = null;
        this.fire();
      }, wait);
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== null) {
      this.clock.clearTimeout(this.timer);
      this.timer = null;
    }
  }

  private fire(): void {
    if (this.disposed) {
      return;
    }
    this.last = this.clock.now();
    this.send();
  }

  private last = -Infinity;
  private timer: unknown = null;
  private disposed = false;
}
