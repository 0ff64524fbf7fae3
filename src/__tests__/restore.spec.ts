import { IStateDB } from '@jupyterlab/statedb';

import { CIBenchModel } from '../model';
import { readPanelState, restorePanel, STATE_KEY } from '../panel/restore';
import { attemptView } from './fixtures';

/** An in-memory state database (the lab's own is a server-backed IStateDB). */
function memoryState(initial: { [key: string]: unknown } = {}) {
  const data = { ...initial };
  const db = {
    fetch: async (key: string) => data[key],
    save: async (key: string, value: unknown) => {
      data[key] = value;
    }
  };
  return { db: db as unknown as IStateDB, data };
}

describe('panel state', () => {
  it('reads only a well-formed state', () => {
    expect(readPanelState({ view: 'attempt', attempt: 'a1' })).toEqual({
      view: 'attempt',
      attempt: 'a1',
      study: null
    });
    expect(readPanelState({ view: 'tasks', attempt: 3 })).toEqual({
      view: 'tasks',
      attempt: null,
      study: null
    });
    expect(readPanelState({ view: 'study', study: 'pilot' })).toEqual({
      view: 'study',
      attempt: null,
      study: 'pilot'
    });
    expect(readPanelState({ view: 'results', study: 'pilot' })).toEqual({
      view: 'study', // the results view reopens as its study's
      attempt: null,
      study: 'pilot'
    });
    expect(readPanelState({ view: 'study', study: 7 })).toEqual({
      view: 'tasks', // a study view without its study: the task list
      attempt: null,
      study: null
    });
    expect(readPanelState({ view: 'other' })).toBeNull();
    expect(readPanelState(null)).toBeNull();
  });

  it('shows the attempt the panel showed before the reload', async () => {
    const model = new CIBenchModel();
    const { db } = memoryState({
      [STATE_KEY]: { view: 'attempt', attempt: 'a1' }
    });
    const asked: string[] = [];
    await restorePanel(model, db, async id => {
      asked.push(id);
      model.showAttempt(attemptView({ id }));
    });
    expect(asked).toEqual(['a1']);
    expect(model.view).toBe('attempt');
    expect(model.attempt?.id).toBe('a1');
  });

  it('keeps an attempt a reopened notebook already showed', async () => {
    const model = new CIBenchModel();
    model.showAttempt(attemptView({ id: 'b2' }));
    const { db } = memoryState({
      [STATE_KEY]: { view: 'tasks', attempt: 'a1' }
    });
    const asked: string[] = [];
    await restorePanel(model, db, async id => {
      asked.push(id);
    });
    expect(asked).toEqual([]);
    expect(model.attempt?.id).toBe('b2');
  });

  it('saves the view and the attempt when they change', async () => {
    const model = new CIBenchModel();
    const { db, data } = memoryState();
    await restorePanel(model, db, async () => undefined);
    model.showAttempt(attemptView({ id: 'c3' }));
    expect(data[STATE_KEY]).toEqual({
      view: 'attempt',
      attempt: 'c3',
      study: null
    });
    model.view = 'tasks';
    expect(data[STATE_KEY]).toEqual({
      view: 'tasks',
      attempt: 'c3',
      study: null
    });
    model.study = 'pilot';
    model.view = 'study';
    expect(data[STATE_KEY]).toEqual({
      view: 'study',
      attempt: 'c3',
      study: 'pilot'
    });
    model.view = 'results';
    expect(data[STATE_KEY]).toEqual({
      view: 'study',
      attempt: 'c3',
      study: 'pilot'
    });
    model.view = 'tasks';
    expect(data[STATE_KEY]).toEqual({
      view: 'tasks',
      attempt: 'c3',
      study: null
    });
  });

  it('reopens the study view of the study it showed, with its attempt kept', async () => {
    const model = new CIBenchModel();
    const { db } = memoryState({
      [STATE_KEY]: { view: 'study', attempt: 'a1', study: 'pilot' }
    });
    await restorePanel(model, db, async id => {
      model.showAttempt(attemptView({ id })); // the attempt view would show
    });
    expect(model.view).toBe('study');
    expect(model.study).toBe('pilot');
    expect(model.attempt?.id).toBe('a1');
  });
});
