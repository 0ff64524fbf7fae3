/**
 * The studies plugin: the panel's study list and study view, the way on from
 * a study task that ended, the link `…/lab?cibench-study=ID` that opens the
 * panel on a study, and (researchers) a study's results in the main area.
 */
import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { IDocumentManager } from '@jupyterlab/docmanager';

import { IAttemptSummary } from '../api';
import { ICIBenchLab } from '../tokens';
import { StudyApi } from './api';
import { IStudyHost, StudyController } from './controller';
import { StudyList } from './list';
import { StudyModel } from './model';
import { ResultsView } from './results';
import { ResultsArea } from './resultsarea';
import { closeTabsExcept } from './seat';
import { StudyView } from './view';
import { StudyWayOn } from './wayon';
import { studyParam } from './words';
import { trans } from '../i18n';

/** JupyterLab's file browser command that shows a folder. */
const GO_TO_PATH = 'filebrowser:go-to-path';

export const studiesPlugin: JupyterFrontEndPlugin<void> = {
  id: 'cibench-lab:studies',
  description:
    'Studies in the CIBench panel: consent, the plan, a link to open one; their results in the main area.',
  autoStart: true,
  requires: [ICIBenchLab, IDocumentManager],
  optional: [ILayoutRestorer],
  activate: (
    app: JupyterFrontEnd,
    lab: ICIBenchLab,
    docManager: IDocumentManager,
    restorer: ILayoutRestorer | null
  ) => {
    const model = new StudyModel();
    const shown: { area: ResultsArea | null } = { area: null };
    const controller = new StudyController(
      model,
      studyHost(app, lab, docManager, state => shown.area?.show(state))
    );
    shown.area = new ResultsArea(
      app,
      new ResultsView(controller),
      restorer,
      id => controller.results(id)
    );
    const view = new StudyView(model, controller);
    lab.panel.addView('study', view.node, () => view.focus());
    lab.panel.addToAttempt(new StudyWayOn(lab.model, model, controller).node);
    lab.panel.addAboveTasks(
      new StudyList(model, id => void controller.open(id)).node
    );
    const linked = studyParam(window.location.search);
    void app.restored
      .then(() => controller.load())
      .then(() => (linked ? controller.open(linked) : controller.resume()));
  }
};

function studyHost(
  app: JupyterFrontEnd,
  lab: ICIBenchLab,
  docManager: IDocumentManager,
  showResults: IStudyHost['showResults']
): IStudyHost {
  return {
    api: new StudyApi(lab.api),
    lab: lab.model,
    openAttempt: (id, path) => lab.controller.open(attemptRow(id, path)),
    refresh: () => lab.controller.refresh(),
    closeNotebooks: async paths => {
      for (const path of paths) {
        const widget = docManager.findWidget(path);
        if (widget) {
          await widget.context.save();
          widget.dispose();
        }
      }
    },
    closeTabsExcept: async paths => {
      const keep = new Set(paths);
      await closeTabsExcept(app.shell, docManager, path => keep.has(path));
      await browseTheTop(app);
    },
    confirm: async (title, body, ok) => {
      const answer = await showDialog({
        title,
        body,
        buttons: [
          Dialog.cancelButton({ label: trans.__('Cancel') }),
          Dialog.warnButton({ label: ok })
        ]
      });
      return answer.button.accept;
    },
    reveal: () => lab.openPanel(),
    showResults
  };
}

/** The file browser back at the server's root: out of the last person's attempt folder. */
async function browseTheTop(app: JupyterFrontEnd): Promise<void> {
  if (app.commands.hasCommand(GO_TO_PATH)) {
    await app.commands
      .execute(GO_TO_PATH, { path: '/', dontShowBrowser: true })
      .catch(err => console.warn('cibench-lab: the file browser stayed', err));
  }
}

/** What the attempt controller's `open` reads of an attempt row: its id and notebook. */
function attemptRow(id: string, notebookPath: string): IAttemptSummary {
  return {
    id,
    notebook_path: notebookPath,
    task_id: '',
    title: '',
    mode: 'e2e',
    status: 'open',
    current_step: 0,
    n_steps: 0,
    created_at: '',
    passed: null,
    language: '',
    split: ''
  };
}
