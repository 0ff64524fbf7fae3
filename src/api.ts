/**
 * Typed client for the cibench-lab REST API (docs/api.md).
 *
 * The payload types come from `./schema`, generated from the server's OpenAPI
 * document (docs/openapi.json) by `scripts/gen-api`: never edit them by hand.
 *
 * Every route lives under `<base_url>/cibench-lab/api/`. Errors come back as
 * `{error, status}`; the client throws an `ApiError` carrying that message.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import type { components } from './schema';
import { trans } from './i18n';

type Schemas = components['schemas'];

export type Mode = Schemas['Mode'];
export type StepKind = Schemas['StepKind'];
export type Reveal = Schemas['Reveal'];
export type AttemptStatus = Schemas['AttemptStatus'];
/** Which of a person's runs gives the step its grade (`best` or `settling`). */
export type GradeRule = Schemas['GradeRule'];
/** What an attached player's proposal does (`code`: run it in the step's cell). */
export type ProposalAction = Schemas['Action'];

/** A row of `GET tasks`. */
export type ITaskSummary = Schemas['TaskSummary'];
/** One step as `GET tasks/{id}` describes it (no reference material). */
export type ITaskInstruction = Schemas['TaskInstruction'];
/** `GET tasks/{id}`. */
export type ITaskDetail = Schemas['TaskDetail'];
/** Play settings recorded with each attempt. */
export type IPlaySettings = Schemas['PlaySettingsView'];
/** `GET settings`. */
export type IServerSettings = Schemas['ServerSettings'];
/** A step's grade under one profile. */
export type IGrade = Schemas['Grade'];
/** Reference material, present only for settled steps the policy reveals. */
export type IReference = Schemas['Reference'];
/** One opened step of an attempt view. */
export type IStepView = Schemas['StepView'];
/** Per-metric means x100 (null when no step of that kind). */
export type ISummary = Schemas['Summary'];
/** A benchmark's own measures of an attempt x100 (its summary's `benchmark_measures`). */
export type IBenchmarkMeasures = Schemas['BenchmarkMeasures'];
/**
 * What happens next in an attempt, as the server's step driver decides it:
 * `propose` (ask the attached player for step `step`'s turn), `run` (run the
 * player's `code` as that turn), `reference` (oracle mode: run settled step
 * `step`'s reference `code`), `wait` (a person plays step `step`), `done`
 * (oracle mode: with the last step's reference to `show`, nothing recorded).
 */
export type INextAction = Schemas['NextAction'];
/** `GET attempts/{id}`. */
export type IAttemptView = Schemas['AttemptView'];
/** A row of `GET attempts`. */
export type IAttemptSummary = Schemas['AttemptRow'];
/** `POST attempts/{id}/kernel`. */
export type IKernelBinding = Schemas['KernelBinding'];
/** How a step settled. */
export type ISettled = Schemas['Settled'];
/** `POST attempts/{id}/turns`. */
export type ITurnResult = Schemas['TurnResult'];
/** `POST attempts/{id}/next` and `give-up`. */
export type ISettleResult = Schemas['SettleResult'];
/** Who plays a new attempt: a person (null), a configured model, or a recorded run. */
export type PlayerChoice = Schemas['PlayerChoice'] | null;
/** Body of `POST attempts`. */
export type IStartRequest = Schemas['StartAttempt'];
/** A row of `GET models`: a model the server lets the lab attach. */
export type IModelInfo = Schemas['ModelInfo'];
/** A row of `GET recordings?task=ID`: a recorded model run of the task. */
export type IRecording = Schemas['Recording'];
/** `POST attempts/{id}/propose`: the attached player's next turn. */
export type IProposal = Schemas['Proposal'];
/** `POST attempts/{id}/stop`. */
export type IStopped = Schemas['Stopped'];
/** `POST attempts/{id}/oracle`. */
export type IReferenceResult = Schemas['ReferenceResult'];
/** A row of `GET attempts/{id}/turns`. */
export type ITurnDetail = Schemas['TurnDetail'];
/** An interval the working clock stood still (the attempt view's `pauses`). */
export type IPauseView = Schemas['PauseView'];
/** How the person paused or resumed the clock: the panel's button or a command. */
export type ClockCause = Schemas['PauseCause'];
/** `POST attempts/{id}/note`. */
export type INote = Schemas['Note'];
/** `GET attempts/{id}/trace`: every run on the attempt's kernel and the edits per cell. */
export type ITrace = Schemas['Trace'];
/** The body of `POST attempts/{id}/activity` besides its step. */
export type IActivityBody = Omit<Schemas['ActivityReport'], 'step'>;
/** Body of `POST tasks`: make (or with `check`, only check) a task from a solution notebook. */
export type INewTaskRequest = Schemas['NewTaskRequest'];
/** `POST tasks`: the task made (or that would be), its steps, and what is refused per cell. */
export type INewTaskResult = Schemas['NewTaskResult'];
/** One step of `INewTaskResult`, as the teacher confirms it. */
export type INewTaskStep = Schemas['NewTaskStep'];
/** The body of every error response. */
export type IErrorBody = Schemas['Error'];
/** `GET me`: the server's user, their roles and classes. */
export type IMe = Schemas['Me'];
/** A role: `participant` (everyone), `instructor`, `researcher`. */
export type Role = Schemas['Role'];
/** A row of `GET classes` (instructors): a class and its members. */
export type IClassInfo = Schemas['ClassInfo'];

