/**
 * The CIBench panel's state, with Lumino signals, and the pure helpers the
 * views use to format it.
 */
import { ISignal, Signal } from '@lumino/signaling';

export { outcomeText } from './grade';
export { DASH, formatScore, formatSeconds, summaryRows } from './panel/words';

import {
  IAttemptSummary,
  IAttemptView,
  IMe,
  IModelInfo,
  IRecording,
  ITaskDetail,
  ITaskSummary,
  Mode,
  PlayerChoice
} from './api';
import { searchText } from './panel/qwen';
import { trans } from './i18n';

/** What changed in the model (the views re-render only that part). */
export type ChangeKind =
  | 'tasks'
  | 'filter'
  | 'selected'
  | 'mode'
  | 'attempts'
  | 'attempt'
  | 'view'
  | 'busy'
  | 'error'
  | 'players'
  | 'autoplay'
  | 'pending'
  | 'notebooks'
  | 'me'
  | 'notice'
  | 'study';

/** Which of the panel's views shows (`study`: a study's, src/study/view.ts). */
export type ViewKind = 'tasks' | 'attempt' | 'study' | 'results';

/** The task list's facets: '' lets every value through. */
export interface ITaskFacets {
  split: string;
  lib: string;
  language: string;
}

export const NO_FACETS: ITaskFacets = { split: '', lib: '', language: '' };

/** Whether a task has every chosen facet value. */
export function matchesFacets(
  task: ITaskSummary,
  facets: ITaskFacets
): boolean {
  return (
    (!facets.split || task.split === facets.split) &&
    (!facets.lib || task.lib === facets.lib) &&
    (!facets.language || task.language === facets.language)
  );
}

/**
 * Tasks with the chosen facets whose id, title, library or language — or a
 * Qwen task's question, files and source line — contain every word of `text`.
 */
export function filterTasks(
  tasks: readonly ITaskSummary[],
  text: string,
  facets: ITaskFacets = NO_FACETS
): ITaskSummary[] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  return tasks.filter(task => {
    if (!matchesFacets(task, facets)) {
      return false;
    }
    const hay = [task.id, task.title, task.lib, task.language, searchText(task)]
      .concat(task.libraries ?? [])
      .join(' ')
      .toLowerCase();
    return words.every(word => hay.includes(word));
  });
}

/** The label of a 0-based step. */
export function stepLabel(index: number): string {
  return trans.__('Step %1', index + 1);
}

/** The mode a task's intro preselects (each task anew: a choice is not carried to the next task). */
export const DEFAULT_MODE: Mode = 'e2e';

/** The label of a mode. */
export function modeLabel(mode: Mode): string {
  return mode === 'e2e' ? trans.__('end-to-end') : trans.__('oracle');
}

/** The message of anything thrown. */
export function messageOf(err: unknown): string {
  if (err instanceof Error) {
    return err.message;
  }
  return String(err);
}

/** The panel's state. */
export class CIBenchModel {
  get changed(): ISignal<this, ChangeKind> {
    return this._changed;
  }

  /**
   * The turn cap a new attempt of this person would get (0: none), as of the
   * last task selected: what the intro counts a Qwen item's runs allowed by.
   */
  turnCap = 0;

  /**
   * One line when the server's task kernels run off the pinned kernel
   * environment (GET settings' `kernel_unpinned`), else null.
   */
  get kernelNotice(): string | null {
    return this._kernelNotice;
  }
  set kernelNotice(notice: string | null) {
    if (notice !== this._kernelNotice) {
      this._kernelNotice = notice;
      this._changed.emit('notice');
    }
  }

  /** Who the server's user is: their roles and classes (null until read). */
  get me(): IMe | null {
    return this._me;
  }
  set me(me: IMe | null) {
    this._me = me;
    this._changed.emit('me');
  }

  get tasks(): readonly ITaskSummary[] {
    return this._tasks;
  }
  set tasks(tasks: readonly ITaskSummary[]) {
    this._tasks = tasks.slice();
    this._changed.emit('tasks');
  }

  get filter(): string {
    return this._filter;
  }
  set filter(text: string) {
    if (text !== this._filter) {
      this._filter = text;
      this._changed.emit('filter');
    }
  }

