/**
 * The participant record in the lab: Pause / Resume of the working clock and
 * the person's notes (for the attempt the panel shows), and each attached
 * notebook's activity reporter (activity.ts). The server decides what the
 * clock counts; this only sends what the person did and shows the answer.
 */
import { CIBenchApi, ClockCause, IAttemptView } from '../api';
import { CIBenchModel } from '../model';
import { IRecordActions } from '../panel/actions';
import { ActivityReporter, IActivitySession } from './activity';

/** An attached notebook's session as the recorder sees it (the view it keeps, too). */
export interface IRecordSession extends IActivitySession {
  readonly id: string;
  view: IAttemptView;
}

export interface IRecorderOptions {
  api: CIBenchApi;
  model: CIBenchModel;
  /** The session of an attempt whose notebook is open. */
  session: (attemptId: string) => IRecordSession | undefined;
}

export class Recorder implements IRecordActions {
  constructor(private options: IRecorderOptions) {}

  /** Whether the panel shows a person's open attempt whose clock runs. */
  canPause(): boolean {
    const view = this.shown();
    return !!view && !view.paused;
  }

  /** Whether the panel shows a person's open attempt whose clock is paused. */
  canResume(): boolean {
    return !!this.shown()?.paused;
  }

  pause(cause: ClockCause): Promise<void> {
    return this.clock(false, cause);
  }

  resume(cause: ClockCause): Promise<void> {
    return this.clock(true, cause);
  }

  async saveNote(attemptId: string, step: number, text: string): Promise<void> {
    await this.options.api.note(attemptId, step, text);
  }

  /** Report an attached notebook's activity (until `detach`). */
  attach(session: IRecordSession): void {
    if (!this.reporters.has(session)) {
      const reporter = new ActivityReporter(
        session,
        this.options.api,
        id => void this.refresh(id)
      );
      this.reporters.set(session, reporter);
    }
  }

  detach(session: IRecordSession): void {
    this.reporters.get(session)?.dispose();
    this.reporters.delete(session);
  }

  dispose(): void {
    this.reporters.forEach(reporter => reporter.dispose());
    this.reporters.clear();
  }

  /** The shown attempt, when it is a person's and open. */
  private shown(): IAttemptView | null {
    const view = this.options.model.attempt;
    return view?.status === 'open' && view.player === 'human' ? view : null;
  }

  private async clock(resume: boolean, cause: ClockCause): Promise<void> {
    const view = this.shown();
    if (!view || this.sending) {
      return; // (a second click before the answer)
    }
    this.sending = true;
    try {
      await this.options.model.run(async () => {
        this.show(await this.options.api.clock(view.id, resume, cause));
      });
    } finally {
      this.sending = false;
    }
  }

  /** An edit resumed the clock: show the attempt as it is now. */
  private async refresh(attemptId: string): Promise<void> {
    try {
      this.show(await this.options.api.attempt(attemptId));
    } catch (err) {
      console.debug('cibench-lab: the attempt view was not refreshed', err);
    }
  }

  private show(view: IAttemptView): void {
    const session = this.options.session(view.id);
    if (session) {
      session.view = view;
    }
    if (this.options.model.attempt?.id === view.id) {
      this.options.model.attempt = view;
    }
  }

  private reporters = new Map<IRecordSession, ActivityReporter>();
  private sending = false;
}
