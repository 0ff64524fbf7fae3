/**
 * The class view plugin: the command "CIBench: Class View" (palette, for
 * instructors only) opening the class view in the main area.
 */
import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, MainAreaWidget } from '@jupyterlab/apputils';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';

import { CATEGORY } from '../commands';
import { ICIBenchLab } from '../tokens';
import { ClassApi } from './api';
import { ClassView } from './view';

export const CLASS_VIEW = 'cibench-lab:class-view';
const SETTINGS = 'cibench-lab:plugin';
const POLL_DEFAULT = 5; // seconds (schema/plugin.json: classViewPoll)

export const classViewPlugin: JupyterFrontEndPlugin<void> = {
  id: 'cibench-lab:class',
  description:
    "An instructor's class view: progress, scores, attempts, pass rates.",
  autoStart: true,
  requires: [ICIBenchLab],
  optional: [ICommandPalette, ISettingRegistry, IRenderMimeRegistry],
  activate: (
    app: JupyterFrontEnd,
    lab: ICIBenchLab,
    palette: ICommandPalette | null,
    registry: ISettingRegistry | null,
    rendermime: IRenderMimeRegistry | null
  ) => {
    let instructor = false;
    let poll = POLL_DEFAULT;
    let shown: MainAreaWidget<ClassView> | null = null;
    app.commands.addCommand(CLASS_VIEW, {
      label: 'CIBench: Class View',
      caption: "Your classes' progress, scores and attempts (instructors)",
      isVisible: () => instructor,
      isEnabled: () => instructor,
      execute: () => {
        if (!shown || shown.isDisposed) {
          const view = new ClassView({
            api: new ClassApi(lab.api),
            classes: () => lab.api.classes(),
            interval: () => poll,
            rendermime
          });
          shown = new MainAreaWidget({ content: view });
          shown.id = 'cibench-lab-class-view-area';
          shown.title.label = view.title.label;
          shown.title.closable = true;
          app.shell.add(shown, 'main');
          void view.start();
        }
        app.shell.activateById(shown.id);
      }
    });
    palette?.addItem({ command: CLASS_VIEW, category: CATEGORY, rank: 30 });
    void lab.api.me().then(me => {
      instructor = me.roles.includes('instructor');
      app.commands.notifyCommandChanged(CLASS_VIEW);
    });
    followPoll(registry, seconds => (poll = seconds));
  }
};

/** The class view's polling interval from the settings editor (`classViewPoll`). */
function followPoll(
  registry: ISettingRegistry | null,
  set: (seconds: number) => void
): void {
  void registry?.load(SETTINGS).then(settings => {
    const read = () => {
      const value = settings.composite.classViewPoll;
      set(typeof value === 'number' && value >= 1 ? value : POLL_DEFAULT);
    };
    read();
    settings.changed.connect(read);
  });
}