  /** The task list's facet choices (split, library, language). */
  get facets(): ITaskFacets {
    return { ...this._facets };
  }
  set facets(facets: ITaskFacets) {
    this._facets = { ...facets };
    this._changed.emit('filter');
  }

  /** The tasks that match the facets and the filter text. */
  get visibleTasks(): ITaskSummary[] {
    return filterTasks(this._tasks, this._filter, this._facets);
  }

  get selected(): ITaskDetail | null {
    return this._selected;
  }
  set selected(task: ITaskDetail | null) {
    this._selected = task;
    this._changed.emit('selected');
  }

  get mode(): Mode {
    return this._mode;
  }
  set mode(mode: Mode) {
    if (mode !== this._mode) {
      this._mode = mode;
      this._changed.emit('mode');
    }
  }

  get attempts(): readonly IAttemptSummary[] {
    return this._attempts;
  }
  set attempts(rows: readonly IAttemptSummary[]) {
    this._attempts = rows.slice();
    this._changed.emit('attempts');
  }

  /** The attempt the attempt view shows. */
  get attempt(): IAttemptView | null {
    return this._attempt;
  }
  set attempt(view: IAttemptView | null) {
    this._attempt = view;
    this._changed.emit('attempt');
  }

  get view(): ViewKind {
    return this._view;
  }
  set view(view: ViewKind) {
    if (view !== this._view) {
      this._view = view;
      this._changed.emit('view');
    }
  }

  /** The study the study view shows, by id (the studies plugin sets it; a reload restores it). */
  get study(): string | null {
    return this._study;
  }
  set study(id: string | null) {
    if (id !== this._study) {
      this._study = id;
      this._changed.emit('study');
    }
  }

  get busy(): boolean {
    return this._busy > 0;
  }

  get error(): string | null {
    return this._error;
  }
  set error(message: string | null) {
    this._error = message;
    this._changed.emit('error');
  }

  /** Models the server lets the lab attach (names and protocols only). */
  get models(): readonly IModelInfo[] {
    return this._models;
  }
  set models(models: readonly IModelInfo[]) {
    this._models = models.slice();
    this._changed.emit('players');
  }

  /** Recorded model runs of the selected task ("Replay a run"). */
  get recordings(): readonly IRecording[] {
    return this._recordings;
  }
  set recordings(rows: readonly IRecording[]) {
    this._recordings = rows.slice();
    this._changed.emit('players');
  }

  /** Who plays the next attempt: '' (you), `model:NAME` or `replay:ID`. */
  get player(): string {
    return this._player;
  }
  set player(key: string) {
    if (key !== this._player) {
      this._player = key;
      this._changed.emit('players');
    }
  }

  /** A transcript's path under the server root (player `transcript`). */
  get transcript(): string {
    return this._transcript;
  }
  set transcript(path: string) {
    this._transcript = path; // typed in place: no re-render
  }

  /** The start request's player for the current choice. */
  get playerChoice(): PlayerChoice {
    return playerChoice(this._player, this._transcript);
  }

  /** What the attached player is doing ('' when idle). */
  get autoplay(): IAutoplayState {
    return this._autoplay;
  }
  set autoplay(state: IAutoplayState) {
    this._autoplay = state;
    this._changed.emit('autoplay');
  }

  /** A person's settle waiting out its Undo window (null: none). */
  get pending(): IPendingSettle | null {
    return this._pending;
  }
  set pending(pending: IPendingSettle | null) {
    this._pending = pending;
    this._changed.emit('pending');
  }

  /** Whether the attempt's notebook is open in the lab. */
  hasNotebook(attemptId: string): boolean {
    return this._notebooks.has(attemptId);
  }

  /**
   * Whether the attempt's notebook was closed in this page (and not opened
   * again): not while it is still opening (Start, Open notebook, a reload).
   */
  closedNotebook(attemptId: string): boolean {
    return this._closed.has(attemptId);
  }

