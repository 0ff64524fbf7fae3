/**
 * Step cells in an attempt's notebook: find them by their `cibench_lab` cell
 * metadata, add the ones a step needs, and make the notebook match the
 * attempt's opened steps (reconcile).
 */
import { Cell, CodeCell, MarkdownCell } from '@jupyterlab/cells';
import { Notebook } from '@jupyterlab/notebook';

import { IAttemptView, IStepView, Mode } from '../api';
import { answerLabel, labelCell, nameEditor } from './labels';
import { referenceAttachments, referenceMarkdown } from './reference';
import { trans } from '../i18n';

/** Notebook metadata naming the attempt a notebook plays. */
export const NB_KEY = 'cibench_lab_attempt';
/** Cell metadata: `{role, step}`. */
export const CELL_KEY = 'cibench_lab';

/** `prior`: a Qwen easy item's first turn, run by the server (read-only, never graded). */
export type CellRole =
  'title' | 'instruction' | 'prior' | 'answer' | 'oracle' | 'reference';

export interface ICellTag {
  role: CellRole;
  step?: number;
}

/** Metadata of the cells the lab adds (a type alias, so it is JSON-shaped). */
export type CellMetadata = {
  editable?: boolean;
  deletable?: boolean;
  jupyter?: { source_hidden?: boolean };
  cibench_lab: { role: CellRole; step: number };
};

/** A markdown cell's attachments: name -> mime type -> base64 data. */
export type Attachments = { [name: string]: { [mime: string]: string } };

export interface IAttemptMeta {
  attempt_id: string;
  task_id: string;
  mode: Mode;
}

/** The attempt a notebook's metadata names, if any. */
export function attemptMeta(metadata: unknown): IAttemptMeta | null {
  if (!metadata || typeof metadata !== 'object') {
    return null;
  }
  const m = metadata as Partial<IAttemptMeta>;
  return typeof m.attempt_id === 'string' && m.attempt_id
    ? (m as IAttemptMeta)
    : null;
}

/** A cell's `cibench_lab` tag, if any. */
export function cellTag(cell: Cell): ICellTag | null {
  const tag = cell.model.getMetadata(CELL_KEY) as ICellTag | undefined;
  return tag && typeof tag === 'object' && typeof tag.role === 'string'
    ? tag
    : null;
}

/** The step instruction's markdown, as the server writes it. */
export function instructionMarkdown(step: IStepView, nSteps: number): string {
  const mods = step.modules ?? [];
  const libs = mods.length ? `\n\n*Libraries: ${mods.join(', ')}*` : '';
  return (
    `**Step ${step.index + 1} of ${nSteps}** · \`${step.kind}\`\n\n` +
    `${step.instruction}${libs}`
  );
}

/** The cell with this role for this step. */
export function findCell(
  nb: Notebook,
  role: CellRole,
  step: number
): Cell | undefined {
  return nb.widgets.find(c => {
    const tag = cellTag(c);
    return tag?.role === role && tag.step === step;
  });
}

/** Insert a markdown or code cell at `index` and return its widget. */
export function insertCell(
  nb: Notebook,
  index: number,
  type: 'markdown' | 'code',
  source: string,
  metadata: CellMetadata,
  attachments?: Attachments
): Cell {
  if (!nb.model) {
    throw new Error(trans.__('the notebook has no model'));
  }
  const shared = nb.model.sharedModel;
  const at = Math.max(0, Math.min(index, shared.cells.length));
  if (type === 'code') {
    shared.insertCell(at, {
      cell_type: 'code',
      source,
      metadata,
      outputs: [],
      execution_count: null
    });
  } else {
    shared.insertCell(at, {
      cell_type: 'markdown',
      source,
      metadata,
      ...(attachments ? { attachments } : {})
    });
  }
  const cell = nb.widgets[at];
  if (cell instanceof MarkdownCell) {
    cell.rendered = true;
  }
  markCell(cell);
  return cell;
}

/**
 * Expose a tagged cell's role and step in the DOM (`jp-CIBench-answer`,
 * `data-step`), for styling and for tests that drive the UI; label reference
 * cells; name an answer cell's editor.
 */
