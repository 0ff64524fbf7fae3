/**
 * Typed client for the class view's routes (docs/api.md, "Roles"): an
 * instructor's class progress, its CSV and a member's attempt record.
 */
import { CIBenchApi } from '../api';
import type { components } from '../schema';

type Schemas = components['schemas'];

/** `GET classes/{name}/progress`. */
export type IClassProgress = Schemas['ClassProgress'];
/** One member's attempt: a cell of the table. */
export type IClassAttempt = Schemas['ClassAttempt'];
/** Of a task's attempts: how many reached a step, settled it, and passed it. */
export type IStepPassRate = Schemas['StepPassRate'];
/** `GET classes/{name}/csv`. */
export type IClassCSV = Schemas['ClassCSV'];
/** `GET classes/{name}/attempts/{id}`: a member's attempt for their instructor. */
export type IMemberAttempt = Schemas['MemberAttempt'];
/** One opened step of a member's attempt. */
export type IMemberStep = Schemas['MemberStep'];
/** One turn of a member's step. */
export type IMemberTurn = Schemas['MemberTurn'];

/** The class routes, over the panel's client. */
export class ClassApi {
  constructor(readonly api: CIBenchApi) {}

  progress(name: string): Promise<IClassProgress> {
    return this.api.request(`${classPath(name)}/progress`);
  }

  csv(name: string): Promise<IClassCSV> {
    return this.api.request(`${classPath(name)}/csv`);
  }

  attempt(name: string, id: string): Promise<IMemberAttempt> {
    return this.api.request(
      `${classPath(name)}/attempts/${encodeURIComponent(id)}`
    );
  }
}

function classPath(name: string): string {
  return `classes/${encodeURIComponent(name)}`;
}
