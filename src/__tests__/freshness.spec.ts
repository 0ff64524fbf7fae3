import { CodeCell, CodeCellModel } from '@jupyterlab/cells';
import { NBTestUtils } from '@jupyterlab/notebook/lib/testutils';

import {
  CHANGED,
  GradedSources,
  PUT_BACK,
  keptTurn,
  putBackBadge,
  putBackCode,
  restoredBadge,
  sameCode,
  unrunNote
} from '../notebook/freshness';
import { attemptView, grade, quietYjsWarnings, turnDetail } from './fixtures';

quietYjsWarnings();

const settled = {
  ...attemptView().steps[0],
  turns: 2,
  kept_turn: 0,
  criterion: 'passes when it runs without error'
};
const TURNS = [turnDetail(0, 0, 'df = load()'), turnDetail(0, 1, 'df = 1/0')];

describe('restored badges', () => {
  it('restores the kept grade when the cell holds the kept turn code', () => {
    const state = restoredBadge(attemptView(), settled, TURNS, 'df = load()\n');
    expect(state).toEqual({
      kind: 'grade',
      grade: settled.grade,
      rule: 'best run kept',
      criterion: 'passes when it runs without error'
    });
  });

  it('says "changed since graded" when the cell holds other code', () => {
    const empty = restoredBadge(attemptView(), settled, TURNS, '');
    expect(empty).toMatchObject({ kind: 'note', message: CHANGED });
    const last = restoredBadge(attemptView(), settled, TURNS, 'df = 1/0');
    expect(last).toMatchObject({ kind: 'note', message: CHANGED });
  });

  it('takes the last turn when the view names none (grades hidden)', () => {
    const step = { ...settled, kept_turn: null };
    expect(keptTurn(step)).toBe(1);
    expect(restoredBadge(attemptView(), step, TURNS, 'df = 1/0')?.kind).toBe(
      'grade'
    );
  });

  it('vouches for nothing it cannot read', () => {
    expect(restoredBadge(attemptView(), settled, [], 'df = load()')).toBeNull();
    const unrun = { ...attemptView().steps[1] };
    expect(restoredBadge(attemptView(), unrun, [], '')).toBeNull();
  });

  it('says "gave up · no run" for a step given up unrun, and the runs a cap allows', () => {
    const gaveUp = {
      ...settled,
      turns: 0,
      kept_turn: null,
      outcome: 'gave_up',
      grade: grade({ passed: false, detail: 'not run yet' })
    };
    expect(restoredBadge(attemptView(), gaveUp, [], '')).toMatchObject({
      kind: 'note',
      message: 'gave up · no run'
    });
    const skipped = { ...gaveUp, outcome: 'next' }; // Next without a run: no note
    expect(restoredBadge(attemptView(), skipped, [], '')).toBeNull();
    const view = attemptView();
    view.steps[1].run_limit = 1;
    expect(restoredBadge(view, view.steps[1], [], '')).toMatchObject({
      kind: 'note',
      message: '1 run allowed' // before the first run: what the limit allows
    });
    view.steps[1].run_limit = 3;
    expect(unrunNote(view, view.steps[1])).toBe('3 runs allowed');
  });

  it("says on a reopened cell that the cap's last run settled its step", () => {
    const view = attemptView();
    const capped = {
      ...settled,
      outcome: 'turn_cap',
      kept_turn: 1,
      run_limit: 2
    };
    expect(restoredBadge(view, capped, TURNS, 'df = 1/0')).toMatchObject({
      kind: 'grade',
      rule: 'best run kept · settled at the 2-run limit'
    });
  });

  it('compares code without trailing whitespace', () => {
    expect(sameCode('x = 1\n\n', 'x = 1')).toBe(true);
    expect(sameCode('x = 1', 'x = 2')).toBe(false);
  });
});

describe('code put back', () => {
  it('puts the kept turn code back into an empty cell only', () => {
    expect(putBackCode(settled, TURNS, '')).toBe('df = load()');
    expect(putBackCode(settled, TURNS, '  \n')).toBe('df = load()');
    expect(putBackCode(settled, TURNS, 'x = 2')).toBeNull(); // never overwritten
    expect(putBackCode(settled, [], '')).toBeNull();
    const hidden = { ...settled, kept_turn: null }; // grades hidden: the last turn
    expect(putBackCode(hidden, TURNS, '')).toBe('df = 1/0');
  });

  it('says on the badge that the code was put back', () => {
    const code = putBackCode(settled, TURNS, '') ?? '';
    const state = restoredBadge(attemptView(), settled, TURNS, code);
    expect(state && putBackBadge(state)).toMatchObject({
      kind: 'grade',
      rule: `best run kept · ${PUT_BACK}`
    });
  });
});

describe('graded sources', () => {
  it('notes a graded cell edited since', () => {
    const cell = new CodeCell({
      model: new CodeCellModel(),
      rendermime: NBTestUtils.defaultRenderMime(),
      contentFactory: NBTestUtils.createCodeCellFactory()
    });
    cell.model.sharedModel.setSource('x = 1');
    const graded = new GradedSources();
    graded.set(cell, 0, 'x = 1');
    graded.check();
    expect(cell.node.querySelector('.jp-CIBench-badge')).toBeNull();
    cell.model.sharedModel.setSource('x = 2');
    graded.check();
    const badge = cell.node.querySelector('.jp-CIBench-badge') as HTMLElement;
    expect(badge.textContent).toBe(CHANGED);
    expect(badge.dataset.state).toBe('note');
  });
});
