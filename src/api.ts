/**
 * Typed client for the cibench-lab REST API (docs/api.md).
 *
 * Every route lives under `<base_url>/cibench-lab/api/`. Errors come back as
 * `{error, status}`; the client throws an `ApiError` carrying that message.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

export type Mode = 'e2e' | 'oracle';
export type StepKind = 'exec' | 'num' | 'text' | 'vis' | 'general';
export type Reveal = 'after-step' | 'after-task' | 'never';
export type AttemptStatus = 'open' | 'done';

/** A row of `GET tasks`. */
export interface ITaskSummary {
  id: string;
  title: string;
  split: string;
  lib: string;
  language: string;
  libraries: string[];
  steps: number;
  kinds: StepKind[];
}

/** One step as `GET tasks/{id}` describes it (no reference material). */
export interface ITaskInstruction {
  index: number;
  kind: StepKind;
  instruction?: string;
  modules?: string[];
}

/** `GET tasks/{id}`. */
export interface ITaskDetail extends ITaskSummary {
  intro: string;
  instructions: ITaskInstruction[];
}

/** Play settings recorded with each attempt. */
export interface IPlaySettings {
  show_grades: boolean;
  turn_cap: number;
  reveal: Reveal;
  max_turn?: number;
}

/** `GET settings`. */
export interface IServerSettings {
  defaults: IPlaySettings;
  locked: boolean;
  turn_timeout: number;
  profile: string;
}

/** A step's grade under one profile. */
export interface IGrade {
  profile: string;
  kind: StepKind;
  tool: number;
  exec: number;
  score: number | null;
  metric: string;
  detail: string;
  passed: boolean;
  ungradable: string | null;
}

/** Reference material, present only for settled steps the policy reveals. */
export interface IReference {
  code: string;
  thought: string;
  output: string;
}

/** One opened step of an attempt view. */
export interface IStepView {
  index: number;
  kind: StepKind;
  instruction: string;
  modules: string[];
  turns: number;
  outcome: string | null;
  settled: boolean;
  seconds: number | null;
  grade: IGrade | null;
  reference?: IReference;
}

/** Per-metric means ×100 (null when no step of that kind). */
export interface ISummary {
  tool: number | null;
  exec: number | null;
  num: number | null;
  text: number | null;
  vis: number | null;
  counts?: { [metric: string]: number };
}

/**
 * What happens next in an attempt, as the server's step driver decides it:
 * `propose` (ask the attached player for step `step`'s turn), `run` (run the
 * player's `code` as that turn), `reference` (oracle mode: run settled step
 * `step`'s reference `code`), `wait` (a person plays step `step`), `done`
 * (oracle mode: with the last step's reference to `show`, nothing recorded).
 */
export interface INextAction {
  do: 'propose' | 'run' | 'reference' | 'wait' | 'done';
  step?: number;
  turn?: number;
  code?: string;
  show?: { step: number; code: string };
}

/** `GET attempts/{id}`. */
export interface IAttemptView {
  id: string;
  task_id: string;
  title: string;
  intro: string;
  mode: Mode;
  player: string;
  status: AttemptStatus;
  current_step: number;
  n_steps: number;
  kinds: StepKind[];
  settings: IPlaySettings;
  notebook_path: string;
  kernel_id: string | null;
  profile: string;
  steps: IStepView[];
  summary: ISummary | null;
  next: INextAction;
  created_at?: string;
}

/** A row of `GET attempts`. */
export interface IAttemptSummary {
  id: string;
  task_id: string;
  mode: Mode;
  status: AttemptStatus;
  current_step: number;
  n_steps: number;
  notebook_path: string;
  created_at: string;
}

/** `POST attempts/{id}/kernel`. */
export interface IKernelBinding {
  kernel_id: string;
  restored_cells: number;
}

/** How a step settled. */
export interface ISettled {
  step: number;
  outcome: string;
  grade: IGrade | null;
  next_step: number | null;
  oracle_code: string | null;
}

