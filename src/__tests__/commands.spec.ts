import { readFileSync } from 'fs';
import * as path from 'path';

import { JupyterFrontEnd } from '@jupyterlab/application';
import { ICommandPalette, IPaletteItem } from '@jupyterlab/apputils';
import { CommandRegistry } from '@lumino/commands';

import { addCommands, CommandIDs, shortcutLabel } from '../commands';
import { CIBenchModel } from '../model';
import { CIBenchApi } from '../api';
import { AttemptController } from '../notebook/controller';
import { Recorder } from '../notebook/record';
import { attemptView } from './fixtures';

function setup() {
  const commands = new CommandRegistry();
  const app = {
    commands,
    contextMenu: { addItem: () => undefined }
  } as unknown as JupyterFrontEnd;
  const model = new CIBenchModel();
  const calls: string[] = [];
  // the server's answer to Pause / Resume: the attempt, paused or not
  const api = {
    clock: async (id: string, resume: boolean, cause: string) => {
      calls.push(`${resume ? 'resume' : 'pause'} ${cause}`);
      return attemptView({ paused: !resume });
    }
  } as unknown as CIBenchApi;
  const record = new Recorder({ api, model, session: () => undefined });
  // the controller's answers are the model's: whose attempt the panel shows
  const controller = {
    record,
    canSettle: () =>
      model.attempt?.status === 'open' && model.attempt.player === 'human',
    hasPlayer: () =>
      model.attempt?.status === 'open' && model.attempt.player !== 'human',
    settle: async (kind: string) => {
      calls.push(kind);
    },
    playStep: async () => undefined,
    playAll: async () => undefined,
    stopPlayer: async () => undefined,
    showTurns: async () => undefined,
    undoSettle: () => {
      calls.push('undo');
      return true;
    }
  } as unknown as AttemptController;
  const items: IPaletteItem[] = [];
  const palette = {
    addItem: (item: IPaletteItem) => {
      items.push(item);
      return { dispose: () => undefined };
    }
  } as unknown as ICommandPalette;
  addCommands(app, controller, palette, { model, openPanel: () => undefined });
  return { commands, model, calls, items };
}

describe('commands', () => {
  it('ranks Next Step before Give Up Step in the palette', () => {
    const { items } = setup();
    const rank = (id: string) => items.find(i => i.command === id)?.rank ?? 99;
    expect(rank(CommandIDs.nextStep)).toBeLessThan(rank(CommandIDs.giveUp));
    expect(items.every(i => i.category === 'CIBench')).toBe(true);
  });

  it("enables the player's commands only for an attached player's attempt", () => {
    const { commands, model } = setup();
    const enabled = (id: string) => commands.isEnabled(id);
    expect(enabled(CommandIDs.nextStep)).toBe(false);
    model.showAttempt(attemptView());
    expect(enabled(CommandIDs.nextStep)).toBe(true);
    expect(enabled(CommandIDs.giveUp)).toBe(true);
    expect(enabled(CommandIDs.playStep)).toBe(false);
    expect(enabled(CommandIDs.playAll)).toBe(false);
    expect(enabled(CommandIDs.stopPlayer)).toBe(false);
    model.showAttempt(attemptView({ player: 'openai:qwen' }));
    expect(enabled(CommandIDs.playStep)).toBe(true);
    expect(enabled(CommandIDs.nextStep)).toBe(false);
    model.showAttempt(attemptView({ status: 'done' }));
    expect(enabled(CommandIDs.giveUp)).toBe(false);
  });

  it('enables Undo Settle only inside the Undo window, and says so', async () => {
    const { commands, model, calls, items } = setup();
    const changed: (string | undefined)[] = [];
    commands.commandChanged.connect((_, args) => changed.push(args.id));
    expect(items.map(i => i.command)).toContain(CommandIDs.undoSettle);
    expect(commands.label(CommandIDs.undoSettle)).toBe('CIBench: Undo Settle');
    const view = attemptView();
    model.showAttempt(view);
    expect(commands.isEnabled(CommandIDs.undoSettle)).toBe(false);
    changed.length = 0;
    model.pending = { attemptId: view.id, step: 1, kind: 'next', remaining: 5 };
    expect(commands.isEnabled(CommandIDs.undoSettle)).toBe(true);
    model.pending = { ...model.pending, remaining: 4 }; // a tick: no change
    expect(changed).toEqual([CommandIDs.undoSettle]);
    await commands.execute(CommandIDs.undoSettle);
    expect(calls).toEqual(['undo']);
    model.pending = null;
    expect(commands.isEnabled(CommandIDs.undoSettle)).toBe(false);
    expect(changed).toEqual([CommandIDs.undoSettle, CommandIDs.undoSettle]);
  });

  it('binds Undo Settle to Accel Alt Z in the notebook and the panel', () => {
    const schema = JSON.parse(
      readFileSync(path.join(__dirname, '../../schema/plugin.json'), 'utf-8')
    );
    const undo = schema['jupyter.lab.shortcuts'].filter(
      (s: { command: string }) => s.command === CommandIDs.undoSettle
    );
    expect(undo.map((s: { selector: string }) => s.selector).sort()).toEqual([
      '.jp-CIBench-panel',
      '.jp-Notebook'
    ]);
    expect(
      undo.every((s: { keys: string[] }) => s.keys[0] === 'Accel Alt Z')
    ).toBe(true);
  });

  it('settles the shown attempt from the commands', async () => {
    const { commands, model, calls } = setup();
    model.showAttempt(attemptView());
    await commands.execute(CommandIDs.nextStep);
    await commands.execute(CommandIDs.giveUp);
    expect(calls).toEqual(['next', 'give-up']);
  });

  it("pauses and resumes the shown person's working clock, each when it applies", async () => {
    const { commands, model, calls, items } = setup();
    const enabled = (id: string) => commands.isEnabled(id);
    expect(commands.label(CommandIDs.pauseClock)).toBe(
      'CIBench: Pause Working Clock'
    );
    expect(items.map(i => i.command)).toContain(CommandIDs.resumeClock);
    expect(enabled(CommandIDs.pauseClock)).toBe(false); // no attempt shown
    model.showAttempt(attemptView());
    expect(enabled(CommandIDs.pauseClock)).toBe(true);
    expect(enabled(CommandIDs.resumeClock)).toBe(false);
    await commands.execute(CommandIDs.pauseClock);
    expect(model.attempt?.paused).toBe(true); // the panel shows the server's answer
    expect(enabled(CommandIDs.pauseClock)).toBe(false);
    expect(enabled(CommandIDs.resumeClock)).toBe(true);
    await commands.execute(CommandIDs.resumeClock);
    expect(calls).toEqual(['pause command', 'resume command']);
    expect(model.attempt?.paused).toBe(false);
    model.showAttempt(attemptView({ player: 'openai:qwen' }));
    expect(enabled(CommandIDs.pauseClock)).toBe(false);
  });

  it("labels a shortcut in the platform's form", () => {
    const { commands } = setup();
    expect(shortcutLabel(commands, CommandIDs.nextStep)).toBe('');
    commands.addKeyBinding({
      command: CommandIDs.nextStep,
      keys: ['Accel Alt N'],
      selector: 'body'
    });
    expect(shortcutLabel(commands, CommandIDs.nextStep)).toBe(
      CommandRegistry.formatKeystroke('Accel Alt N')
    );
    expect(shortcutLabel(commands, CommandIDs.nextStep)).toMatch(
      /^(Ctrl\+Alt\+N|⌥⌘N)$/
    );
  });
});
