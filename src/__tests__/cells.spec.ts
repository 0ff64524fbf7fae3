import { MarkdownCell } from '@jupyterlab/cells';
import { Notebook, NotebookModel } from '@jupyterlab/notebook';
import { NBTestUtils } from '@jupyterlab/notebook/lib/testutils';
import { Widget } from '@lumino/widgets';

import { BADGE_CLASS, badgeLook, showBadge } from '../notebook/badge';
import {
  activate,
  appendStep,
  attemptMeta,
  cellTag,
  findCell,
  insertOracle,
  insertReference,
  instructionMarkdown,
  reconcile,
  revealReferences
} from '../notebook/cells';
import { LABEL_CLASS } from '../notebook/labels';
import { attemptView, grade, quietYjsWarnings } from './fixtures';

quietYjsWarnings();

function notebook(): Notebook {
  const nb = NBTestUtils.createNotebook();
  const model = new NotebookModel();
  model.sharedModel.insertCells(0, [
    {
      cell_type: 'markdown',
      source: '# Wine quality',
      metadata: { cibench_lab: { role: 'title' } }
    },
    {
      cell_type: 'markdown',
      source: '**Step 1 of 3** · `exec`\n\nLoad the data.',
      metadata: { cibench_lab: { role: 'instruction', step: 0 } }
    },
    {
      cell_type: 'code',
      source: 'import pandas as pd',
      metadata: { cibench_lab: { role: 'answer', step: 0 } }
    }
  ]);
  nb.model = model;
  return nb;
}

function roles(nb: Notebook): string[] {
  return nb.widgets.map(c => {
    const tag = cellTag(c);
    return tag ? `${tag.role}:${tag.step ?? '-'}` : 'none';
  });
}

describe('attemptMeta', () => {
  it('reads the attempt a notebook names', () => {
    const meta = { attempt_id: 'abc', task_id: 't', mode: 'e2e' };
    expect(attemptMeta(meta)).toEqual(meta);
    expect(attemptMeta(undefined)).toBeNull();
    expect(attemptMeta({ task_id: 't' })).toBeNull();
  });
});

describe('step cells', () => {
  it('writes the instruction as the server does', () => {
    const step = attemptView().steps[0];
    expect(instructionMarkdown(step, 3)).toBe(
      '**Step 1 of 3** · `exec`\n\nLoad the data.\n\n*Libraries: pandas*'
    );
    const open = attemptView().steps[1];
    expect(instructionMarkdown(open, 3)).toBe(
      '**Step 2 of 3** · `num`\n\nHow many rows?'
    );
  });

  it('appends a step as a rendered instruction and an empty answer', () => {
    const nb = notebook();
    const answer = appendStep(nb, attemptView().steps[1], 3);
    expect(roles(nb)).toEqual([
      'title:-',
      'instruction:0',
      'answer:0',
      'instruction:1',
      'answer:1'
    ]);
    expect(answer.model.sharedModel.getSource()).toBe('');
    expect(answer.model.getMetadata('deletable')).toBe(false);
    const instr = findCell(nb, 'instruction', 1) as MarkdownCell;
    expect(instr.rendered).toBe(true);
    expect(instr.model.getMetadata('editable')).toBe(false);
  });

  it('drops the empty cell Shift+Enter left before appending a step', () => {
    const nb = notebook();
    nb.model!.sharedModel.insertCell(3, { cell_type: 'code', source: '' });
    nb.model!.sharedModel.insertCell(4, { cell_type: 'code', source: '  ' });
    appendStep(nb, attemptView().steps[1], 3);
    expect(roles(nb)).toEqual([
      'title:-',
      'instruction:0',
      'answer:0',
      'instruction:1',
      'answer:1'
    ]);
  });

  it('keeps a trailing cell that has code', () => {
    const nb = notebook();
    nb.model!.sharedModel.insertCell(3, { cell_type: 'code', source: 'x = 1' });
    appendStep(nb, attemptView().steps[1], 3);
    expect(roles(nb)[3]).toBe('none');
  });

  it('puts an oracle cell right after the step answer, read-only', () => {
    const nb = notebook();
    appendStep(nb, attemptView().steps[1], 3);
    const oracle = insertOracle(nb, 0, "df = pd.read_csv('data/wine.csv')");
    expect(nb.widgets.indexOf(oracle)).toBe(3);
    expect(oracle.model.getMetadata('editable')).toBe(false);
    expect(cellTag(oracle)).toEqual({ role: 'oracle', step: 0 });
  });

  it('reconciles: adds the missing cells of opened steps once', () => {
    const nb = notebook();
    const view = attemptView();
    expect(reconcile(nb, view).changed).toBe(true);
    expect(roles(nb)).toEqual([
      'title:-',
      'instruction:0',
      'answer:0',
      'instruction:1',
      'answer:1'
    ]);
    expect(reconcile(nb, view)).toEqual({ changed: false, oracle: [] });
  });

  it('reconciles oracle mode: missing references of settled steps', () => {
    const nb = notebook();
    const view = attemptView({ mode: 'oracle' });
    view.steps[0].reference = {
      code: 'df = 1',
      thought: '',
      output: '',
      image: null
    };
    const fixed = reconcile(nb, view);
    expect(fixed.oracle).toHaveLength(1);
    expect(roles(nb)).toEqual([
      'title:-',
      'instruction:0',
      'answer:0',
      'oracle:0',
      'instruction:1',
      'answer:1'
    ]);
  });
});

