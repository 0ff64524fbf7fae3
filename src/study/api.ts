/**
 * Typed client for the study routes (docs/api.md, "Studies"); the types come
 * from `../schema`, generated from docs/openapi.json.
 */
import { CIBenchApi } from '../api';
import type { components } from '../schema';

type Schemas = components['schemas'];

/** A row of `GET studies`. */
export type IStudySummary = Schemas['StudySummary'];
/** `GET studies/{id}`: the study as its participant sees it. */
export type IStudyView = Schemas['StudyView'];
/** One field of a study's questionnaire. */
export type IQuestion = Schemas['Question'];
/** One task of the participant's plan. */
export type IPlanItem = Schemas['PlanItem'];
/** Where the participant stands: consent, ready, playing, finished. */
export type StudyState = Schemas['StudyState'];
/** `POST studies/{id}/start`: the study view and the new attempt's view. */
export type IStudyStarted = Schemas['StudyStarted'];
/** Body of `POST studies/{id}/consent`. */
export type IConsentRequest = Schemas['ConsentRequest'];

/** `GET studies/{id}/compare`: the study's people beside recorded runs (docs/compare.md). */
export type IComparison = Schemas['Comparison'];
/** A step row of the comparison. */
export type ICompareStep = Schemas['StepRow'];
/** A library row of the comparison. */
export type ICompareLibrary = Schemas['LibraryRow'];
/** The people's figures of a step, task or library. */
export type IHumanFigures = Schemas['HumanFigures'];
/** A row of `GET studies/{id}/runs`. */
export type IRecordedRun = Schemas['RecordedRun'];
/** The grading profiles a comparison can use. */
export type ProfileName = Schemas['ProfileName'];

/** The study routes, over the panel's client. */
export class StudyApi {
  constructor(readonly api: CIBenchApi) {}

  studies(): Promise<IStudySummary[]> {
    return this.api.request('studies');
  }

  study(id: string): Promise<IStudyView> {
    return this.api.request(studyPath(id));
  }

  consent(id: string, body: IConsentRequest): Promise<IStudyView> {
    return this.api.request(`${studyPath(id)}/consent`, body);
  }

  start(id: string): Promise<IStudyStarted> {
    return this.api.request(`${studyPath(id)}/start`, {});
  }

  quit(id: string): Promise<IStudyView> {
    return this.api.request(`${studyPath(id)}/quit`, {});
  }

  /** The recorded runs a comparison can name (researchers only). */
  runs(id: string): Promise<IRecordedRun[]> {
    return this.api.request(`${studyPath(id)}/runs`);
  }

  /** The comparison report (researchers only; a mismatch is a 409 unless `allowMismatch`). */
  compare(
    id: string,
    runs: string[],
    profile: ProfileName,
    allowMismatch: boolean
  ): Promise<IComparison> {
    const query = new URLSearchParams({
      runs: runs.join(','),
      profile,
      allow_mismatch: String(allowMismatch)
    });
    return this.api.request(`${studyPath(id)}/compare?${query}`);
  }

  handOver(id: string): Promise<IStudyView> {
    return this.api.request(`${studyPath(id)}/handover`, {});
  }
}

function studyPath(id: string): string {
  return `studies/${encodeURIComponent(id)}`;
}
