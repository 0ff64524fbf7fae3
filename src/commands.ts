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
  export const playStep = 'cibench-lab:play-step';
  export const playAll = 'cibench-lab:play-all';
  export const stopPlayer = 'cibench-lab:stop-player';
  export const showTurns = 'cibench-lab:show-turns';
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
  commands.addCommand(CommandIDs.playStep, {
    label: 'CIBench: Play Step (attached player)',
    caption: "Let the attempt's model or replay play the open step",
    execute: () => controller.playStep(true)
  });
  commands.addCommand(CommandIDs.playAll, {
    label: 'CIBench: Play All Steps (attached player)',
    caption: "Let the attempt's model or replay play every remaining step",
    execute: () => controller.playAll(true)
  });
  commands.addCommand(CommandIDs.stopPlayer, {
    label: 'CIBench: Stop Player',
    caption: 'Stop the attached player after the turn in flight',
    execute: () => controller.stopPlayer(true)
  });
  commands.addCommand(CommandIDs.showTurns, {
    label: "CIBench: Show This Step's Turns",
    caption: 'Code, prompt, raw reply, tokens and latency of each turn',
    execute: () => controller.showTurns()
  });
  app.contextMenu.addItem({
    command: CommandIDs.showTurns,
    selector: '.jp-CIBench-answer',
    rank: 0
  });
  if (palette) {
    for (const command of [
      CommandIDs.openPanel,
      CommandIDs.nextStep,
      CommandIDs.giveUp,
      CommandIDs.playStep,
      CommandIDs.playAll,
      CommandIDs.stopPlayer,
      CommandIDs.showTurns
    ]) {
      palette.addItem({ command, category: CATEGORY });
    }
  }
}
