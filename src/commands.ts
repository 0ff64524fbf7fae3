/**
 * The CIBench commands and their palette entries. Next step, Give up and the
 * working clock's Pause / Resume act on the attempt the panel shows; Undo
 * Settle only inside a settle's Undo window; the player commands are enabled
 * only for an attempt an attached player plays.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { CommandRegistry } from '@lumino/commands';

import { CIBenchModel } from './model';
import { AttemptController } from './notebook/controller';
import { trans } from './i18n';

export namespace CommandIDs {
  export const openPanel = 'cibench-lab:open-panel';
  export const nextStep = 'cibench-lab:next-step';
  export const giveUp = 'cibench-lab:give-up';
  export const undoSettle = 'cibench-lab:undo-settle';
  export const playStep = 'cibench-lab:play-step';
  export const playAll = 'cibench-lab:play-all';
  export const stopPlayer = 'cibench-lab:stop-player';
  export const showTurns = 'cibench-lab:show-turns';
  export const pauseClock = 'cibench-lab:pause-clock';
  export const resumeClock = 'cibench-lab:resume-clock';
}

export const CATEGORY = 'CIBench';

/** The panel's commands take no arguments. */
const NO_ARGS: CommandRegistry.ICommandOptions['describedBy'] = {
  args: { type: 'object', properties: {} }
};

/**
 * The platform's label of a command's first key binding ("Ctrl+Alt+N",
 * "⌥⌘N"), or '' when it has none.
 */
export function shortcutLabel(
  commands: CommandRegistry,
  command: string
): string {
  const binding = commands.keyBindings.find(b => b.command === command);
  return binding ? CommandRegistry.formatKeystroke(binding.keys) : '';
}

/** One command: its label, caption, action, when it is enabled, palette rank. */
interface ICommandRow {
  id: string;
  label: string;
  caption: string;
  execute: () => unknown;
  isEnabled?: () => boolean;
  /** Palette order within the category (lower first). */
  rank: number;
}

/** What the commands need besides the controller. */
export interface ICommandHost {
  model: CIBenchModel;
  /** Show the panel and put the focus in it. */
  openPanel: () => void;
}

/** Register the commands (and palette items when a palette exists). */
export function addCommands(
  app: JupyterFrontEnd,
  controller: AttemptController,
  palette: ICommandPalette | null,
  host: ICommandHost
): void {
  const { commands } = app;
  const table = [
    ...stepCommands(controller, host),
    undoCommand(controller, host),
    ...playerCommands(controller),
    ...clockCommands(controller)
  ];
  for (const { id, label, caption, execute, isEnabled, rank } of table) {
    commands.addCommand(id, {
      label,
      caption,
      execute,
      isEnabled,
      describedBy: NO_ARGS
    });
    palette?.addItem({ command: id, category: CATEGORY, rank });
  }
  let waiting = false; // a settle in its Undo window (Undo Settle enabled)
  host.model.changed.connect((model, kind) => {
    if (kind === 'attempt' || kind === 'view') {
      commands.notifyCommandChanged();
    } else if (kind === 'pending' && waiting !== (model.pending !== null)) {
      waiting = model.pending !== null;
      commands.notifyCommandChanged(CommandIDs.undoSettle);
    }
  });
  app.contextMenu.addItem({
    command: CommandIDs.showTurns,
    selector: '.jp-CIBench-answer',
    rank: 0
  });
}

/** The panel and the open step: open the panel, Next step, Give up, the step's turns. */
function stepCommands(
  controller: AttemptController,
  host: ICommandHost
): ICommandRow[] {
  return [
    {
      id: CommandIDs.openPanel,
      label: trans.__('Open CIBench Panel'),
      caption: trans.__('Show the CIBench task panel'),
      execute: () => host.openPanel(),
      rank: 10
    },
    {
      id: CommandIDs.nextStep,
      label: trans.__('CIBench: Next Step'),
      caption: trans.__('Settle the open step of the attempt the panel shows'),
      execute: () => controller.settle('next'),
      isEnabled: () => controller.canSettle(),
      rank: 0
    },
    {
      id: CommandIDs.giveUp,
      label: trans.__('CIBench: Give Up Step'),
      caption: trans.__('Give up the open step of the attempt the panel shows'),
      execute: () => controller.settle('give-up'),
      isEnabled: () => host.model.attempt?.status === 'open',
      rank: 1
    },
    {
      id: CommandIDs.showTurns,
      label: trans.__("CIBench: Show This Step's Turns"),
      caption: trans.__(
        'Code, prompt, raw reply, tokens and latency of each turn'
      ),
      execute: () => controller.showTurns(),
      rank: 5
    }
  ];
}

/** Undo Settle: enabled only while a settle waits in its Undo window. */
function undoCommand(
  controller: AttemptController,
  host: ICommandHost
): ICommandRow {
  return {
    id: CommandIDs.undoSettle,
    label: trans.__('CIBench: Undo Settle'),
    caption: trans.__(
      'Cancel the Next step or Give up waiting in its Undo window'
    ),
    execute: () => controller.undoSettle(),
    isEnabled: () => host.model.pending !== null,
    rank: 2
  };
}

/** An attached player's: play the step, play all, stop (enabled only for its attempt). */
function playerCommands(controller: AttemptController): ICommandRow[] {
  const player = () => controller.hasPlayer();
  return [
    {
      id: CommandIDs.playStep,
      label: trans.__('CIBench: Play Step (attached player)'),
      caption: trans.__("Let the attempt's model or replay play the open step"),
      execute: () => controller.playStep(),
      isEnabled: player,
      rank: 2
    },
    {
      id: CommandIDs.playAll,
      label: trans.__('CIBench: Play All Steps (attached player)'),
      caption: trans.__(
        "Let the attempt's model or replay play every remaining step"
      ),
      execute: () => controller.playAll(),
      isEnabled: player,
      rank: 3
    },
    {
      id: CommandIDs.stopPlayer,
      label: trans.__('CIBench: Stop Player'),
      caption: trans.__('Stop the attached player after the turn in flight'),
      execute: () => controller.stopPlayer(),
      isEnabled: player,
      rank: 4
    }
  ];
}

/** The working clock of the shown person's attempt: Pause, Resume (each when it applies). */
function clockCommands(controller: AttemptController): ICommandRow[] {
  return [
    {
      id: CommandIDs.pauseClock,
      label: trans.__('CIBench: Pause Working Clock'),
      caption: trans.__(
        'Pause the working clock of the attempt the panel shows: time away does not count'
      ),
      execute: () => controller.record.pause('command'),
      isEnabled: () => controller.record.canPause(),
      rank: 6
    },
    {
      id: CommandIDs.resumeClock,
      label: trans.__('CIBench: Resume Working Clock'),
      caption: trans.__(
        'Resume the paused working clock (an edit or a run resumes it too)'
      ),
      execute: () => controller.record.resume('command'),
      isEnabled: () => controller.record.canResume(),
      rank: 7
    }
  ];
}
