import { Cell } from '@jupyterlab/cells';
import {
  Notebook,
  NotebookActions,
  NotebookModel,
  NotebookPanel
} from '@jupyterlab/notebook';
import { Signal } from '@lumino/signaling';

import { CIBenchApi, IActivityBody, IAttemptView } from '../api';
import {
  ACTIVITY_INTERVAL_MS,
  ActivityReporter,
  EDIT_GAP_MS,
  EditCounter,
  LeadingEdge
} from '../notebook/activity';
import { attemptView, quietYjsWarnings } from './fixtures';

quietYjsWarnings();

beforeEach(() => {
  jest.useFakeTimers();
  jest.setSystemTime(0);
});
afterEach(() => jest.useRealTimers());

/** A notebook panel as the reporter sees it: a real model, a node that may hold the focus. */
function setup(view: Partial<IAttemptView> = {}) {
  const model = new NotebookModel();
  model.sharedModel.insertCells(0, [
    { cell_type: 'code', source: '', id: 'cell-a' },
    { cell_type: 'code', source: '', id: 'cell-b' }
  ]);
  const node = document.createElement('div');
  const input = document.createElement('textarea');
  node.appendChild(input);
  document.body.appendChild(node);
  const panel = {
    model,
    node,
    isVisible: true,
    content: {}
  } as unknown as NotebookPanel;
  const sent: { at: number; step: number; body: IActivityBody }[] = [];
  let resumed = false;
  const api = {
    activity: async (_: string, step: number, body: IActivityBody) => {
      sent.push({ at: Date.now(), step, body });
      return { step, working_seconds: 1, resumed };
    }
  } as unknown as CIBenchApi;
  const session = {
    panel,
    view: attemptView(view),
    isDisposed: false
  };
  const refreshed: string[] = [];
  const reporter = new ActivityReporter(session, api, id => refreshed.push(id));
  const type = (cell: number, text: string) => {
    const shared = model.cells.get(cell).sharedModel;
    shared.setSource(shared.getSource() + text);
  };
  const later = (ms: number) => jest.advanceTimersByTime(ms);
  return {
    input,
    node,
    sent,
    session,
    reporter,
    type,
    later,
    refreshed,
    resumeNext: () => (resumed = true)
  };
}

describe('activity: leading edge', () => {
  it('reports the first edit at once and drops the rest of the interval, with no trailing report', () => {
    const edge = new LeadingEdge(20_000);
    const taken: number[] = [];
    const edit = () => edge.take() && taken.push(Date.now());
    edit();
    jest.advanceTimersByTime(5_000);
    edit();
    edit();
    jest.advanceTimersByTime(60_000); // quiet: nothing is sent late
    expect(taken).toEqual([0]);
    edit();
    expect(taken).toEqual([0, 65_000]);
    jest.advanceTimersByTime(19_999);
    edit();
    jest.advanceTimersByTime(1);
    edit();
    expect(taken).toEqual([0, 65_000, 85_000]);
  });

  it('reports at once when forced (the clock is paused)', () => {
    const edge = new LeadingEdge(20_000);
    expect(edge.take()).toBe(true);
    expect(edge.take()).toBe(false);
    expect(edge.take(true)).toBe(true);
  });
});

describe('activity: edits per cell', () => {
  it('counts a burst of changes to one cell as one edit', () => {
    const edits = new EditCounter();
    edits.change('a');
    jest.advanceTimersByTime(EDIT_GAP_MS - 1);
    edits.change('a'); // still typing
    edits.change('b'); // another cell
    edits.change('a'); // back: a new edit
    jest.advanceTimersByTime(EDIT_GAP_MS);
    edits.change('a'); // after a pause in typing
    expect(edits.take()).toEqual({ a: 3, b: 1 });
    expect(edits.take()).toEqual({});
    edits.change('a'); // within the gap, but the counts were taken: same burst
    expect(edits.take()).toEqual({});
    edits.ran('a');
    edits.change('a'); // a run ends the burst
    expect(edits.take()).toEqual({ a: 1 });
  });
});

describe('activity: reporter', () => {
  it('reports an edit at once and none for 20 s, then the next edit with the counts since', () => {
    const { input, sent, type, later } = setup();
    input.focus();
    type(0, 'x');
    expect(sent).toEqual([
      { at: 0, step: 1, body: { cells: { 'cell-a': 1 } } }
    ]);
    later(4_000);
    type(0, 'y'); // a new burst, inside the interval: counted only
    type(1, 'z');
    later(ACTIVITY_INTERVAL_MS); // nothing is sent at the end of the interval
    expect(sent).toHaveLength(1);
    type(1, 'w'); // after the interval: at once, with what was counted
    expect(sent[1]).toEqual({
      at: 24_000,
      step: 1,
      body: { cells: { 'cell-a': 1, 'cell-b': 2 } }
    });
  });

  it('counts nothing while the notebook does not have the focus or the page is hidden', () => {
    const { input, sent, type, node } = setup();
    type(0, 'x'); // the focus is elsewhere: e.g. the lab inserting a cell
    expect(sent).toEqual([]);
    input.focus();
    Object.defineProperty(document, 'visibilityState', {
      value: 'hidden',
      configurable: true
    });
    type(0, 'y');
    expect(sent).toEqual([]);
    Object.defineProperty(document, 'visibilityState', {
      value: 'visible',
      configurable: true
    });
    node.removeChild(input);
    type(0, 'z');
    expect(sent).toEqual([]);
  });

  it("reports while paused at once, and only for a person's open attempt", async () => {
    const { input, sent, type, session, refreshed, resumeNext, reporter } =
      setup();
    input.focus();
    type(0, 'x');
    session.view = attemptView({ paused: true });
    resumeNext();
    type(0, 'y'); // within 20 s, but the clock is paused: at once
    expect(sent).toHaveLength(2);
    await Promise.resolve();
    await Promise.resolve();
    expect(refreshed).toEqual([session.view.id]); // the server resumed it
    session.view = attemptView({ player: 'openai:qwen', paused: true });
    type(0, 'z');
    reporter.dispose();
    session.view = attemptView({ paused: true });
    type(0, 'w');
    expect(sent).toHaveLength(2);
  });

  it('says which cell a run was, and refreshes a paused view the run resumes', async () => {
    const { sent, session, refreshed, reporter } = setup();
    const scheduled = NotebookActions.executionScheduled as unknown as Signal<
      unknown,
      { notebook: Notebook; cell: Cell }
    >;
    const run = async (msgId: string) => {
      const model = session.panel.model!.cells.get(1);
      const cell = { model, outputArea: {} } as unknown as Cell;
      scheduled.emit({ notebook: session.panel.content, cell });
      const future = { msg: { header: { msg_id: msgId } } };
      (cell as unknown as { outputArea: object }).outputArea = { future };
      for (let i = 0; i < 4; i++) {
        await Promise.resolve();
      }
    };
    await run('m1');
    expect(sent.map(s => s.body.runs)).toEqual([{ m1: 'cell-b' }]);
    expect(refreshed).toEqual([]); // not paused: nothing to refresh
    session.view = attemptView({ paused: true });
    await run('m2'); // the server answers "not resumed": the run's start on the kernel resumed it
    expect(sent.map(s => s.body.runs)).toEqual([
      { m1: 'cell-b' },
      { m2: 'cell-b' }
    ]);
    expect(refreshed).toEqual([session.view.id]);
    reporter.dispose();
  });
});
