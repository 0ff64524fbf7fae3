/**
 * The study view of the panel: the study's title and protocol, then the
 * consent form until the participant accepts it, and after it what is next,
 * what is done and their time, with Start next task, Open, Quit and (on a
 * shared machine) Hand over.
 */
import { button, h, keepingFocus, replaceChildren } from '../panel/dom';
import type { IConsentRequest, IPlanItem, IStudyView } from './api';
import { consentForm, fillForm, focusForm, formValues } from './consent';
import type { StudyModel } from './model';
import { itemStatusText, progressLine, protocolText, timeText } from './words';
import { trans } from '../i18n';

/** What the study view's buttons do (the study controller). */
export interface IStudyActions {
  consent(body: IConsentRequest): Promise<void>;
  startNext(): Promise<void>;
  openItem(item: IPlanItem): Promise<void>;
  quit(): Promise<void>;
  handOver(): Promise<void>;
  /** Researchers: the study's people beside recorded runs. */
  results(): Promise<void>;
  /** "All tasks": back to the task view. */
  back(): void;
}

export class StudyView {
  constructor(
    private model: StudyModel,
    private actions: IStudyActions
  ) {
    this.node = h('div', { className: 'jp-CIBench-studyView' });
    model.changed.connect((_, kind) => kind === 'study' && this.render());
    this.render();
  }

  readonly node: HTMLElement;

  /** Put the focus in the view: the consent form's first (or first wrong) field, or Start. */
  focus(): void {
    const form = this.node.querySelector<HTMLFormElement>('form');
    if (form) {
      focusForm(form);
    } else {
      this.node.querySelector<HTMLElement>('[data-primary]')?.focus();
    }
  }

  private render(): void {
    const errors = this.model.errors;
    const old = this.node.querySelector('form');
    const filled =
      old && this.shown === this.model.study?.id ? formValues(old) : null;
    this.shown = this.model.study?.id ?? null;
    keepingFocus(this.node, () => this.renderNow());
    const form = this.node.querySelector('form');
    if (form && filled) {
      fillForm(form, filled); // drawn again with its errors: what was typed stays
    }
    if (Object.keys(errors).length) {
      this.focus();
    }
  }

  private renderNow(): void {
    const view = this.model.study;
    const back = button(trans.__('All tasks'), 'jp-CIBench-back', () =>
      this.actions.back()
    );
    if (!view) {
      replaceChildren(this.node, back);
      return;
    }
    replaceChildren(
      this.node,
      back,
      h('h3', { className: 'jp-CIBench-studyTitle', text: view.title }),
      h('p', {
        className: 'jp-CIBench-attempt-meta',
        text: protocolText(view.protocol)
      }),
      view.participant
        ? h('p', {
            className: 'jp-CIBench-participant',
            text: trans.__('Participant: %1', view.participant)
          })
        : null,
      view.researcher ? this.resultsButton() : null,
      view.state === 'consent'
        ? consentForm(
            view,
            this.model.errors,
            body => void this.actions.consent(body)
          )
        : this.progress(view)
    );
  }

  private shown: string | null = null; // the study whose form is drawn

  private progress(view: IStudyView): HTMLElement {
    return h(
      'section',
      {
        className: 'jp-CIBench-studyProgress',
        attrs: { 'aria-label': trans.__('Your study') }
      },
      h('p', {
        className: 'jp-CIBench-studyNow',
        text: progressLine(view),
        attrs: { role: 'status' }
      }),
      h('p', { className: 'jp-CIBench-studyTime', text: timeText(view) }),
      h(
        'ol',
        { className: 'jp-CIBench-plan' },
        ...view.items.map(item => this.itemRow(item))
      ),
      this.controls(view)
    );
  }

  private itemRow(item: IPlanItem): HTMLElement {
    const row = h(
      'li',
      {
        className: 'jp-CIBench-planItem',
        attrs: { 'data-status': item.status }
      },
      h('span', { className: 'jp-CIBench-planTitle', text: item.title }),
      h('span', {
        className: 'jp-CIBench-planStatus',
        text: itemStatusText(item)
      })
    );
    if (item.status === 'open') {
      row.setAttribute('aria-current', 'step');
    }
    return row;
  }

  private controls(view: IStudyView): HTMLElement {
    const bar = h('div', { className: 'jp-CIBench-studyActions' });
    const current = view.current === null ? null : view.items[view.current];
    if (current) {
      const open = button(
        trans.__('Open task'),
        'jp-CIBench-openItem',
        () => void this.actions.openItem(current)
      );
      open.setAttribute('data-primary', '');
      bar.append(
        open,
        button(
          trans.__('Quit task'),
          'jp-CIBench-quit',
          () => void this.actions.quit()
        )
      );
    } else if (view.next !== null) {
      const start = button(
        trans.__('Start next task'),
        'jp-CIBench-startNext',
        () => void this.actions.startNext()
      );
      start.setAttribute('data-primary', '');
      bar.append(start);
    }
    if (view.participant_code && view.participant !== null) {
      bar.append(
        button(
          trans.__('Hand over'),
          'jp-CIBench-handOver',
          () => void this.actions.handOver(),
          trans.__('Sign your code out: the next participant enters theirs')
        )
      );
    }
    return bar;
  }

  /** Researchers: the study's people beside recorded runs. */
  private resultsButton(): HTMLButtonElement {
    return button(
      trans.__('Results'),
      'jp-CIBench-results',
      () => void this.actions.results(),
      trans.__("The study's people beside recorded model runs (researchers)")
    );
  }
}
