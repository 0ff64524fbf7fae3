/**
 * The study controller: loads the server's studies, shows one, and does what
 * the study view's buttons say — consent, Start next task, Open, Quit, Hand
 * over — through the study routes; the attempts it starts are played as any
 * other (the attempt controller opens their notebooks).
 */
import { ApiError, IAttemptView } from '../api';
import { CIBenchModel } from '../model';
import type {
  IConsentRequest,
  IPlanItem,
  IStudyView,
  ProfileName,
  StudyApi
} from './api';
import type { StudyModel } from './model';
import type { IResultsActions, IResultsState } from './results';
import type { IStudyActions } from './view';
import type { IWayOnActions } from './wayon';
import { fieldErrors } from './words';
import { trans } from '../i18n';

/** What the study controller needs of the lab. */
export interface IStudyHost {
  api: StudyApi;
  /** The panel's model: its view, busy flag and error line. */
  lab: CIBenchModel;
  /** Open an attempt's notebook and show the attempt in the panel. */
  openAttempt(attemptId: string, notebookPath: string): Promise<void>;
  /** Reload the panel's tasks and attempts (the participant may have changed). */
  refresh(): Promise<void>;
  /** Save and close these notebooks, when open. */
  closeNotebooks(paths: string[]): Promise<void>;
  /**
   * Close every main-area tab but the launcher's and these notebooks (a
   * shared seat's sign-in or hand over: nothing of anyone else's stays open).
   */
  closeTabsExcept(paths: string[]): Promise<void>;
  /** Ask before an action that cannot be undone. */
  confirm(title: string, body: string, ok: string): Promise<boolean>;
  /** Show the panel and put the focus in the study view. */
  reveal(): void;
  /** Draw the results view in the main area (opened, or brought to the front). */
  showResults(state: IResultsState): void;
}

