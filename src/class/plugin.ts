/**
 * The class view plugin: the command "CIBench: Class View" (the palette and
 * a button in the panel's header, for instructors only) opening the class view in the main area, which the
 * layout restorer reopens after a reload, on the class it showed.
 */
import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import {
  ICommandPalette,
  MainAreaWidget,
  WidgetTracker
} from '@jupyterlab/apputils';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';

import { CATEGORY } from '../commands';
import { button } from '../panel/dom';
import { followNumber } from '../settings';
import { ICIBenchLab } from '../tokens';
import { ClassApi } from './api';
import { ReadonlyPartialJSONObject } from '@lumino/coreutils';

import { ClassView, IClassViewOptions } from './view';
import { trans } from '../i18n';

export const CLASS_VIEW = 'cibench-lab:class-view';
const SETTINGS = 'cibench-lab:plugin';
const POLL_DEFAULT = 5; // seconds (schema/plugin.json: classViewPoll)
/** The layout restorer's name for the class view (one at a time). */
const TRACKER = 'cibench-lab-class-view';
/** The class view command's arguments. */
const CLASS_VIEW_ARGS = {
  args: {
    type: 'object' as const,
    properties: {
      class: { type: 'string' as const, description: 'The class to show' },
      activate: {
        type: 'boolean' as const,
        description: 'Bring the view to the front'
      }
    }
  }
};

type ClassArea = MainAreaWidget<ClassView>;

export const classViewPlugin: JupyterFrontEndPlugin<void> = {
  id: 'cibench-lab:class',
  description:
    "An instructor's class view: progress, scores, attempts, pass rates.",
  autoStart: true,
  requires: [ICIBenchLab],
  optional: [
    ICommandPalette,
    ISettingRegistry,
    IRenderMimeRegistry,
    ILayoutRestorer
  ],
  activate: (
    app: JupyterFrontEnd,
    lab: ICIBenchLab,
    palette: ICommandPalette | null,
    registry: ISettingRegistry | null,
    rendermime: IRenderMimeRegistry | null,
    restorer: ILayoutRestorer | null
  ) => {
    let instructor = false;
    let poll = POLL_DEFAULT;
    const tracker = new WidgetTracker<ClassArea>({ namespace: TRACKER });
    const open = opener(app, tracker, () => ({
      api: new ClassApi(lab.api),
      classes: () => lab.api.classes(),
      interval: () => poll,
      rendermime
    }));
    app.commands.addCommand(CLASS_VIEW, {
      label: trans.__('CIBench: Class View'),
      caption: trans.__(
        "Your classes' progress, scores and attempts (instructors)"
      ),
      isVisible: () => instructor,
      isEnabled: () => instructor,
      describedBy: CLASS_VIEW_ARGS,
      execute: args => open(args)
    });
    restoreClassView(restorer, tracker);
    palette?.addItem({ command: CLASS_VIEW, category: CATEGORY, rank: 30 });
    const shortcut = headerButton(app, lab);
    void lab.api.me().then(me => {
      instructor = me.roles.includes('instructor');
      shortcut.hidden = !instructor;
      app.commands.notifyCommandChanged(CLASS_VIEW);
    });
    followNumber(registry, SETTINGS, 'classViewPoll', POLL_DEFAULT, 1, s => {
      poll = s;
    });
  }
};

/** After a reload the lab reopens the class view (the same class), as it does its own main-area widgets. */
function restoreClassView(
  restorer: ILayoutRestorer | null,
  tracker: WidgetTracker<ClassArea>
): void {
  void restorer?.restore(tracker, {
    command: CLASS_VIEW,
    args: area => ({ class: area.content.className ?? '', activate: false }),
    name: () => 'class-view'
  });
}

/** The panel header's Class View button: hidden until the user is known to be an instructor. */
function headerButton(
  app: JupyterFrontEnd,
  lab: ICIBenchLab
): HTMLButtonElement {
  const shortcut = button(
    trans.__('Class View'),
    'jp-CIBench-classViewButton',
    () => void app.commands.execute(CLASS_VIEW),
    trans.__("Your classes' progress, scores and attempts")
  );
  shortcut.hidden = true;
  lab.panel.addHeaderButton(shortcut);
  return shortcut;
}

/**
 * The command's action: open the class view (`args.class`: on that class,
 * else the first one taught) or bring the open one to the front; tracked, so
 * the layout restorer keeps it and its class across a reload (`args.activate`
 * false: a restored view leaves the focus where the lab puts it).
 */
function opener(
  app: JupyterFrontEnd,
  tracker: WidgetTracker<ClassArea>,
  options: () => IClassViewOptions
): (args: ReadonlyPartialJSONObject) => void {
  let shown: ClassArea | null = null;
  return args => {
    if (!shown || shown.isDisposed) {
      const view = new ClassView(options());
      const area = new MainAreaWidget({ content: view });
      area.id = 'cibench-lab-class-view-area';
      area.title.label = view.title.label;
      area.title.closable = true;
      view.classChanged.connect(() => void tracker.save(area));
      void tracker.add(area);
      app.shell.add(area, 'main');
      const name = typeof args.class === 'string' ? args.class : null;
      void view.start(name || null);
      shown = area;
    }
    if (args.activate !== false) {
      app.shell.activateById(shown.id);
    }
  };
}