export function markCell(cell: Cell): void {
  const tag = cellTag(cell);
  if (!tag) {
    return;
  }
  cell.addClass(`jp-CIBench-${tag.role}`);
  cell.node.dataset.step = String(tag.step);
  if (
    (tag.role === 'oracle' ||
      tag.role === 'reference' ||
      tag.role === 'prior') &&
    tag.step !== undefined
  ) {
    labelCell(cell, tag.role, tag.step);
  } else if (tag.role === 'answer' && tag.step !== undefined) {
    nameEditor(cell, answerLabel(tag.step));
  }
}

function indexOf(nb: Notebook, cell: Cell | undefined): number {
  return cell ? nb.widgets.indexOf(cell) : -1;
}

/** Add the step's instruction cell at `index` (default: the end). */
export function insertInstruction(
  nb: Notebook,
  step: IStepView,
  nSteps: number,
  index = nb.widgets.length
): Cell {
  return insertCell(nb, index, 'markdown', instructionMarkdown(step, nSteps), {
    editable: false,
    deletable: false,
    [CELL_KEY]: { role: 'instruction', step: step.index }
  });
}

/** Add the step's empty answer cell at `index` (default: the end). */
export function insertAnswer(
  nb: Notebook,
  step: number,
  index = nb.widgets.length
): CodeCell {
  return insertCell(nb, index, 'code', '', {
    deletable: false,
    [CELL_KEY]: { role: 'answer', step }
  }) as CodeCell;
}

/** Add a read-only oracle cell right after the step's answer cell. */
export function insertOracle(
  nb: Notebook,
  step: number,
  code: string
): CodeCell {
  const answer = indexOf(nb, findCell(nb, 'answer', step));
  const index = answer >= 0 ? answer + 1 : nb.widgets.length;
  return insertCell(nb, index, 'code', code, {
    editable: false,
    deletable: false,
    [CELL_KEY]: { role: 'oracle', step }
  }) as CodeCell;
}

/**
 * End-to-end mode: add a settled step's reference as a collapsed, read-only
 * markdown cell right after its answer cell (once). Undefined when the view
 * does not reveal it or the cell is there.
 */
export function insertReference(
  nb: Notebook,
  step: IStepView
): Cell | undefined {
  const ref = step.reference;
  if (!ref || !step.settled || findCell(nb, 'reference', step.index)) {
    return undefined;
  }
  const answer = indexOf(nb, findCell(nb, 'answer', step.index));
  const index = answer >= 0 ? answer + 1 : nb.widgets.length;
  const source = referenceMarkdown(step.index, ref);
  return insertCell(
    nb,
    index,
    'markdown',
    source,
    {
      editable: false,
      deletable: false,
      jupyter: { source_hidden: true },
      [CELL_KEY]: { role: 'reference', step: step.index }
    },
    referenceAttachments(ref)
  );
}

/** End-to-end mode: add the reference cells the view reveals; whether any was added. */
export function revealReferences(nb: Notebook, view: IAttemptView): boolean {
  if (view.mode !== 'e2e') {
    return false;
  }
  let added = false;
  for (const step of view.steps) {
    added = insertReference(nb, step) !== undefined || added;
  }
  return added;
}

/**
 * Remove empty, untagged code cells at the end of the notebook (running the
 * last cell with Shift+Enter leaves one), so the next step follows its answer.
 */
export function dropTrailingEmpty(nb: Notebook): void {
  const shared = nb.model?.sharedModel;
  while (shared && nb.widgets.length) {
    const last = nb.widgets[nb.widgets.length - 1];
    const blank =
      last.model.type === 'code' &&
      !cellTag(last) &&
      !last.model.sharedModel.getSource().trim() &&
      !(last as CodeCell).model.outputs.length;
    if (!blank) {
      return;
    }
    shared.deleteCell(nb.widgets.length - 1);
  }
}

/** Append a newly opened step's instruction and answer cells. */
export function appendStep(
  nb: Notebook,
  step: IStepView,
  nSteps: number
): CodeCell {
  dropTrailingEmpty(nb);
  insertInstruction(nb, step, nSteps);
  return insertAnswer(nb, step.index);
}

export interface IReconciled {
  /** Whether any cell was added. */
  changed: boolean;
  /** Oracle cells that were missing and were added (not yet run). */
  oracle: CodeCell[];
}