export class StudyController
  implements IStudyActions, IResultsActions, IWayOnActions
{
  constructor(
    private model: StudyModel,
    private host: IStudyHost
  ) {
    host.lab.changed.connect((_, kind) => {
      if (kind === 'attempt') {
        this.onAttempt(host.lab.attempt);
      } else if (kind === 'view' && host.lab.view === 'study') {
        void this.reload();
      } else if (kind === 'attempts') {
        void this.reloadList(); // an attempt ended, or Refresh: the counts follow
      }
    });
  }

  /** The server's studies (none: the list stays hidden). */
  async load(): Promise<void> {
    await this.host.lab.run(async () => {
      this.model.studies = await this.host.api.studies();
    });
  }

  /** Show a study in the panel (the study list, a `?cibench-study=ID` link). */
  async open(id: string): Promise<void> {
    await this.host.lab.run(async () => {
      this.model.show(await this.host.api.study(id));
      this.host.lab.study = id;
      this.host.lab.view = 'study';
    });
    this.host.reveal();
  }

  /**
   * The panel reopened on a study view after a reload (src/panel/restore.ts):
   * draw its study; one that is gone leaves the task list shown.
   */
  async resume(): Promise<void> {
    if (this.host.lab.view === 'study' && this.host.lab.study) {
      await this.reload();
    }
  }

  async consent(body: IConsentRequest): Promise<void> {
    const study = this.model.study;
    if (!study) {
      return;
    }
    // sent even unaccepted: the server names every field's problem at once
    await this.host.lab.run(async () => {
      let view: IStudyView;
      try {
        view = await this.host.api.consent(study.id, body);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 400) {
          throw err;
        }
        const { fields, rest } = fieldErrors(err.message);
        this.model.show(study, fields);
        if (rest) {
          throw new ApiError(rest, err.status);
        }
        return;
      }
      await this.afterSignIn(); // a participant code signed in: their attempts, their studies
      if (view.participant_code) {
        await this.seatTaken(); // nothing of the one before stays in view
      }
      this.model.show(view);
    });
  }

  /** The study as the participant stands in it now (the way on from an ended task). */
  study(id: string): Promise<IStudyView> {
    return this.host.api.study(id);
  }

  /** Start the next task of the shown study (or of study `id`: the way on from an ended task). */
  async startNext(id = this.model.study?.id): Promise<void> {
    if (!id) {
      return;
    }
    const started = await this.host.lab.run(() => this.host.api.start(id));
    if (started) {
      this.model.show(started.study);
      void this.reloadList();
      await this.host.openAttempt(
        started.attempt.id,
        started.attempt.notebook_path
      );
    }
  }

  async openItem(item: IPlanItem): Promise<void> {
    if (item.attempt_id && item.notebook_path) {
      await this.host.openAttempt(item.attempt_id, item.notebook_path);
    }
  }

  async quit(): Promise<void> {
    const study = this.model.study;
    const item =
      study?.current === null || !study ? null : study.items[study.current];
    if (!study || !item) {
      return;
    }
    const sure = await this.host.confirm(
      trans.__('Quit this task?'),
      trans.__(
        '"%1" is left unfinished and recorded as quit; you cannot come back to it.',
        item.title
      ),
      trans.__('Quit task')
    );
    if (!sure) {
      return;
    }
    await this.host.lab.run(async () => {
      await this.host.closeNotebooks(
        item.notebook_path ? [item.notebook_path] : []
      );
      this.model.show(await this.host.api.quit(study.id));
      // the study list counts it quit, the panel's attempts list it quit
      await Promise.all([this.reloadList(), this.host.refresh()]);
    });
  }

  async handOver(): Promise<void> {
    const study = this.model.study;
    if (!study) {
      return;
    }
    await this.host.lab.run(async () => {
      await this.host.closeTabsExcept([]); // the next person sees nothing of theirs
      this.host.lab.attempt = null;
      this.model.show(await this.host.api.handOver(study.id));
      await this.afterSignIn();
    });
  }

  /**
   * A participant code signed in at a shared seat: their attempts; the panel
   * and the main area keep only what is theirs (an attempt shown of someone
   * else's is dropped, every other tab closes).
   */
  private async seatTaken(): Promise<void> {
    const theirs = this.host.lab.attempts;
    const shown = this.host.lab.attempt;
    if (shown && !theirs.some(a => a.id === shown.id)) {
      this.host.lab.attempt = null;
    }
    await this.host.closeTabsExcept(theirs.map(a => a.notebook_path));
  }

  /** The study list again (where the participant stands changed); a failure keeps it. */
  private async reloadList(): Promise<void> {
    try {
      this.model.studies = await this.host.api.studies();
    } catch {
      // the list says what it said; the study view is right
    }
  }

  /** Who plays changed (or may have): the panel's attempts and the study list are theirs. */
  private async afterSignIn(): Promise<void> {
    const [studies] = await Promise.all([
      this.host.api.studies(),
      this.host.refresh()
    ]);
    this.model.studies = studies;
  }

  back(): void {
    this.host.lab.view = 'tasks';
  }

  /**
   * Researchers: the results view of the shown study (or of study `id`: the
   * view the lab reopens after a reload), with the runs a comparison can name,
   * in the main area.
   */
  async results(id = this.model.study?.id): Promise<void> {
    if (!id) {
      return;
    }
    await this.host.lab.run(async () => {
      const shown = this.model.study;
      const [runs, title] = await Promise.all([
        this.host.api.runs(id),
        shown?.id === id
          ? shown.title
          : this.host.api.study(id).then(view => view.title)
      ]);
      this.results_ = { study: id, title, runs, report: null, refused: null };
      this.host.showResults(this.results_);
    });
  }

  /** Compare the study's people with `runs`; a refusal (409) is shown in the view. */
  async compare(
    runs: string[],
    profile: ProfileName,
    allow: boolean
  ): Promise<void> {
    const shown = this.results_;
    if (!shown) {
      return;
    }
    if (!runs.length) {
      this.results_ = {
        ...shown,
        report: null,
        refused: trans.__('Choose at least one run to compare with.')
      };
      this.host.showResults(this.results_);
      return;
    }
    await this.host.lab.run(async () => {
      let next: IResultsState;
      try {
        const report = await this.host.api.compare(
          shown.study,
          runs,
          profile,
          allow
        );
        next = { ...shown, report, refused: null };
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 409) {
          throw err;
        }
        next = { ...shown, report: null, refused: err.message };
      }
      this.results_ = next;
      this.host.showResults(next);
    });
  }

  /** The panel's study view of the results shown. */
  async backToStudy(): Promise<void> {
    const id = this.results_?.study ?? this.model.study?.id;
    if (id) {
      await this.open(id);
    }
  }

  private results_: IResultsState | null = null;

  /** The study view again from the server (times, an attempt that ended), of the panel's study. */
  private async reload(): Promise<void> {
    const id = this.host.lab.study ?? this.model.study?.id;
    if (!id) {
      return;
    }
    await this.host.lab.run(async () =>
      this.model.show(await this.host.api.study(id))
    );
    if (this.model.study?.id !== id && this.host.lab.view === 'study') {
      this.host.lab.study = null; // gone (its error shows): back to the task list
      this.host.lab.view = 'tasks';
    }
  }

  /** An attempt of the shown study changed status (it finished): the study view follows. */
  private onAttempt(attempt: IAttemptView | null): void {
    const item = this.model.study?.items.find(
      i => i.attempt_id === attempt?.id
    );
    if (attempt && item && item.status !== attempt.status) {
      void this.reload();
    }
  }
}
