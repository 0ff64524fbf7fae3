/**
 * The CIBench commands and their palette entries.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';

import { AttemptController } from './notebook/controller';
import { PANEL_ID } from './panel/panel';

export namespace CommandIDs {
  export const openPanel = 'cibench-lab:open-panel';
  export const nextStep = 'cibench-lab:next-step';
  export const giveUp = 'cibench-lab:give-up';
}

export const CATEGORY = 'CIBench';

/** Register the commands (and palette items when a palette exists). */
export function addCommands(
  app: JupyterFrontEnd,
  controller: AttemptController,
  palette: ICommandPalette | null
): void {
  const { commands, shell } = app;
  commands.addCommand(CommandIDs.openPanel, {
    label: 'Open CIBench Panel',
    caption: 'Show the CIBench task panel',
    execute: () => shell.activateById(PANEL_ID)
  });
  commands.addCommand(CommandIDs.nextStep, {
    label: 'CIBench: Next Step',
    caption: 'Settle the open step and open the next one',
    execute: () => controller.settle('next', true)
  });
  commands.addCommand(CommandIDs.giveUp, {
    label: 'CIBench: Give Up Step',
    caption: 'Give up the open step and open the next one',
    execute: () => controller.settle('give-up', true)
  });
  if (palette) {
    for (const command of [
      CommandIDs.openPanel,
      CommandIDs.nextStep,
      CommandIDs.giveUp
    ]) {
      palette.addItem({ command, category: CATEGORY });
    }
  }
}