/** Give the notebook every opened step's cells (and settled oracle cells). */
export function reconcile(nb: Notebook, view: IAttemptView): IReconciled {
  const out: IReconciled = { changed: false, oracle: [] };
  nb.widgets.forEach(markCell);
  const steps = view.steps
    .filter(s => s.index <= view.current_step || view.status === 'done')
    .sort((a, b) => a.index - b.index);
  for (const step of steps) {
    out.changed = ensureStep(nb, step, view.n_steps) || out.changed;
    const code = step.reference?.code;
    const oracleDue = view.mode === 'oracle' && step.settled;
    if (oracleDue && code && !findCell(nb, 'oracle', step.index)) {
      out.oracle.push(insertOracle(nb, step.index, code));
      out.changed = true;
    }
  }
  out.changed = revealReferences(nb, view) || out.changed;
  return out;
}

function ensureStep(nb: Notebook, step: IStepView, nSteps: number): boolean {
  let changed = false;
  let instr = findCell(nb, 'instruction', step.index);
  const answer = findCell(nb, 'answer', step.index);
  if (!instr) {
    const at = answer ? indexOf(nb, answer) : nb.widgets.length;
    instr = insertInstruction(nb, step, nSteps, at);
    changed = true;
  }
  if (!answer) {
    insertAnswer(nb, step.index, indexOf(nb, instr) + 1);
    changed = true;
  }
  return changed;
}

/**
 * Make a cell the active one, in edit mode, scrolled into view; `focus`: give
 * its editor the keyboard focus (the notebook focuses its active cell's editor
 * when activated in edit mode), when the notebook shows.
 */
export function activate(nb: Notebook, cell: Cell, focus = false): void {
  const index = nb.widgets.indexOf(cell);
  if (index < 0) {
    return;
  }
  nb.deselectAll();
  nb.activeCellIndex = index;
  nb.mode = 'edit';
  reveal(nb, cell).catch(err => console.debug('cibench-lab: scroll', err));
  if (focus && nb.isVisible) {
    nb.activate();
  }
}

/**
 * JupyterLab's `scrollToCell`, without leaving the cell selected (it selects
 * it): in edit mode a click into another cell's editor keeps that selection,
 * and Shift+Enter there would run this cell too — an answer cell run, as a
 * turn, by a Shift+Enter on the read-only cell above it.
 */
async function scrollTo(
  nb: Notebook,
  cell: Cell,
  align?: 'auto' | 'center'
): Promise<void> {
  await nb.scrollToCell(cell, align);
  nb.deselect(cell);
}

/** How long (ms) a revealed cell is kept in view while the cells above it still grow (images). */
const REVEAL_MS = 3_000;

/**
 * Centre `cell` in view once it is rendered and laid out (a cell just added,
 * below an oracle cell whose outputs came in, would otherwise be scrolled to
 * by its estimated height and show as a sliver at the bottom); while cells
 * above it still grow for a moment (an output's image loading, a just-opened
 * notebook's title and instruction rendering their markdown) it is centred
 * again — the browser's scroll anchoring would keep it where it was, at the
 * top with its instruction scrolled away, or push it out of view — until the
 * person scrolls or types.
 */
async function reveal(nb: Notebook, cell: Cell): Promise<void> {
  await scrollTo(nb, cell);
  await cell.ready;
  await new Promise(resolve => requestAnimationFrame(resolve));
  const mine = () => !cell.isDisposed && nb.activeCell === cell;
  if (!mine()) {
    return;
  }
  await scrollTo(nb, cell, 'center');
  const inner = nb.node.querySelector('.jp-WindowedPanel-viewport');
  if (!inner || typeof ResizeObserver === 'undefined') {
    return;
  }
  const again = new ResizeObserver(() => {
    const index = nb.widgets.indexOf(cell);
    if (mine() && index >= 0) {
      nb.scrollToItem(index, 'center').catch(() => undefined); // scroll only: the focus stays
    }
  });
  const stop = () => {
    again.disconnect();
    nb.node.removeEventListener('wheel', stop);
    nb.node.removeEventListener('keydown', stop);
  };
  again.observe(inner);
  nb.node.addEventListener('wheel', stop, { passive: true });
  nb.node.addEventListener('keydown', stop);
  setTimeout(stop, REVEAL_MS);
}
