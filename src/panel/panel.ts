/**
 * The CIBench left-sidebar panel: a header, an error line, the task view or
 * the attempt view (scrolling), and the action bar (always in view).
 */
import { LabIcon } from '@jupyterlab/ui-components';
import { Message, MessageLoop } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import { ChangeKind, CIBenchModel, ViewKind } from '../model';
import { ActionBar, ShortcutLabel } from './actionbar';
import { IPanelActions, LOCK_ATTR } from './actions';
import { AttemptView } from './attempt';
import { button, h } from './dom';
import { TasksView } from './tasks';
import { roleText } from './words';
import { trans } from '../i18n';

export const PANEL_ID = 'cibench-lab-panel';

/** How long the panel keeps the focus it was given by command (ms). */
const HOLD_MS = 1500;
const HOLD_TICK_MS = 100;
const FOCUS_MSG = 'cibench-focus';

const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">
  <g class="jp-icon3" fill="#616161">
    <path d="M3 3h2v16h16v2H3z"/>
    <path d="M7 13h3v5H7zM12 9h3v9h-3zM17 5h3v13h-3z"/>
  </g>
</svg>`;

export const cibenchIcon = new LabIcon({
  name: 'cibench-lab:icon',
  svgstr: ICON_SVG
});

export class CIBenchPanel extends Widget {
  constructor(
    readonly model: CIBenchModel,
    actions: IPanelActions,
    shortcut: ShortcutLabel = () => ''
  ) {
    super();
    this.id = PANEL_ID;
    this.addClass('jp-CIBench-panel');
    // a labelled region: its content is in a landmark (its header is no banner of its own)
    this.node.setAttribute('role', 'region');
    this.node.setAttribute('aria-label', trans.__('CIBench'));
    this.title.icon = cibenchIcon;
    this.title.caption = trans.__('CIBench');
    this.tasksView = new TasksView(model, actions, () =>
      this.actionBar.focusPrimary()
    );
    this.attemptView = new AttemptView(model, actions, () => this.showTasks());
    this.actionBar = new ActionBar(model, actions, shortcut);
    this.node.appendChild(this.header(actions));
    this.node.appendChild(this.noticeLine);
    this.node.appendChild(this.errorLine);
    this.body.appendChild(this.tasksView.node);
    this.body.appendChild(this.attemptView.node);
    this.node.appendChild(this.body);
    this.node.appendChild(this.actionBar.node);
    this.renderView();
    this.renderError();
    this.renderNotice();
    model.changed.connect(this.onChange, this);
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.model.changed.disconnect(this.onChange, this);
    super.dispose();
  }

  /**
   * Put the focus inside the panel: the task filter, or the attempt's main
   * action. After a palette command the lab activates the main area's widget
   * once the command has run (a frame or more later): the focus is given
   * through the message loop, and for a moment it is given back (to where the
   * person had moved it in the panel) when the lab takes it — until the person
   * uses the pointer or a shortcut.
   */
  focusInside(): void {
    void Promise.resolve().then(() =>
      MessageLoop.postMessage(this, new Message(FOCUS_MSG))
    );
    const until = Date.now() + HOLD_MS;
    let last: HTMLElement | null = null;
    let held = true;
    const onFocus = (event: FocusEvent) => {
      last = event.target instanceof HTMLElement ? event.target : last;
    };
    const onPointer = () => (held = false);
    const onKey = (event: KeyboardEvent) => {
      held = held && !(event.ctrlKey || event.metaKey || event.altKey);
    };
    this.node.addEventListener('focusin', onFocus);
    window.addEventListener('pointerdown', onPointer, true);
    window.addEventListener('keydown', onKey, true);
    const tick = () => {
      if (!held || this.isDisposed || Date.now() > until) {
        this.node.removeEventListener('focusin', onFocus);
        window.removeEventListener('pointerdown', onPointer, true);
        window.removeEventListener('keydown', onKey, true);
        return;
      }
      if (this.isVisible && !this.node.contains(document.activeElement)) {
        if (last && this.node.contains(last)) {
          last.focus();
        } else {
          this.focusNow();
        }
      }
      setTimeout(tick, HOLD_TICK_MS);
    };
    setTimeout(tick, HOLD_TICK_MS);
  }

  processMessage(msg: Message): void {
    if (msg.type === FOCUS_MSG) {
      this.focusNow();
    } else {
      super.processMessage(msg);
    }
  }

  /**
   * Add a view of another part (the study view): shown, without the action
   * bar, while the model's view is `kind`; `focus` puts the focus in it.
   */
  addView(kind: ViewKind, node: HTMLElement, focus: () => void): void {
    this.views.set(kind, { node, focus });
    this.body.appendChild(node);
    this.renderView();
  }

  /** Add a part shown at the top of the attempt view (a study's way on); `node` hides itself. */
  addToAttempt(node: HTMLElement): void {
    this.attemptView.node.insertBefore(node, this.attemptView.node.firstChild);
  }

  /** Add a part shown above the task list, with it (the study list). */
  addAboveTasks(node: HTMLElement): void {
    const wrap = h('div', {}, node); // hidden with the task list; `node` may hide itself
    this.aboveTasks.push(wrap);
    this.body.insertBefore(wrap, this.tasksView.node);
    this.renderView();
  }

  private focusNow(): void {
    const other = this.views.get(this.model.view);
    if (other) {
      other.focus();
    } else if (this.model.view === 'tasks') {
      this.tasksView.focusFilter();
    } else if (!this.actionBar.focusPrimary()) {
      this.node
        .querySelector<HTMLElement>('.jp-CIBench-attemptView .jp-CIBench-back')
        ?.focus();
    }
  }

  /**
   * "All tasks": the task view, with the focus back in its filter and no task
   * selected — Start would otherwise start the task left selected, its intro
   * out of view below the list.
   */
  private showTasks(): void {
    this.model.selected = null;
    this.model.view = 'tasks';
    this.tasksView.focusFilter();
  }

  private header(actions: IPanelActions): HTMLElement {
    // a div, not a <header>: outside a landmark that is a second banner beside the lab's
    return h(
      'div',
      { className: 'jp-CIBench-header' },
      h(
        'div',
        { className: 'jp-CIBench-title' },
        h('h2', { className: 'jp-CIBench-heading', text: trans.__('CIBench') }),
        this.role
      ),
      h(
        'div',
        { className: 'jp-CIBench-headerTools' },
        button(
          trans.__('Refresh'),
          'jp-CIBench-refresh',
          () => void actions.refresh(),
          trans.__('Reload tasks and attempts')
        )
      )
    );
  }

  /** Add a button to the header, before Refresh (the class view's, for instructors). */
  addHeaderButton(node: HTMLElement): void {
    const tools = this.node.querySelector('.jp-CIBench-headerTools');
    tools?.insertBefore(node, tools.lastElementChild);
  }

  private onChange(_: CIBenchModel, kind: ChangeKind): void {
    switch (kind) {
      case 'busy':
        this.renderBusy();
        break;
      case 'error':
        this.renderError();
        break;
      case 'me':
        this.renderRole();
        break;
      case 'notice':
        this.renderNotice();
        break;
      case 'view':
        this.renderView();
        this.actionBar.update(kind);
        break;
      default:
        this.tasksView.update(kind);
        this.attemptView.update(kind);
        this.actionBar.update(kind);
    }
  }

  private renderView(): void {
    const view = this.model.view;
    this.tasksView.node.hidden = view !== 'tasks';
    this.aboveTasks.forEach(wrap => (wrap.hidden = view !== 'tasks'));
    this.attemptView.node.hidden = view !== 'attempt';
    this.views.forEach((part, kind) => (part.node.hidden = view !== kind));
    this.actionBar.node.hidden = view !== 'tasks' && view !== 'attempt';
  }

  private renderError(): void {
    const message = this.model.error;
    this.errorLine.textContent = message ?? '';
    this.errorLine.hidden = !message;
  }

  /** The server's one line when task kernels run unpinned (hidden otherwise). */
  private renderNotice(): void {
    const notice = this.model.kernelNotice;
    this.noticeLine.textContent = notice ?? '';
    this.noticeLine.hidden = !notice;
  }

  /** The user's role, small beside the heading (hidden until known). */
  private renderRole(): void {
    const { text, title } = roleText(this.model.me);
    this.role.textContent = text;
    this.role.title = title;
    this.role.hidden = !text;
  }

  private renderBusy(): void {
    const busy = this.model.busy;
    this.node.setAttribute('aria-busy', String(busy));
    this.node.classList.toggle('jp-CIBench-busy', busy);
    this.node
      .querySelectorAll<HTMLButtonElement>(`button[${LOCK_ATTR}]`)
      .forEach(btn => (btn.disabled = busy));
  }

  private tasksView: TasksView;
  private attemptView: AttemptView;
  private actionBar: ActionBar;
  private body = h('div', { className: 'jp-CIBench-body' });
  private role = h('span', {
    className: 'jp-CIBench-role',
    attrs: { hidden: '' }
  });
  private views = new Map<ViewKind, { node: HTMLElement; focus: () => void }>();
  private aboveTasks: HTMLElement[] = [];
  private noticeLine = h('div', {
    className: 'jp-CIBench-notice',
    attrs: { role: 'status', hidden: '' }
  });
  private errorLine = h('div', {
    className: 'jp-CIBench-error',
    attrs: { role: 'alert' }
  });
}
