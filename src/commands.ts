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
  const table: [string, string, string, () => unknown][] = [
    [
      CommandIDs.openPanel,
      'Open CIBench Panel',
      'Show the CIBench task panel',
      () => shell.activateById(PANEL_ID)
    ],
    [
      CommandIDs.nextStep,
      'CIBench: Next Step',
      'Settle the open step and open the next one',
      () => controller.settle('next', true)
    ],
    [
      CommandIDs.giveUp,
      'CIBench: Give Up Step',
      'Give up the open step and open the next one',
      () => controller.settle('give-up', true)
    ],
    [
      CommandIDs.playStep,
      'CIBench: Play Step (attached player)',
      "Let the attempt's model or replay play the open step",
      () => controller.playStep(true)
    ],
    [
      CommandIDs.playAll,
      'CIBench: Play All Steps (attached player)',
      "Let the attempt's model or replay play every remaining step",
      () => controller.playAll(true)
    ],
    [
      CommandIDs.stopPlayer,
      'CIBench: Stop Player',
      'Stop the attached player after the turn in flight',
      () => controller.stopPlayer(true)
    ],
    [
      CommandIDs.showTurns,
      "CIBench: Show This Step's Turns",
      'Code, prompt, raw reply, tokens and latency of each turn',
      () => controller.showTurns()
    ]
  ];
  for (const [id, label, caption, execute] of table) {
    commands.addCommand(id, { label, caption, execute });
    palette?.addItem({ command: id, category: CATEGORY });
  }
  app.contextMenu.addItem({
    command: CommandIDs.showTurns,
    selector: '.jp-CIBench-answer',
    rank: 0
  });
}
