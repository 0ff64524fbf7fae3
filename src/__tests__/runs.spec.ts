import { PromiseDelegate } from '@lumino/coreutils';

import { NB_KEY } from '../notebook/cells';
import { AttemptRuns, RunOptions, untilBound } from '../notebook/runs';

/** A notebook model's metadata as the executor reads it. */
function notebook(attempt: boolean) {
  const meta = attempt
    ? { attempt_id: 'a1', task_id: 't', mode: 'e2e' }
    : undefined;
  return { getMetadata: (key: string) => (key === NB_KEY ? meta : undefined) };
}

function options(
  nb: ReturnType<typeof notebook>,
  name: string,
  type = 'code'
): RunOptions {
  return { cell: { model: { type }, name }, notebook: nb } as never;
}

/** The executor with a `runCell` that records which cell ran, in order. */
function recorder() {
  const ran: string[] = [];
  const runs = new AttemptRuns(async o => {
    ran.push((o.cell as unknown as { name: string }).name);
    return true;
  });
  return { runs, ran };
}

async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await Promise.resolve();
  }
}

describe('the cell executor', () => {
  it("holds a code cell of an attempt's notebook until its gate opens", async () => {
    const { runs, ran } = recorder();
    const gate = new PromiseDelegate<void>();
    runs.gate = () => gate.promise;
    const nb = notebook(true);
    const done = runs.runCell(options(nb, 'answer'));
    await flush();
    expect(ran).toEqual([]);
    gate.resolve();
    await expect(done).resolves.toBe(true);
    expect(ran).toEqual(['answer']);
  });

  it('runs other notebooks and markdown cells at once', async () => {
    const { runs, ran } = recorder();
    const asked: unknown[] = [];
    runs.gate = nb => {
      asked.push(nb);
      return new Promise(() => undefined); // never opens
    };
    void runs.runCell(options(notebook(false), 'other'));
    void runs.runCell(options(notebook(true), 'title', 'markdown'));
    await flush();
    expect(ran).toEqual(['other', 'title']);
    expect(asked).toEqual([]);
  });

  it('starts the runs of one notebook in the order they were issued', async () => {
    const { runs, ran } = recorder();
    const gates: PromiseDelegate<void>[] = [];
    runs.gate = () => {
      const gate = new PromiseDelegate<void>();
      gates.push(gate);
      return gate.promise;
    };
    const nb = notebook(true);
    const all = ['first', 'second', 'third'].map(name =>
      runs.runCell(options(nb, name))
    );
    await flush();
    expect(gates).toHaveLength(1); // the next run's gate waits for this run
    gates[0].resolve();
    await flush();
    expect(ran).toEqual(['first']);
    expect(gates).toHaveLength(2);
    gates[1].resolve();
    await flush();
    gates[2].resolve();
    await Promise.all(all);
    expect(ran).toEqual(['first', 'second', 'third']);
  });

  it("runs no cell its gate refuses (a closed attempt's), and the next one after it", async () => {
    const { runs, ran } = recorder();
    const asked: string[] = [];
    runs.gate = async (_, cell) => {
      const name = (cell as unknown as { name: string }).name;
      asked.push(name);
      return name !== 'refused';
    };
    const nb = notebook(true);
    await expect(runs.runCell(options(nb, 'refused'))).resolves.toBe(false);
    await expect(runs.runCell(options(nb, 'allowed'))).resolves.toBe(true);
    expect(asked).toEqual(['refused', 'allowed']);
    expect(ran).toEqual(['allowed']);
  });

  it('still runs when its gate fails', async () => {
    const { runs, ran } = recorder();
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
    runs.gate = async () => {
      throw new Error('the server is gone');
    };
    await runs.runCell(options(notebook(true), 'answer'));
    expect(ran).toEqual(['answer']);
    expect(String(warn.mock.calls[0])).toContain('the server is gone');
    warn.mockRestore();
  });
});

describe('untilBound', () => {
  it("runs on the attempt's fresh kernel: connected, revived, then bound", async () => {
    const steps: string[] = [];
    const kernel = { id: '' }; // the notebook's kernel as the run finds it
    const connected = new PromiseDelegate<void>();
    const bound = new PromiseDelegate<void>();
    const runs = new AttemptRuns(async () => {
      steps.push(`run on ${kernel.id}`);
      return true;
    });
    runs.gate = () =>
      untilBound({
        connected: async () => {
          await connected.promise;
          steps.push('connected');
          kernel.id = 'stopped-by-the-server';
        },
        revive: async () => {
          steps.push('revive');
          kernel.id = 'fresh';
          return true;
        },
        bound: async () => {
          await bound.promise;
          steps.push(`bound ${kernel.id}`);
        }
      });
    const done = runs.runCell(options(notebook(true), 'answer'));
    await flush();
    expect(steps).toEqual([]); // right after Start: no session yet, nothing runs
    connected.resolve();
    await flush();
    expect(steps).toEqual(['connected', 'revive']); // the binding is not answered yet
    bound.resolve();
    await done;
    expect(steps).toEqual([
      'connected',
      'revive',
      'bound fresh',
      'run on fresh'
    ]);
  });
});
