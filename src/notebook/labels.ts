/**
 * Labels of the reference cells the lab adds — oracle mode's code cells and
 * end-to-end mode's markdown cells: a visible "Reference for step n" line with
 * a lock (read-only), also the cell's accessible name (`aria-labelledby`). A collapsed reference
 * cell's label is a button that shows or hides it. A Qwen benchmark task's `prior` cell (an easy
 * item's first turn, run by the server before the person starts) is labelled the same way. A
 * person's run of an oracle or prior cell is refused (`refuseRun`): the lab runs them itself. An
 * answer cell's editor is named "Your answer for step n".
 */
import { Cell } from '@jupyterlab/cells';

import { showBadge } from './badge';
import type { ICellTag } from './cells';
import {
  caretDownIcon,
  caretRightIcon,
  lockIcon
} from '@jupyterlab/ui-components';
import { trans } from '../i18n';

export const LABEL_CLASS = 'jp-CIBench-cellLabel';

/** "Reference for step 3" for 0-based step 2. */
export function referenceLabel(step: number): string {
  return trans.__('Reference for step %1', step + 1);
}

/** The label of a Qwen easy item's prior turn. */
export const PRIOR_LABEL = 'First turn, already run';

/** What a refused run of a read-only cell says on it. */
export const READ_ONLY_RUN = 'not run: a read-only cell (the lab ran it)';

/** "Your answer for step 3" for 0-based step 2: the answer cell editor's accessible name. */
export function answerLabel(step: number): string {
  return trans.__('Your answer for step %1', step + 1);
}

/** Name a cell's editor, once it is there (a cell not rendered yet adds it later). */
export function nameEditor(cell: Cell, name: string): void {
  void cell.ready.then(() => {
    cell.editor?.host
      .querySelector('.cm-content')
      ?.setAttribute('aria-label', name);
  });
}

/**
 * A person's run of an oracle or prior cell — read-only code the lab or the
 * server ran — is refused, with a note on the cell, as a finished attempt's
 * cells are (re-running the reference, or the first turn, would change the
 * kernel behind the person's back). Whether it was refused.
 */
export function refuseRun(cell: Cell, tag: ICellTag | null): boolean {
  if (tag?.role !== 'oracle' && tag?.role !== 'prior') {
    return false;
  }
  const message = trans.__('not run: a read-only cell (the lab ran it)');
  showBadge(cell, { kind: 'note', message }, tag.step);
  return true;
}

function icon(
  which: typeof lockIcon,
  className = 'jp-CIBench-cellLabel-icon'
): HTMLElement {
  const el = which.element({ tag: 'span', className });
  el.setAttribute('aria-hidden', 'true');
  return el;
}

/** The label text: "Reference for step n" (or `title`) and that it is read-only. */
function labelText(title: string, extra: string): HTMLElement {
  const text = document.createElement('span');
  text.className = 'jp-CIBench-cellLabel-text';
  text.textContent = title;
  const note = document.createElement('span');
  note.className = 'jp-CIBench-cellLabel-note';
  note.textContent = ` · ${extra}`;
  text.appendChild(note);
  return text;
}

/** Keep a reference cell's toggle saying whether it is expanded. */
function syncToggle(cell: Cell, toggle: HTMLButtonElement): void {
  const open = !cell.inputHidden;
  toggle.setAttribute('aria-expanded', String(open));
  toggle.replaceChild(
    icon(open ? caretDownIcon : caretRightIcon, 'jp-CIBench-cellLabel-caret'),
    toggle.firstChild!
  );
}

function toggleButton(cell: Cell, step: number): HTMLButtonElement {
  const toggle = document.createElement('button');
  toggle.type = 'button';
  toggle.className = 'jp-CIBench-cellLabel-toggle';
  toggle.appendChild(document.createElement('span'));
  toggle.appendChild(icon(lockIcon));
  toggle.appendChild(
    labelText(referenceLabel(step), trans.__('read-only, never run'))
  );
  toggle.addEventListener('click', () => {
    cell.inputHidden = !cell.inputHidden;
    syncToggle(cell, toggle);
  });
  cell.model.metadataChanged.connect(() => syncToggle(cell, toggle));
  syncToggle(cell, toggle);
  return toggle;
}

/**
 * Give an oracle, reference or prior cell its label (once): the first element
 * of the cell, named as the cell's accessible name.
 */
/**
 * Put ``label`` first in ``cell`` and name the cell by it (over the "Code Cell Content" JupyterLab
 * sets); a cell not rendered yet adds its parts later, so the label is put first again then.
 */
export function attachLabel(cell: Cell, label: HTMLElement): void {
  cell.node.setAttribute('role', 'article');
  cell.node.setAttribute('aria-labelledby', label.id);
  cell.node.insertBefore(label, cell.node.firstChild);
  void cell.ready.then(() => {
    if (label.parentNode === cell.node) {
      cell.node.insertBefore(label, cell.node.firstChild);
    }
  });
}

export function labelCell(
  cell: Cell,
  role: 'oracle' | 'reference' | 'prior',
  step: number
): void {
  if (cell.node.querySelector(`:scope > .${LABEL_CLASS}`)) {
    return;
  }
  const title =
    role === 'prior'
      ? trans.__('First turn, already run')
      : referenceLabel(step);
  const label = document.createElement('div');
  label.className = LABEL_CLASS;
  if (role === 'reference') {
    label.appendChild(toggleButton(cell, step));
  } else {
    label.appendChild(icon(lockIcon));
    const extra =
      role === 'prior'
        ? trans.__('read-only, not graded')
        : trans.__('read-only');
    label.appendChild(labelText(title, extra));
  }
  label.id = `jp-CIBench-label-${cell.model.id}`;
  attachLabel(cell, label);
  nameEditor(cell, trans.__('%1 (read-only)', title));
}
