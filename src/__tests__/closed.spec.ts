import { Cell } from '@jupyterlab/cells';
import {
  NotebookActions,
  NotebookModel,
  NotebookPanel
} from '@jupyterlab/notebook';
import { NBTestUtils } from '@jupyterlab/notebook/lib/testutils';
import { PromiseDelegate } from '@lumino/coreutils';
import { Signal } from '@lumino/signaling';
import { Panel, Title } from '@lumino/widgets';

import { CIBenchApi, IAttemptView } from '../api';
import { BADGE_CLASS } from '../notebook/badge';
import { findCell, NB_KEY } from '../notebook/cells';
import {
  CLOSED_NOTE_CLASS,
  holdKernel,
  KernelContext,
  readOnlyCells
} from '../notebook/closed';
import { READ_ONLY_RUN } from '../notebook/labels';
import { AttemptNotebooks } from '../notebook/notebooks';
import { AttemptSession } from '../notebook/session';
import { attemptView, quietYjsWarnings } from './fixtures';

quietYjsWarnings();

const QUIT = { status: 'quit' as const, kernel: 'stopped' as const };

/** A kernel session context as JupyterLab's, recording starts and shutdowns. */
function kernelContext(kernel: boolean) {
  const ready = new PromiseDelegate<void>();
  const calls: string[] = [];
  const ctx = {
    kernelPreference: {
      name: 'cibench-lab'
    } as KernelContext['kernelPreference'],
    isReady: false,
    isDisposed: false,
    isTerminating: false,
    ready: ready.promise,
    session: kernel
      ? { kernel: { id: 'k-lab', info: Promise.resolve({}) } }
      : null,
    kernelChanged: new Signal<unknown, unknown>({}),
    statusChanged: new Signal<unknown, unknown>({}),
    startKernel: async () => {
      calls.push('start');
      ctx.session = { kernel: { id: 'k-new', info: Promise.resolve({}) } };
      return false;
    },
    shutdown: async () => {
      calls.push('shutdown');
      ctx.session = null;
    }
  };
  return { ctx, ready, calls };
}

/** An attempt notebook's panel: a real notebook and model, a fake session. */
function attemptPanel(kernel: boolean) {
  const model = new NotebookModel();
  model.setMetadata(NB_KEY, { attempt_id: 'a1', task_id: 't', mode: 'e2e' });
  model.sharedModel.insertCells(0, [
    { cell_type: 'markdown', source: '# Wine', metadata: meta('title') },
    { cell_type: 'markdown', source: 'Load', metadata: meta('instruction', 0) },
    { cell_type: 'code', source: 'x = 1', metadata: meta('answer', 0) },
    { cell_type: 'markdown', source: 'Rows', metadata: meta('instruction', 1) },
    { cell_type: 'code', source: 'print(x)', metadata: meta('answer', 1) }
  ]);
  const content = NBTestUtils.createNotebook();
  content.model = model;
  const session = kernelContext(kernel);
  const saved: string[] = [];
  const panel = {
    model,
    content,
    node: document.createElement('div'),
    contentHeader: new Panel(),
    title: new Title({ owner: {} }),
    isDisposed: false,
    isVisible: true,
    disposed: new Signal<unknown, void>({}),
    sessionContext: session.ctx,
    context: {
      ready: Promise.resolve(),
      isReady: true,
      isDisposed: false,
      save: async () => void saved.push('save')
    }
  } as unknown as NotebookPanel;
  return { panel, content, model, session, saved };
}

function meta(role: string, step?: number) {
  return { cibench_lab: step === undefined ? { role } : { role, step } };
}

function fakeApi(view: IAttemptView) {
  const calls: string[] = [];
  const api = {
    attempt: async () => view,
    turns: async () => [],
    serverSettings: async () => ({ turn_timeout: 60 }),
    bindKernel: async (id: string, kernel: string) => {
      calls.push(`bind ${kernel}`);
      return { kernel_id: kernel, restored_cells: 0, previous_stop: null };
    }
  } as unknown as CIBenchApi;
  return { api, calls };
}

