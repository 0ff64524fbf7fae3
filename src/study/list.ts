/**
 * The panel's study list, above the task list: one button per study of the
 * server, saying where the participant stands. Hidden when there is none.
 */
import { button, h, replaceChildren } from '../panel/dom';
import type { StudyModel } from './model';
import { stateText } from './words';
import { trans } from '../i18n';

export class StudyList {
  constructor(
    private model: StudyModel,
    private open: (id: string) => void
  ) {
    this.node = h('section', {
      className: 'jp-CIBench-studies',
      attrs: { 'aria-label': trans.__('Studies') }
    });
    model.changed.connect((_, kind) => kind === 'studies' && this.render());
    this.render();
  }

  readonly node: HTMLElement;

  private render(): void {
    const rows = this.model.studies;
    this.node.hidden = rows.length === 0;
    replaceChildren(
      this.node,
      h('h3', { className: 'jp-CIBench-section', text: trans.__('Studies') }),
      h(
        'ul',
        { className: 'jp-CIBench-studyList' },
        ...rows.map(row => {
          const open = button(row.title, 'jp-CIBench-study', () =>
            this.open(row.id)
          );
          open.setAttribute('data-study', row.id);
          const state = h('span', {
            className: 'jp-CIBench-studyState',
            text: stateText(row)
          });
          open.appendChild(state);
          return h('li', {}, open);
        })
      )
    );
  }
}