  /** Record that an attempt's notebook was opened or closed. */
  setNotebook(attemptId: string, open: boolean): void {
    if (open !== this._notebooks.has(attemptId)) {
      if (open) {
        this._notebooks.add(attemptId);
        this._closed.delete(attemptId);
      } else {
        this._notebooks.delete(attemptId);
        this._closed.add(attemptId);
      }
      this._changed.emit('notebooks');
    }
  }

  /** Show an attempt in the attempt view. */
  showAttempt(view: IAttemptView): void {
    this.attempt = view;
    this.view = 'attempt';
  }

  /**
   * Show the attempt of a notebook the lab reopened (after a reload): in the
   * attempt view, unless the panel shows a study — a restored study view stays.
   */
  showReopened(view: IAttemptView): void {
    if (this.view === 'study' || this.view === 'results') {
      this.attempt = view;
    } else {
      this.showAttempt(view);
    }
  }

  /** Update the attempt view if it shows this attempt (or nothing yet). */
  updateAttempt(view: IAttemptView): void {
    if (!this._attempt || this._attempt.id === view.id) {
      this.attempt = view;
    }
  }

  /** The title of a task id, when the task list knows it. */
  titleOf(taskId: string): string {
    return this._tasks.find(t => t.id === taskId)?.title ?? taskId;
  }

  /**
   * Run `work` with the busy flag set; a failure becomes `error` and
   * resolves to undefined.
   */
  async run<T>(work: () => Promise<T>): Promise<T | undefined> {
    this.setBusy(+1);
    this.error = null;
    try {
      return await work();
    } catch (err) {
      this.error = messageOf(err);
      return undefined;
    } finally {
      this.setBusy(-1);
    }
  }

  private setBusy(delta: number): void {
    const before = this.busy;
    this._busy = Math.max(0, this._busy + delta);
    if (before !== this.busy) {
      this._changed.emit('busy');
    }
  }

  private _changed = new Signal<this, ChangeKind>(this);
  private _kernelNotice: string | null = null;
  private _me: IMe | null = null;
  private _study: string | null = null;
  private _tasks: ITaskSummary[] = [];
  private _filter = '';
  private _facets: ITaskFacets = { ...NO_FACETS };
  private _pending: IPendingSettle | null = null;
  private _notebooks = new Set<string>();
  private _closed = new Set<string>();
  private _selected: ITaskDetail | null = null;
  private _mode: Mode = DEFAULT_MODE;
  private _attempts: IAttemptSummary[] = [];
  private _attempt: IAttemptView | null = null;
  private _view: ViewKind = 'tasks';
  private _busy = 0;
  private _error: string | null = null;
  private _models: IModelInfo[] = [];
  private _recordings: IRecording[] = [];
  private _player = '';
  private _transcript = '';
  private _autoplay: IAutoplayState = { id: '', playing: false, status: '' };
}

/** A settle a person asked for, sent when its Undo window ends. */
export interface IPendingSettle {
  attemptId: string;
  /** The step it settles (0-based). */
  step: number;
  kind: 'next' | 'give-up';
  /** Whole seconds left before it is sent. */
  remaining: number;
}

/** The attached player's activity, shown in the attempt view. */
export interface IAutoplayState {
  /** The attempt it is about ('' for none). */
  id: string;
  playing: boolean;
  status: string;
}

/** `model:NAME` / `replay:ID` / `transcript` / '' as the start request's player. */
export function playerChoice(key: string, transcript = ''): PlayerChoice {
  if (key === 'transcript') {
    return { transcript };
  }
  if (key.startsWith('model:')) {
    return { model: key.slice('model:'.length) };
  }
  if (key.startsWith('replay:')) {
    return { replay: key.slice('replay:'.length) };
  }
  return null;
}

/** How the panel names an attempt's player. */
export function playerLabel(player: string): string {
  if (player === 'human') {
    return trans.__('you');
  }
  if (player.startsWith('openai:')) {
    return trans.__('model %1', player.slice('openai:'.length));
  }
  if (player.startsWith('replay:file:')) {
    return trans.__('replay of %1', player.slice('replay:file:'.length));
  }
  if (player.startsWith('replay:attempt:')) {
    const start = 'replay:attempt:'.length;
    return trans.__('replay of attempt %1', player.slice(start, start + 8));
  }
  return player;
}