/** An API failure, with the server's message and HTTP status. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Path segments of a task id, each URL-encoded (ids contain slashes). */
export function taskPath(id: string): string {
  return id.split('/').map(encodeURIComponent).join('/');
}

/** The message to show for a failed response body. */
export function errorMessage(body: unknown, status: number): string {
  if (body && typeof body === 'object') {
    const b = body as { error?: unknown; message?: unknown };
    if (typeof b.error === 'string' && b.error) {
      return b.error;
    }
    if (typeof b.message === 'string' && b.message) {
      return b.message;
    }
  }
  return trans.__('request failed (HTTP %1)', status);
}

/** A cookie's value, or undefined. */
export function cookieValue(cookies: string, name: string): string | undefined {
  for (const part of cookies.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) {
      return decodeURIComponent(rest.join('='));
    }
  }
  return undefined;
}

/**
 * The headers `ServerConnection.makeRequest` sends with a JSON POST: the
 * token (when the settings hold one) and the XSRF cookie's value.
 */
export function requestHeaders(
  token: string,
  cookies: string
): { [name: string]: string } {
  const headers: { [name: string]: string } = {
    'Content-Type': 'application/json'
  };
  if (token) {
    headers['Authorization'] = `token ${token}`;
  }
  const xsrf = cookieValue(cookies, '_xsrf');
  if (xsrf !== undefined) {
    headers['X-XSRFToken'] = xsrf;
  }
  return headers;
}

/** The client for all routes of docs/api.md. */
export class CIBenchApi {
  constructor(settings?: ServerConnection.ISettings) {
    this.settings = settings ?? ServerConnection.makeSettings();
  }

  readonly settings: ServerConnection.ISettings;

  tasks(): Promise<ITaskSummary[]> {
    return this.request('tasks');
  }

  task(id: string): Promise<ITaskDetail> {
    return this.request(`tasks/${taskPath(id)}`);
  }

  /** Make a task from the solution notebook at `body.notebook` (relative to the server root). */
  newTask(body: INewTaskRequest): Promise<INewTaskResult> {
    return this.request('tasks', body);
  }

  /**
   * The server's settings, read once per page (they are its configuration:
   * fixed while it runs); a failed read is tried again at the next call.
   */
  serverSettings(): Promise<IServerSettings> {
    if (!this._serverSettings) {
      this._serverSettings = this.request<IServerSettings>('settings');
      this._serverSettings.catch(() => (this._serverSettings = null));
    }
    return this._serverSettings;
  }

  me(): Promise<IMe> {
    return this.request('me');
  }

  classes(): Promise<IClassInfo[]> {
    return this.request('classes');
  }

  attempts(): Promise<IAttemptSummary[]> {
    return this.request('attempts');
  }

  attempt(id: string): Promise<IAttemptView> {
    return this.request(`attempts/${encodeURIComponent(id)}`);
  }

  start(body: IStartRequest): Promise<IAttemptView> {
    return this.request('attempts', body);
  }

  bindKernel(id: string, kernelId: string): Promise<IKernelBinding> {
    const body: Schemas['KernelReport'] = { kernel_id: kernelId };
    return this.request(`attempts/${encodeURIComponent(id)}/kernel`, body);
  }

