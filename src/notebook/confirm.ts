/**
 * Next step asks first when the step has no run or its last run failed: a
 * settled step cannot be reopened.
 */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { CodeCell } from '@jupyterlab/cells';

import { IStepView } from '../api';
import { settleWarning } from '../panel/words';
import { findCell } from './cells';
import { AttemptSession } from './session';
import { trans } from '../i18n';

/**
 * Whether the step's last run raised an error: read from its answer cell's
 * outputs when the notebook is open, else from the view (a kept grade that is
 * the last turn's and did not run).
 */
export function lastRunFailed(
  session: AttemptSession | undefined,
  step: IStepView
): boolean {
  const cell = session
    ? findCell(session.notebook, 'answer', step.index)
    : undefined;
  if (cell instanceof CodeCell) {
    const outputs = cell.model.outputs;
    for (let i = 0; i < outputs.length; i++) {
      if (outputs.get(i).type === 'error') {
        return true;
      }
    }
    return false;
  }
  const last =
    step.kept_turn === undefined || step.kept_turn === step.turns - 1;
  return !!step.grade && last && step.grade.exec === 0;
}

/** Ask before Next step settles a step that has no run or failed; true: go on. */
export async function confirmNext(
  session: AttemptSession | undefined,
  step: IStepView | undefined
): Promise<boolean> {
  const warning = step
    ? settleWarning(step, lastRunFailed(session, step))
    : null;
  if (!warning) {
    return true;
  }
  const result = await showDialog({
    title: trans.__('Settle Step %1?', (step?.index ?? 0) + 1),
    body: trans.__(
      '%1 Settle it anyway? A settled step cannot be reopened.',
      warning
    ),
    buttons: [
      Dialog.cancelButton({ label: trans.__('Keep working') }),
      Dialog.warnButton({ label: trans.__('Next step') })
    ],
    defaultButton: 0
  });
  return result.button.accept;
}
