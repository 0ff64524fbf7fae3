import { CIBenchModel } from '../model';
import { ISettleRequest, UndoWindow } from '../notebook/undo';

const REQUEST: ISettleRequest = {
  attemptId: 'a1',
  notebookPath: 'a1.ipynb',
  step: 2,
  kind: 'next'
};

function setup() {
  const model = new CIBenchModel();
  const committed: ISettleRequest[] = [];
  const beaconed: ISettleRequest[] = [];
  const target = new EventTarget();
  const undo = new UndoWindow({
    model,
    commit: async r => {
      committed.push(r);
    },
    beacon: r => beaconed.push(r),
    target
  });
  return { model, undo, committed, beaconed, target };
}

describe('UndoWindow', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('counts down and sends the settle when the window ends', async () => {
    const { model, undo, committed } = setup();
    await undo.start(REQUEST);
    expect(model.pending).toEqual({
      attemptId: 'a1',
      step: 2,
      kind: 'next',
      remaining: 5
    });
    jest.advanceTimersByTime(1000);
    expect(model.pending?.remaining).toBe(4);
    jest.advanceTimersByTime(3999);
    expect(committed).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(committed).toEqual([REQUEST]);
    expect(model.pending).toBeNull();
  });

  it('sends nothing when undone', async () => {
    const { model, undo, committed } = setup();
    await undo.start(REQUEST);
    expect(undo.undo()).toBe(true);
    expect(model.pending).toBeNull();
    jest.advanceTimersByTime(10_000);
    expect(committed).toEqual([]);
    expect(undo.undo()).toBe(false);
  });

  it('sends at once on "Settle now"', async () => {
    const { undo, committed } = setup();
    await undo.start(REQUEST);
    await undo.now();
    expect(committed).toEqual([REQUEST]);
    jest.advanceTimersByTime(10_000);
    expect(committed).toHaveLength(1);
  });

  it('sends a waiting settle with keepalive when the page goes away', async () => {
    const { undo, committed, beaconed, target, model } = setup();
    await undo.start(REQUEST);
    target.dispatchEvent(new Event('pagehide'));
    expect(beaconed).toEqual([REQUEST]);
    expect(model.pending).toBeNull();
    jest.advanceTimersByTime(10_000);
    expect(committed).toEqual([]);
    target.dispatchEvent(new Event('pagehide'));
    expect(beaconed).toHaveLength(1); // nothing left to send
  });

  it("sends one attempt's settle before another's window opens", async () => {
    const { undo, committed, model } = setup();
    await undo.start(REQUEST);
    const other = { ...REQUEST, attemptId: 'b2', kind: 'give-up' as const };
    await undo.start(other);
    expect(committed).toEqual([REQUEST]);
    expect(model.pending?.attemptId).toBe('b2');
    undo.dispose();
    expect(model.pending).toBeNull();
  });
});