/** `POST attempts/{id}/turns`. */
export interface ITurnResult {
  step: number;
  turn: number;
  grade: IGrade | null;
  settled: ISettled | null;
  next: INextAction;
  attempt: IAttemptView;
}

/** `POST attempts/{id}/next` and `give-up`. */
export interface ISettleResult {
  settled: ISettled;
  next: INextAction;
  attempt: IAttemptView;
}

/** `POST attempts/{id}/oracle`. */
export interface IReferenceResult {
  step: number;
  recorded: boolean;
  next: INextAction;
}

/** Who plays a new attempt: a person (null), a configured model, or a recorded run. */
export type PlayerChoice =
  null | { model: string } | { replay: string } | { transcript: string };

/** Body of `POST attempts`. */
export interface IStartRequest {
  task_id: string;
  mode: Mode;
  settings?: Partial<IPlaySettings>;
  player?: PlayerChoice;
}

/** A row of `GET models`: a model the server lets the lab attach. */
export interface IModelInfo {
  name: string;
  protocol: string;
}

/** A row of `GET recordings?task=ID`: a recorded model run of the task. */
export interface IRecording {
  id: string;
  run: string;
  player: string;
  mode: Mode;
  status: AttemptStatus;
  created_at: string;
}

/** `POST attempts/{id}/propose`: the attached player's next turn. */
export interface IProposal {
  step: number;
  turn: number;
  /** `code`: run `code` in the step's cell; anything else ran nothing. */
  action: string;
  code: string | null;
  /** The model's request: total tokens and seconds (null for replays). */
  tokens: number | null;
  latency_s: number | null;
  /** Whether the server recorded a turn itself (a reply that ran nothing). */
  recorded: boolean;
  grade: IGrade | null;
  settled: ISettled | null;
  next: INextAction;
  attempt: IAttemptView;
}

/** A row of `GET attempts/{id}/turns`. */
export interface ITurnDetail {
  step: number;
  turn: number;
  code: string;
  error: boolean;
  started_at: string;
  grade: IGrade | null;
  status?: string;
  action?: string;
  protocol?: string;
  model?: string;
  prompt?: unknown[];
  response?: string;
  thought?: string;
  tokens?: { prompt?: number; completion?: number; total?: number };
  latency_s?: number;
  retries?: number;
  finish_reason?: string;
  edited?: boolean;
  /** The messages the model was shown after the turn ran. */
  observation?: unknown[];
  replay?: { source?: string; turn?: number };
}

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
  return `request failed (HTTP ${status})`;
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

  serverSettings(): Promise<IServerSettings> {
    return this.request('settings');
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
    return this.request(`attempts/${encodeURIComponent(id)}/kernel`, {
      kernel_id: kernelId
    });
  }

  turn(
    id: string,
    step: number,
    kernelId: string,
    msgId: string
  ): Promise<ITurnResult> {
    return this.request(`attempts/${encodeURIComponent(id)}/turns`, {
      step,
      kernel_id: kernelId,
      msg_id: msgId
    });
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

  stop(id: string): Promise<{ stopped: boolean }> {
    return this.request(`attempts/${encodeURIComponent(id)}/stop`, {});
  }

  oracle(
    id: string,
    step: number,
    kernelId: string,
    msgId: string
  ): Promise<IReferenceResult> {
    return this.request(`attempts/${encodeURIComponent(id)}/oracle`, {
      step,
      kernel_id: kernelId,
      msg_id: msgId
    });
  }

  turns(id: string): Promise<ITurnDetail[]> {
    return this.request(`attempts/${encodeURIComponent(id)}/turns`);
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
      throw new ApiError(`cannot reach the server: ${String(err)}`, 0);
    }
    const data = await readJson(response);
    if (!response.ok) {
      throw new ApiError(errorMessage(data, response.status), response.status);
    }
    return data as T;
  }
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