  turn(
    id: string,
    step: number,
    kernelId: string,
    msgId: string
  ): Promise<ITurnResult> {
    const body: Schemas['RunReport'] = {
      step,
      kernel_id: kernelId,
      msg_id: msgId
    };
    return this.request(`attempts/${encodeURIComponent(id)}/turns`, body);
  }

  next(id: string, step: number): Promise<ISettleResult> {
    return this.request(`attempts/${encodeURIComponent(id)}/next`, { step });
  }

  giveUp(id: string, step: number): Promise<ISettleResult> {
    return this.request(`attempts/${encodeURIComponent(id)}/give-up`, {
      step
    });
  }

  models(): Promise<IModelInfo[]> {
    return this.request('models');
  }

  recordings(taskId: string): Promise<IRecording[]> {
    return this.request(`recordings?task=${encodeURIComponent(taskId)}`);
  }

  propose(id: string, step: number): Promise<IProposal> {
    return this.request(`attempts/${encodeURIComponent(id)}/propose`, {
      step
    });
  }

  stop(id: string): Promise<IStopped> {
    return this.request(`attempts/${encodeURIComponent(id)}/stop`, {});
  }

  oracle(
    id: string,
    step: number,
    kernelId: string,
    msgId: string
  ): Promise<IReferenceResult> {
    const body: Schemas['RunReport'] = {
      step,
      kernel_id: kernelId,
      msg_id: msgId
    };
    return this.request(`attempts/${encodeURIComponent(id)}/oracle`, body);
  }

  turns(id: string): Promise<ITurnDetail[]> {
    return this.request(`attempts/${encodeURIComponent(id)}/turns`);
  }

  /**
   * POST `body` as JSON with `keepalive`, so the request outlives the page
   * (sent while the page is being closed or reloaded; its answer is lost).
   */
  keepalive(route: string, body: unknown): void {
    const url = URLExt.join(this.settings.baseUrl, 'cibench-lab/api', route);
    const cookies = typeof document === 'undefined' ? '' : document.cookie;
    const send = this.settings.fetch; // called unbound, as ServerConnection does
    void send(url, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: requestHeaders(this.settings.token, cookies),
      credentials: 'same-origin',
      cache: 'no-store',
      keepalive: true
    }).catch(() => undefined);
  }

  /** GET when `body` is undefined, else POST it as JSON. */
  async request<T>(route: string, body?: unknown): Promise<T> {
    const url = URLExt.join(this.settings.baseUrl, 'cibench-lab/api', route);
    const init: RequestInit =
      body === undefined
        ? { method: 'GET' }
        : { method: 'POST', body: JSON.stringify(body) };
    let response: Response;
    try {
      response = await ServerConnection.makeRequest(url, init, this.settings);
    } catch (err) {
      throw new ApiError(
        trans.__('cannot reach the server: %1', String(err)),
        0
      );
    }
    const data = await readJson(response);
    if (!response.ok) {
      throw new ApiError(errorMessage(data, response.status), response.status);
    }
    return data as T;
  }

  /** The person edited or ran cells while step `step` was open (the working clock runs on). */
  activity(
    id: string,
    step: number,
    extra: IActivityBody = {}
  ): Promise<Schemas['Activity']> {
    const body: Schemas['ActivityReport'] = { step, ...extra };
    return this.request(`attempts/${encodeURIComponent(id)}/activity`, body);
  }

  /** Pause (or, `resume`, resume) the attempt's working clock. */
  clock(id: string, resume: boolean, cause: ClockCause): Promise<IAttemptView> {
    const route = resume ? 'resume' : 'pause';
    const body: Schemas['PauseRequest'] = { cause };
    return this.request(`attempts/${encodeURIComponent(id)}/${route}`, body);
  }

  /** Save the person's whole note on step `step`. */
  note(id: string, step: number, text: string): Promise<INote> {
    const body: Schemas['NoteRequest'] = { step, text };
    return this.request(`attempts/${encodeURIComponent(id)}/note`, body);
  }

  trace(id: string): Promise<ITrace> {
    return this.request(`attempts/${encodeURIComponent(id)}/trace`);
  }

  private _serverSettings: Promise<IServerSettings> | null = null;
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) {
    return null;
  }
  try {
    return JSON.parse(text);
  } catch {
    return { error: text.slice(0, 200) };
  }
}