function notebooks(api: CIBenchApi, errors: unknown[] = []) {
  return new AttemptNotebooks({
    api,
    docManager: {} as never,
    shell: {} as never,
    attached: () => undefined,
    detached: () => undefined,
    report: err => void errors.push(err)
  });
}

function badgeText(cell: Cell | null | undefined): string {
  return cell?.node.querySelector(`.${BADGE_CLASS}`)?.textContent ?? '';
}

describe("a finished or quit attempt's notebook", () => {
  it('opens with no kernel, its cells read only and a note saying why', async () => {
    const { panel, content, model, session } = attemptPanel(true);
    const { api, calls } = fakeApi(attemptView(QUIT));
    const errors: unknown[] = [];
    const attaching = notebooks(api, errors).attach(panel);
    await Promise.resolve();
    // held from the moment the file was read: JupyterLab starts no kernel for it
    expect(session.ctx.kernelPreference.shouldStart).toBe(false);
    session.ready.resolve();
    const attached = await attaching;
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(attached?.readOnly).toBe(true);
    expect(session.calls).toEqual(['shutdown']); // the kernel JupyterLab connected goes
    expect(session.ctx.kernelPreference.canStart).toBe(false);
    expect(calls).toEqual([]); // never bound
    expect(content.widgets.every(c => c.readOnly)).toBe(true);
    expect(model.cells.get(2).getMetadata('editable')).toBeUndefined(); // the file is unchanged
    const note = panel.contentHeader.node.querySelector(
      `.${CLOSED_NOTE_CLASS}`
    );
    expect(note?.textContent).toBe('This attempt was quit — read only');
    expect(note?.getAttribute('role')).toBe('status');
    await attached?.bind();
    expect(calls).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('says a finished one is finished', async () => {
    const { panel, session } = attemptPanel(false);
    const done = attemptView({ status: 'done', current_step: 2 });
    const attaching = notebooks(fakeApi(done).api).attach(panel);
    session.ready.resolve();
    await attaching;
    expect(
      panel.contentHeader.node.querySelector(`.${CLOSED_NOTE_CLASS}`)
        ?.textContent
    ).toBe('This attempt is finished — read only');
    expect(session.calls).toEqual([]);
  });

  it('runs nothing: a run of a quit attempt\'s cell is "not graded (attempt quit)"', async () => {
    const { panel, content, session } = attemptPanel(false);
    const attaching = notebooks(fakeApi(attemptView(QUIT)).api).attach(panel);
    session.ready.resolve();
    const attached = (await attaching)!;
    const answer = findCell(content, 'answer', 1);
    await expect(attached.beforeRun(answer!)).resolves.toBe(false);
    expect(badgeText(answer)).toContain('not graded (attempt quit)');
  });

  it('badges a run scheduled in a quit attempt that had its kernel', () => {
    const { panel, content } = attemptPanel(true);
    const session = new AttemptSession(
      panel,
      attemptView(QUIT),
      fakeApi(attemptView(QUIT)).api,
      () => undefined
    );
    const answer = findCell(content, 'answer', 0)!;
    (NotebookActions.executionScheduled as Signal<unknown, unknown>).emit({
      notebook: content,
      cell: answer
    });
    expect(badgeText(answer)).toContain('not graded (attempt quit)');
    session.dispose();
  });

  it("an open attempt's notebook gets its kernel as before", async () => {
    const { panel, session } = attemptPanel(false);
    const { api, calls } = fakeApi(attemptView());
    const errors: unknown[] = [];
    const attaching = notebooks(api, errors).attach(panel);
    await Promise.resolve();
    session.ready.resolve(); // JupyterLab went past its start while held
    const attached = await attaching;
    expect(errors).toEqual([]);
    expect(attached?.readOnly).toBe(false);
    expect(session.calls).toEqual(['start']);
    expect(session.ctx.kernelPreference.shouldStart).toBeUndefined();
    expect(calls).toEqual(['bind k-new']);
    expect(panel.contentHeader.widgets).toHaveLength(0);
  });
});

describe("an open attempt's kernel binding", () => {
  it('is asked once while being answered, and again after a restart', async () => {
    const { panel, session } = attemptPanel(true);
    const { api, calls } = fakeApi(attemptView());
    session.ready.resolve();
    const attached = await notebooks(api).attach(panel);
    expect(calls).toEqual(['bind k-lab']); // the notebook's sync
    const ctx = session.ctx;
    const kernel = ctx.session!.kernel;
    const first = attached!.bind(); // the kernel connected meanwhile: the same binding
    ctx.kernelChanged.emit({
      name: 'kernel',
      oldValue: null,
      newValue: kernel
    });
    expect((await first)?.kernel_id).toBe('k-lab');
    expect(calls).toEqual(['bind k-lab', 'bind k-lab']);
    ctx.statusChanged.emit('restarting');
    ctx.statusChanged.emit('idle');
    await attached!.bound;
    expect(calls).toEqual(['bind k-lab', 'bind k-lab', 'bind k-lab']);
  });
});

describe('holdKernel', () => {
  it('leaves a session that is already ready alone', async () => {
    const { ctx, calls } = kernelContext(false);
    ctx.isReady = true;
    const release = holdKernel(ctx as unknown as KernelContext);
    expect(ctx.kernelPreference.shouldStart).toBeUndefined();
    await release();
    expect(calls).toEqual([]);
  });
});

describe('readOnlyCells', () => {
  it('makes a cell added later read only too', () => {
    const { content, model } = attemptPanel(false);
    readOnlyCells(content);
    model.sharedModel.insertCell(5, { cell_type: 'code', source: 'y = 2' });
    expect(content.widgets).toHaveLength(6);
    expect(content.widgets.every(c => c.readOnly)).toBe(true);
  });

  it('shows a reference added later without marking the notebook unsaved', () => {
    const { content, model } = attemptPanel(false);
    readOnlyCells(content);
    model.sharedModel.insertCell(3, {
      cell_type: 'markdown',
      source: 'Reference for step 1',
      metadata: {
        editable: false,
        jupyter: { source_hidden: true },
        ...meta('reference', 0)
      }
    });
    model.dirty = false;
    const reference = content.widgets[3];
    expect(reference.inputHidden).toBe(true);
    reference.inputHidden = false; // the person shows it
    expect(model.dirty).toBe(false);
    expect(reference.model.getMetadata('jupyter')).toEqual({
      source_hidden: true
    });
  });
});

describe("an open attempt's read-only cells", () => {
  it('refuses a run of an oracle or prior cell, with a note; an answer runs', async () => {
    const { panel, content, model, session } = attemptPanel(true);
    model.sharedModel.insertCell(2, {
      cell_type: 'code',
      source: 'import pandas as pd',
      metadata: { editable: false, ...meta('prior', 0) },
      outputs: [],
      execution_count: 1
    });
    model.sharedModel.insertCell(4, {
      cell_type: 'code',
      source: 'df = 1',
      metadata: { editable: false, ...meta('oracle', 0) },
      outputs: [],
      execution_count: null
    });
    const open = notebooks(fakeApi(attemptView({ current_step: 0 })).api);
    const attaching = open.attach(panel);
    session.ready.resolve();
    await attaching;
    for (const role of ['prior', 'oracle'] as const) {
      const cell = findCell(content, role, 0)!;
      await expect(open.beforeRun(model, cell)).resolves.toBe(false);
      expect(badgeText(cell)).toBe(READ_ONLY_RUN);
    }
    const answer = findCell(content, 'answer', 0)!;
    await expect(open.beforeRun(model, answer)).resolves.toBe(true);
    expect(badgeText(answer)).not.toContain(READ_ONLY_RUN);
  });
});
