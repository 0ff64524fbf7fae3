import { Notebook, NotebookModel } from '@jupyterlab/notebook';
import { NBTestUtils } from '@jupyterlab/notebook/lib/testutils';

import {
  ANSWER_LABEL_CLASS,
  answerLabelText,
  CURRENT_CLASS,
  markAnswers,
  noteScratch,
  scratchText
} from '../notebook/answer';
import { badgeOf, showBadge } from '../notebook/badge';
import { findCell } from '../notebook/cells';
import { typeChangeRefusal, typeCommand } from '../notebook/keys';
import { attemptView, grade, quietYjsWarnings } from './fixtures';

quietYjsWarnings();

/** Step 1's cells (settled), step 2's (open) and a person's own code cell. */
function notebook(): Notebook {
  const nb = NBTestUtils.createNotebook();
  const model = new NotebookModel();
  const tag = (role: string, step: number) => ({
    cibench_lab: { role, step }
  });
  model.sharedModel.insertCells(0, [
    { cell_type: 'markdown', source: 'Load', metadata: tag('instruction', 0) },
    { cell_type: 'code', source: 'x = 1', metadata: tag('answer', 0) },
    { cell_type: 'markdown', source: 'Rows', metadata: tag('instruction', 1) },
    { cell_type: 'code', source: '', metadata: tag('answer', 1) },
    { cell_type: 'code', source: 'print(x)' }
  ]);
  nb.model = model;
  return nb;
}

const labelOf = (nb: Notebook, step: number) =>
  findCell(nb, 'answer', step)!.node.querySelector(`.${ANSWER_LABEL_CLASS}`);

describe("the answer cells' labels", () => {
  it('name the open step graded and a settled one settled', () => {
    const view = attemptView(); // step 1 settled, step 2 open
    expect(answerLabelText(view, 1).title).toBe('Step 2 · graded');
    expect(answerLabelText(view, 1).note).toContain('Shift+Enter');
    expect(answerLabelText(view, 0).title).toBe('Step 1 · settled');
    const done = attemptView({ status: 'done' });
    expect(answerLabelText(done, 1).title).toBe('Step 2 · not settled');
  });

  it('mark the open step, name each cell, and move on with the view', () => {
    const nb = notebook();
    const view = attemptView();
    markAnswers(nb, view);
    const open = findCell(nb, 'answer', 1)!;
    expect(open.hasClass(CURRENT_CLASS)).toBe(true);
    expect(findCell(nb, 'answer', 0)!.hasClass(CURRENT_CLASS)).toBe(false);
    expect(labelOf(nb, 1)!.textContent).toMatch(/^Step 2 · graded · /);
    // the label names the cell
    const label = labelOf(nb, 1)!;
    expect(open.node.getAttribute('aria-labelledby')).toBe(label.id);
    expect(open.node.getAttribute('role')).toBe('article');
    markAnswers(nb, view); // once: one label
    expect(open.node.querySelectorAll(`.${ANSWER_LABEL_CLASS}`).length).toBe(1);
    // the attempt ends: no cell is graded any more
    markAnswers(nb, attemptView({ status: 'done' }));
    expect(open.hasClass(CURRENT_CLASS)).toBe(false);
    expect(labelOf(nb, 1)!.textContent).toMatch(/^Step 2 · not settled/);
  });
});

describe("a person's own code cell", () => {
  it('says it is not graded and where the answer is, as the step moves on', () => {
    const nb = notebook();
    const scratch = nb.widgets[4];
    noteScratch(scratch, attemptView());
    expect(badgeOf(scratch)!.textContent).toBe(
      "not graded — step 2's answer is in the marked cell"
    );
    markAnswers(nb, attemptView({ current_step: 2 }));
    expect(badgeOf(scratch)!.textContent).toBe(
      scratchText(attemptView({ current_step: 2 }))
    );
    expect(badgeOf(scratch)!.textContent).toContain("step 3's answer");
    markAnswers(nb, attemptView({ status: 'done' }));
    expect(badgeOf(scratch)).toBeNull(); // a finished attempt's record points nowhere
  });
});

describe("a settled step's badge", () => {
  it('drops the runs left once the step settled', () => {
    const nb = notebook();
    const capped = attemptView({
      settings: {
        ...attemptView().settings,
        turn_cap: 3,
        grade_rule: 'settling'
      }
    });
    const open = { ...capped.steps[1], turns: 1, run_limit: 3 };
    const cell = findCell(nb, 'answer', 1)!;
    showBadge(
      cell,
      {
        kind: 'grade',
        grade: grade({ kind: 'num', detail: 'number matched' }),
        rule: 'graded when you settle · 2 runs left',
        turn: 0
      },
      1
    );
    const settled = { ...open, settled: true, outcome: 'next' };
    markAnswers(nb, {
      ...capped,
      current_step: 2,
      steps: [capped.steps[0], settled]
    });
    const rule = badgeOf(cell)!.querySelector('.jp-CIBench-badge-rule')!;
    expect(rule.textContent).toBe('graded when you settled');
  });
});

describe('the cell-type keys', () => {
  it("refuse the lab's cells and a finished attempt's, and let the rest through", () => {
    const nb = notebook();
    nb.activeCellIndex = 4; // the person's own cell
    expect(typeChangeRefusal(nb, undefined)).toBeNull(); // no attempt
    expect(typeChangeRefusal(nb, { closed: false })).toBeNull();
    expect(typeChangeRefusal(nb, { closed: true })).toMatch(/finished/);
    nb.activeCellIndex = 3; // step 2's answer
    expect(typeChangeRefusal(nb, { closed: false })).toMatch(/keep their type/);
    expect(typeCommand({ type: 'markdown' })).toBe(
      'notebook:change-cell-to-markdown'
    );
    expect(typeCommand({ type: 'markdown', heading: 2 })).toBe(
      'notebook:change-cell-to-heading-2'
    );
  });
});

describe("a text step's badge", () => {
  it('says what passes on a line of its own', () => {
    const nb = notebook();
    const cell = findCell(nb, 'answer', 1)!;
    const passes =
      'to pass: print only the answer, or a sentence naming it, as your last line';
    showBadge(
      cell,
      {
        kind: 'grade',
        grade: grade({ kind: 'text', detail: 'text ROUGE-1 0.50' }),
        rule: 'best run kept',
        passes
      },
      1
    );
    const line = badgeOf(cell)!.querySelector('.jp-CIBench-badge-passes')!;
    expect(line.textContent).toBe(passes);
  });
});
