/**
 * The study's results view in the main area: a report's tables and charts
 * need more room than the panel's sidebar. One tab ("Results: TITLE"), opened
 * or brought to the front by the study view's Results button; tracked, so the
 * lab reopens it on its study after a reload (the command
 * `cibench-lab:study-results`, which the layout restorer calls with the study).
 */
import { ILayoutRestorer, JupyterFrontEnd } from '@jupyterlab/application';
import { MainAreaWidget, WidgetTracker } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import type { IResultsState, ResultsView } from './results';
import { trans } from '../i18n';

export const RESULTS_COMMAND = 'cibench-lab:study-results';
const TRACKER = 'cibench-lab-study-results';

export class ResultsArea {
  constructor(
    private app: JupyterFrontEnd,
    private view: ResultsView,
    restorer: ILayoutRestorer | null,
    /** Open the results of study `id` (the study controller). */
    open: (id: string) => Promise<void>
  ) {
    app.commands.addCommand(RESULTS_COMMAND, {
      label: trans.__('CIBench: Study Results'),
      caption: trans.__(
        "A study's people beside recorded model runs (researchers)"
      ),
      describedBy: {
        args: {
          type: 'object',
          properties: {
            study: { type: 'string', description: 'The study id' }
          },
          required: ['study']
        }
      },
      execute: args =>
        typeof args.study === 'string' ? open(args.study) : undefined
    });
    void restorer?.restore(this.tracker, {
      command: RESULTS_COMMAND,
      args: () => ({ study: this.study }),
      name: () => 'study-results'
    });
  }

  /** Draw `state` in the tab (opened when closed) and bring it to the front. */
  show(state: IResultsState): void {
    const opened = this.view.node.isConnected;
    this.view.show(state);
    this.study = state.study;
    if (!this.area || this.area.isDisposed) {
      const content = new Widget({ node: this.view.node });
      content.addClass('jp-CIBench-resultsArea');
      this.area = new MainAreaWidget({ content });
      this.area.id = 'cibench-lab-study-results';
      this.area.title.closable = true;
      void this.tracker.add(this.area);
      this.app.shell.add(this.area, 'main');
    }
    this.area.title.label = trans.__('Results: %1', state.title);
    void this.tracker.save(this.area);
    if (!opened || !this.area.isVisible) {
      this.app.shell.activateById(this.area.id);
      this.view.focus();
    }
  }

  private study = '';
  private area: MainAreaWidget | null = null;
  private tracker = new WidgetTracker<MainAreaWidget>({ namespace: TRACKER });
}
