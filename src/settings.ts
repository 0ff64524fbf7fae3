/**
 * The lab settings (schema/plugin.json) a new attempt is started with, and
 * the number settings that pace the lab's own reads (`classViewPoll`,
 * `taskListPoll`).
 */
import { ISettingRegistry } from '@jupyterlab/settingregistry';

import { IPlaySettings, IServerSettings, Reveal } from './api';

type GradeRule = IPlaySettings['grade_rule'];

const REVEAL: Reveal[] = ['after-step', 'after-task', 'never'];
const GRADE_RULES: GradeRule[] = ['best', 'settling'];

/**
 * Play settings from the settings a person set (invalid values dropped). Only
 * what they set is sent: the schema's defaults would override the server's.
 */
export function playSettingsFrom(composite: {
  [key: string]: unknown;
}): Partial<IPlaySettings> {
  const out: Partial<IPlaySettings> = {};
  const { showGrades, turnCap, reveal, gradeRule } = composite;
  if (typeof showGrades === 'boolean') {
    out.show_grades = showGrades;
  }
  if (
    typeof turnCap === 'number' &&
    Number.isInteger(turnCap) &&
    turnCap >= 0
  ) {
    out.turn_cap = turnCap;
  }
  if (typeof reveal === 'string' && (REVEAL as string[]).includes(reveal)) {
    out.reveal = reveal as Reveal;
  }
  if (
    typeof gradeRule === 'string' &&
    (GRADE_RULES as string[]).includes(gradeRule)
  ) {
    out.grade_rule = gradeRule as GradeRule;
  }
  const pauseAfter = composite.pauseAfter;
  if (
    typeof pauseAfter === 'number' &&
    Number.isInteger(pauseAfter) &&
    pauseAfter >= 1
  ) {
    out.pause_after = pauseAfter;
  }
  return out;
}

/**
 * The turn cap the server gives a person's new attempt (0: none): the
 * server's default when it locks its settings or the person set none; where
 * it guards them, the smaller of the two caps (0, no cap, is the loosest:
 * docs/teach/reference.md, "Whose settings"); else theirs.
 */
export function personTurnCap(
  server: Pick<IServerSettings, 'locked' | 'defaults'> &
    Partial<Pick<IServerSettings, 'guarded'>>,
  own: Partial<IPlaySettings>
): number {
  const base = server.defaults.turn_cap;
  const mine = server.locked ? base : (own.turn_cap ?? base);
  if (!server.guarded) {
    return mine;
  }
  const caps = [base, mine].filter(cap => cap > 0);
  return caps.length ? Math.min(...caps) : 0;
}

/** Keeps the current play settings of the plugin. */
export class PlaySettingsSource {
  /** The settings to send with `POST attempts` (empty: server defaults). */
  get current(): Partial<IPlaySettings> {
    return { ...this._current };
  }

  /** Load the plugin's settings and follow their changes. */
  async load(registry: ISettingRegistry, pluginId: string): Promise<void> {
    try {
      const settings = await registry.load(pluginId);
      const update = () => {
        this._current = playSettingsFrom(
          settings.user as { [key: string]: unknown }
        );
      };
      update();
      settings.changed.connect(update);
    } catch (err) {
      console.warn(`cibench-lab: cannot load settings of ${pluginId}`, err);
    }
  }

  private _current: Partial<IPlaySettings> = {};
}

/**
 * Hand the number setting `key` of `pluginId` to `set` now and at each change:
 * `fallback` when it is unset or below `min` (nothing without a registry).
 */
export function followNumber(
  registry: ISettingRegistry | null,
  pluginId: string,
  key: string,
  fallback: number,
  min: number,
  set: (value: number) => void
): void {
  void registry
    ?.load(pluginId)
    .then(settings => {
      const read = () => {
        const value = settings.composite[key];
        set(typeof value === 'number' && value >= min ? value : fallback);
      };
      read();
      settings.changed.connect(read);
    })
    .catch(err =>
      console.warn(`cibench-lab: cannot load settings of ${pluginId}`, err)
    );
}
