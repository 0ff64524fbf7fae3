/**
 * cibench-lab: wires the CIBench panel, the attempt controller, the commands
 * and the cell executor (in place of JupyterLab's) into JupyterLab, and the
 * studies plugin into the panel, the class view (src/class/), and what the
 * first notebook needs fetched beforehand (notebook/prefetch.ts).
 */
import {
  ILabShell,
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IDocumentManager } from '@jupyterlab/docmanager';
import {
  INotebookCellExecutor,
  INotebookTracker,
  Notebook
} from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStateDB } from '@jupyterlab/statedb';
import { ITranslator } from '@jupyterlab/translation';

import { CIBenchApi } from './api';
import { classViewPlugin } from './class/plugin';
import { addCommands, CommandIDs, shortcutLabel } from './commands';
import { CIBenchModel } from './model';
import { addNewTaskCommand } from './newtask';
import { useTranslator } from './i18n';
import { AttemptController } from './notebook/controller';
import { addKeyCommands, IKeyAttempt } from './notebook/keys';
import { prefetchPlugin } from './notebook/prefetch';
import { AttemptRuns } from './notebook/runs';
import { CIBenchPanel, PANEL_ID } from './panel/panel';
import { relistTasks } from './panel/relist';
import { restorePanel } from './panel/restore';
import { PlaySettingsSource } from './settings';
import { studiesPlugin } from './study/plugin';
import { ICIBenchLab } from './tokens';

const PLUGIN_ID = 'cibench-lab:plugin';

/** The notebooks' cell executor; the controller sets its gate. */
const runs = new AttemptRuns();

const executor: JupyterFrontEndPlugin<INotebookCellExecutor> = {
  id: 'cibench-lab:cell-executor',
  description:
    "Runs notebook cells; an attempt notebook's once on its attempt kernel.",
  autoStart: true,
  provides: INotebookCellExecutor,
  activate: () => runs
};

const plugin: JupyterFrontEndPlugin<ICIBenchLab> = {
  id: PLUGIN_ID,
  description: 'Play and grade CIBench tasks in notebooks.',
  autoStart: true,
  provides: ICIBenchLab,
  requires: [ILabShell, INotebookTracker, IDocumentManager],
  optional: [
    ISettingRegistry,
    ICommandPalette,
    ILayoutRestorer,
    IStateDB,
    ITranslator
  ],
  activate: (
    app: JupyterFrontEnd,
    labShell: ILabShell,
    tracker: INotebookTracker,
    docManager: IDocumentManager,
    registry: ISettingRegistry | null,
    palette: ICommandPalette | null,
    restorer: ILayoutRestorer | null,
    state: IStateDB | null,
    translator: ITranslator | null
  ): ICIBenchLab => {
    useTranslator(translator);
    const settings = playSettings(registry);
    const api = new CIBenchApi(app.serviceManager.serverSettings);
    const model = new CIBenchModel();
    const controller = new AttemptController({
      api,
      model,
      tracker,
      docManager,
      shell: labShell,
      playSettings: () => settings.current
    });
    runs.gate = (model, cell) => controller.beforeRun(model, cell);
    addKeyCommands(app, tracker, nb => keyAttempt(controller, nb));
    const panel = addPanel(app, labShell, restorer, model, controller);
    relistTasks(panel, model, () => api.tasks(), registry, PLUGIN_ID);
    const openPanel = () => {
      labShell.activateById(PANEL_ID);
      panel.focusInside();
    };
    addCommands(app, controller, palette, { model, openPanel });
    addNewTaskCommand(app, tracker, api, palette, () => controller.refresh());
    void firstShow(controller, model, state);
    return { api, model, controller, panel, openPanel };
  }
};

/** The first read of tasks and attempts, then the panel as the person left it. */
async function firstShow(
  controller: AttemptController,
  model: CIBenchModel,
  state: IStateDB | null
): Promise<void> {
  await controller.refresh();
  if (state) {
    await restorePanel(model, state, id => controller.showById(id));
  }
}

/** What the notebook keys need of a notebook's attempt (keys.ts), if it plays one. */
function keyAttempt(
  controller: AttemptController,
  nb: Notebook
): IKeyAttempt | undefined {
  const session = controller.sessionOf(nb);
  return session && { closed: session.view.status !== 'open' };
}

/** The person's play settings from the settings editor (defaults without a registry). */
function playSettings(registry: ISettingRegistry | null): PlaySettingsSource {
  const settings = new PlaySettingsSource();
  if (registry) {
    void settings.load(registry, PLUGIN_ID);
  }
  return settings;
}

/** The panel in the left sidebar (restored with the layout), its buttons naming their shortcuts. */
function addPanel(
  app: JupyterFrontEnd,
  labShell: ILabShell,
  restorer: ILayoutRestorer | null,
  model: CIBenchModel,
  controller: AttemptController
): CIBenchPanel {
  const command = {
    next: CommandIDs.nextStep,
    'give-up': CommandIDs.giveUp,
    undo: CommandIDs.undoSettle
  };
  const panel = new CIBenchPanel(model, controller, action =>
    shortcutLabel(app.commands, command[action])
  );
  labShell.add(panel, 'left', { rank: 600 });
  restorer?.add(panel, PANEL_ID);
  return panel;
}

export default [
  executor,
  plugin,
  studiesPlugin,
  classViewPlugin,
  prefetchPlugin
];