describe('the editors', () => {
  it("names an answer cell's editor for its step, a reference cell's as read-only", async () => {
    const nb = notebook();
    Widget.attach(nb, document.body);
    const answer = appendStep(nb, attemptView().steps[1], 3);
    const oracle = insertOracle(nb, 0, 'df = 1');
    await Promise.all([answer.ready, oracle.ready]);
    const name = (cell: typeof answer) =>
      cell.editor?.host
        .querySelector('.cm-content')
        ?.getAttribute('aria-label');
    expect(name(answer)).toBe('Your answer for step 2');
    expect(name(oracle)).toBe('Reference for step 1 (read-only)');
    Widget.detach(nb);
  });
});

describe('activating a cell', () => {
  it('leaves it active but not selected: Shift+Enter in another cell runs only that one', async () => {
    const nb = notebook();
    Widget.attach(nb, document.body);
    const answer = findCell(nb, 'answer', 0)!;
    activate(nb, answer);
    await answer.ready;
    await new Promise(r => setTimeout(r, 50)); // its scroll, twice
    expect(nb.activeCell).toBe(answer);
    expect(nb.isSelected(answer)).toBe(false);
    nb.activeCellIndex = 1; // a click into the cell above's editor (edit mode)
    const run = nb.widgets.filter(c => nb.isSelectedOrActive(c));
    expect(run).toEqual([nb.widgets[1]]);
    Widget.detach(nb);
  });
});

describe('reference cells', () => {
  const REF = { code: 'df = 1', thought: '', output: 'no output', image: null };

  it('labels an oracle cell "Reference for step n" as its accessible name', () => {
    const nb = notebook();
    const oracle = insertOracle(nb, 0, 'df = 1');
    const label = oracle.node.querySelector(`:scope > .${LABEL_CLASS}`);
    expect(label?.textContent).toBe('Reference for step 1 · read-only');
    expect(oracle.node.getAttribute('aria-labelledby')).toBe(label?.id);
    expect(oracle.node.getAttribute('role')).toBe('article');
  });

  it('reveals a settled step as a collapsed read-only markdown cell below its answer', () => {
    const nb = notebook();
    const view = attemptView();
    view.steps[0].reference = REF;
    appendStep(nb, view.steps[1], 3);
    const cell = insertReference(nb, view.steps[0])!;
    expect(nb.widgets.indexOf(cell)).toBe(3);
    expect(cell.model.type).toBe('markdown');
    expect(cellTag(cell)).toEqual({ role: 'reference', step: 0 });
    expect(cell.model.getMetadata('editable')).toBe(false);
    expect(cell.model.getMetadata('jupyter')).toEqual({ source_hidden: true });
    expect(cell.model.sharedModel.getSource()).toContain(
      '```python\ndf = 1\n```'
    );
    const toggle = cell.node.querySelector('button');
    expect(toggle?.textContent).toContain('Reference for step 1');
    expect(insertReference(nb, view.steps[0])).toBeUndefined();
  });

  it('reveals only what the view carries, only in end-to-end mode, once', () => {
    const nb = notebook();
    const view = attemptView();
    expect(revealReferences(nb, view)).toBe(false); // no reference in the view
    view.steps[0].reference = REF;
    expect(revealReferences(nb, { ...view, mode: 'oracle' })).toBe(false);
    expect(reconcile(nb, view).changed).toBe(true);
    expect(roles(nb)).toEqual([
      'title:-',
      'instruction:0',
      'answer:0',
      'reference:0',
      'instruction:1',
      'answer:1'
    ]);
    expect(reconcile(nb, view)).toEqual({ changed: false, oracle: [] });
  });

  it('embeds the reference plot as an attachment', () => {
    const nb = notebook();
    const step = {
      ...attemptView().steps[0],
      reference: { ...REF, image: 'iVBORw0KGgo=' }
    };
    const cell = insertReference(nb, step)!;
    const json = cell.model.toJSON() as { attachments?: unknown };
    expect(json.attachments).toEqual({
      'reference.png': { 'image/png': 'iVBORw0KGgo=' }
    });
    expect(cell.model.sharedModel.getSource()).toContain(
      '(attachment:reference.png)'
    );
  });
});

