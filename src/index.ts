/**
 * cibench-lab: wires the CIBench panel, the attempt controller and the
 * commands into JupyterLab.
 */
import {
  ILabShell,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IDocumentManager } from '@jupyterlab/docmanager';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';

import { CIBenchApi } from './api';
import { addCommands } from './commands';
import { CIBenchModel } from './model';
import { AttemptController } from './notebook/controller';
import { CIBenchPanel } from './panel/panel';
import { PlaySettingsSource } from './settings';

const PLUGIN_ID = 'cibench-lab:plugin';

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'Play and grade CIBench tasks in notebooks.',
  autoStart: true,
  requires: [ILabShell, INotebookTracker, IDocumentManager],
  optional: [ISettingRegistry, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    labShell: ILabShell,
    tracker: INotebookTracker,
    docManager: IDocumentManager,
    registry: ISettingRegistry | null,
    palette: ICommandPalette | null
  ) => {
    const settings = new PlaySettingsSource();
    if (registry) {
      void settings.load(registry, PLUGIN_ID);
    }
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
    const panel = new CIBenchPanel(model, controller);
    labShell.add(panel, 'left', { rank: 600 });
    addCommands(app, controller, palette);
    void controller.refresh();
  }
};

export default plugin;
