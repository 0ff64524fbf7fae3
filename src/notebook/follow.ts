/**
 * Which attempt notebook the person is working in: the panel follows the
 * notebook they activate (its tab, a click or a key inside it, the lab's
 * tab-switching commands) — not the one the lab activates by itself when the
 * shown attempt's notebook is closed. Every pointer press and key press is a
 * gesture; an activation in the same gesture as that close is the lab's.
 */
import { ILabShell } from '@jupyterlab/application';
import { NotebookPanel } from '@jupyterlab/notebook';

export interface IFollowOptions {
  shell: ILabShell;
  /** Where gestures are listened for, in the capture phase (the window). */
  target: EventTarget;
  /** The attempt notebook an event happened in (its node or its tab), if any. */
  find: (target: EventTarget | null) => NotebookPanel | undefined;
  /** Show the attempt of a notebook the person activated. */
  follow: (panel: NotebookPanel) => void;
}

export class ActivationFollower {
  constructor(private options: IFollowOptions) {
    for (const type of GESTURES) {
      options.target.addEventListener(type, this.onGesture, true);
    }
    options.shell.activeChanged.connect(this.onActive, this);
  }

  /**
   * The shown attempt's notebook was closed: the activation that follows
   * within this gesture is not the person's.
   */
  closed(): void {
    this.closedIn = this.gesture;
  }

  /** The notebook the person activated last (not the lab by itself). */
  get activated(): NotebookPanel | null {
    return this._activated;
  }

  dispose(): void {
    for (const type of GESTURES) {
      this.options.target.removeEventListener(type, this.onGesture, true);
    }
    this.options.shell.activeChanged.disconnect(this.onActive, this);
  }

  private onGesture = (event: Event): void => {
    this.gesture += 1;
    const panel = this.options.find(event.target);
    if (panel) {
      this._activated = panel;
      this.options.follow(panel);
    }
  };

  private onActive(_: ILabShell, change: ILabShell.IChangedArgs): void {
    const widget = change.newValue;
    if (!(widget instanceof NotebookPanel) || this.gesture === this.closedIn) {
      return;
    }
    this._activated = widget;
    this.options.follow(widget);
  }

  private gesture = 0;
  private closedIn = -1;
  private _activated: NotebookPanel | null = null;
}

const GESTURES = ['pointerdown', 'keydown'];

/** The notebook among `panels` whose node or dock tab holds `target`. */
export function panelOf(
  target: EventTarget | null,
  panels: Iterable<NotebookPanel>
): NotebookPanel | undefined {
  if (!(target instanceof Element)) {
    return undefined;
  }
  if (target.closest('.lm-TabBar-tabCloseIcon')) {
    return undefined; // closing a tab is not working in it
  }
  const tabId = target
    .closest('.lm-DockPanel .lm-TabBar-tab')
    ?.getAttribute('data-id');
  for (const panel of panels) {
    if (panel.id === tabId || panel.node.contains(target)) {
      return panel;
    }
  }
  return undefined;
}