describe('badges', () => {
  it('shows one badge per cell and replaces it', () => {
    const nb = notebook();
    const cell = nb.widgets[2];
    showBadge(cell, { kind: 'pending' });
    showBadge(cell, { kind: 'grade', grade: grade() }, 0);
    const badges = cell.node.querySelectorAll(`.${BADGE_CLASS}`);
    expect(badges).toHaveLength(1);
    expect(badges[0].classList.contains('jp-CIBench-badge-pass')).toBe(true);
    expect(badges[0].textContent).toBe('passed · number matched');
    showBadge(cell, { kind: 'grade', grade: null });
    expect(cell.node.querySelector(`.${BADGE_CLASS}`)?.textContent).toBe(
      'turn recorded'
    );
  });

  it('says pass or miss in a word and an icon, the rule and the criterion', () => {
    const nb = notebook();
    const cell = nb.widgets[2];
    const el = showBadge(
      cell,
      {
        kind: 'grade',
        grade: grade({ passed: false, detail: 'number differs' }),
        rule: 'best run kept',
        criterion: 'passes when the printed number matches'
      },
      0
    );
    expect(el.dataset.state).toBe('final');
    expect(el.querySelector('.jp-CIBench-badge-word')?.textContent).toBe(
      'missed'
    );
    expect(el.querySelector('.jp-CIBench-badge-icon svg')).not.toBeNull();
    expect(el.querySelector('.jp-CIBench-badge-rule')?.textContent).toBe(
      'best run kept'
    );
    expect(el.title).toBe('passes when the printed number matches');
    expect(el.textContent).toContain('passes when the printed number matches');
  });

  it('says running while the kernel runs, grading after', () => {
    expect(badgeLook({ kind: 'running' })).toMatchObject({
      state: 'running',
      text: 'running…'
    });
    expect(badgeLook({ kind: 'pending' })).toMatchObject({
      state: 'grading',
      text: 'grading…'
    });
    expect(badgeLook({ kind: 'error', message: 'x' })).toMatchObject({
      state: 'error',
      text: 'not graded: x'
    });
    expect(badgeLook({ kind: 'note', message: 'given up' })).toMatchObject({
      state: 'note',
      icon: null,
      cls: 'jp-CIBench-badge-recorded'
    });
  });

  it('says when the server stops a run, and that it stopped one', () => {
    expect(badgeLook({ kind: 'running', limit: 120 })).toMatchObject({
      state: 'running',
      text: 'running… · stops at 2 min'
    });
    const missed = grade({ passed: false, detail: 'timed out' });
    const stopped = { kind: 'grade' as const, grade: missed, stoppedAt: 120 };
    expect(badgeLook(stopped)).toMatchObject({
      state: 'final',
      word: 'missed',
      text: 'stopped at the 2 min limit'
    });
    expect(badgeLook({ ...stopped, stoppedAt: null }).text).toBe(
      'stopped at the time limit'
    );
    expect(badgeLook({ kind: 'grade', grade: missed }).text).toBe('timed out');
  });
});
