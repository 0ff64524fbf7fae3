/**
 * The panel's action bar, always in view below the scrolling content: Start
 * (task view), or the step counter with Next step / Give up and the working
 * clock's Pause / Resume (a person's attempt) or Play step / Play all / Stop
 * (an attached player's), and the Undo countdown of a settle a person started.
 */
import { IAttemptView } from '../api';
import { ChangeKind, CIBenchModel, IPendingSettle, stepLabel } from '../model';
import { IPanelActions, lockable } from './actions';
import { button, h, replaceChildren } from './dom';
import { startName } from './qwen';
import { clockControls } from './record';
import { passedText } from './summary';
import { trans } from '../i18n';

/** The platform's label of an action's keyboard shortcut ('' for none). */
export type ShortcutLabel = (action: 'next' | 'give-up' | 'undo') => string;

/** "Step 3 of 12", "Finished" or "Quit at step 3 of 12". */
export function progressText(view: IAttemptView): string {
  if (view.status === 'done') {
    return trans.__('Finished');
  }
  if (view.status === 'quit') {
    return trans.__(
      'Quit at step %1 of %2',
      view.current_step + 1,
      view.n_steps
    );
  }
  return trans.__('%1 of %2', stepLabel(view.current_step), view.n_steps);
}

/**
 * What the countdown says: "Step 3 settles in 4 s — Undo: Ctrl+Alt+Z" /
 * "Step 3 is given up in 4 s" (`undoKeys`: the Undo shortcut's label, if any).
 */
export function pendingText(p: IPendingSettle, undoKeys = ''): string {
  const undo = undoKeys ? trans.__(' — Undo: %1', undoKeys) : '';
  const label = stepLabel(p.step);
  return p.kind === 'next'
    ? trans.__('%1 settles in %2 s%3', label, p.remaining, undo)
    : trans.__('%1 is given up in %2 s%3', label, p.remaining, undo);
}

const KEY = 'data-focus-key';

export class ActionBar {
  constructor(
    private model: CIBenchModel,
    private actions: IPanelActions,
    private shortcut: ShortcutLabel
  ) {
    this.node = h('div', {
      className: 'jp-CIBench-actionBar',
      attrs: { role: 'region', 'aria-label': trans.__('CIBench actions') }
    });
    this.render();
  }

  readonly node: HTMLElement;

  update(kind: ChangeKind): void {
    if (kind === 'autoplay') {
      this.renderAutoplay();
    } else if (kind === 'pending' && this.countdown && this.samePending()) {
      this.countdown.textContent = pendingText(
        this.model.pending!,
        this.shortcut('undo')
      );
    } else if (RENDER_ON.includes(kind)) {
      this.render();
    }
  }

  /** Focus the bar's main action (Undo, Next step, Play step or Start). */
  focusPrimary(): boolean {
    const target = this.node.querySelector<HTMLElement>(
      '[data-primary]:not(:disabled)'
    );
    target?.focus();
    return !!target;
  }

  private render(): void {
    const active = document.activeElement;
    const focused =
      active instanceof HTMLElement && this.node.contains(active)
        ? (active.getAttribute(KEY) ?? '')
        : null;
    this.countdown = null;
    this.shownPending = null;
    replaceChildren(this.node, ...this.content());
    this.renderAutoplay();
    if (focused !== null) {
      const again = this.node.querySelector<HTMLElement>(
        `[${KEY}="${focused}"]:not(:disabled)`
      );
      if (again) {
        again.focus();
      } else {
        this.focusPrimary();
      }
    }
  }

  private content(): HTMLElement[] {
    if (this.model.view === 'tasks') {
      return this.startControls();
    }
    const view = this.model.attempt;
    if (!view) {
      return [];
    }
    const counter = h('span', {
      className: 'jp-CIBench-counter',
      text: progressText(view)
    });
    if (view.status !== 'open') {
      return [counter, h('span', { text: passedText(view) })];
    }
    const pending = this.model.pending;
    if (pending && pending.attemptId === view.id) {
      return [counter, ...this.pendingControls(pending)];
    }
    return view.player === 'human'
      ? [
          counter,
          ...this.personControls(),
          ...clockControls(view, this.actions.record)
        ]
      : [counter, ...this.playerControls()];
  }

  private startControls(): HTMLElement[] {
    const task = this.model.selected;
    const name = task ? startName(task) : '';
    const start = button(
      trans.__('Start'),
      'jp-CIBench-start',
      () => void this.actions.start(),
      task ? trans.__('Start %1', name) : trans.__('Select a task first')
    );
    mark(start, 'start');
    if (task) {
      lockable(start, this.model);
    } else {
      start.disabled = true;
    }
    const hint = h('span', {
      className: 'jp-CIBench-barHint',
      text: task ? name : trans.__('Select a task to start.'),
      attrs: task ? { title: name } : {}
    });
    return [start, hint];
  }

  private personControls(): HTMLElement[] {
    const keys = this.shortcut('next');
    const next = button(
      trans.__('Next step'),
      'jp-CIBench-next',
      () => void this.actions.next(),
      keys
        ? trans.__('Settle this step and open the next (%1)', keys)
        : trans.__('Settle this step and open the next')
    );
    if (keys) {
      next.setAttribute('aria-keyshortcuts', keys.replace(/\s+/g, ''));
    }
    mark(lockable(next, this.model), 'next');
    return [next, this.giveUpButton()];
  }

  private playerControls(): HTMLElement[] {
    const play = button(
      trans.__('Play step'),
      'jp-CIBench-play-step',
      () => void this.actions.playStep(),
      trans.__('Play the open step')
    );
    mark(play, 'play-step');
    const all = button(
      trans.__('Play all'),
      'jp-CIBench-play-all',
      () => void this.actions.playAll(),
      trans.__('Play every remaining step')
    );
    all.setAttribute(KEY, 'play-all');
    const stop = button(
      trans.__('Stop'),
      'jp-CIBench-stop',
      () => void this.actions.stopPlayer(),
      trans.__('Stop the player after the turn in flight')
    );
    stop.setAttribute(KEY, 'stop');
    return [play, all, stop, this.giveUpButton(), this.autoplayLine];
  }

  private giveUpButton(): HTMLButtonElement {
    const btn = lockable(
      button(
        trans.__('Give up'),
        'jp-CIBench-giveup',
        () => void this.actions.giveUp(),
        trans.__('Give up this step and open the next')
      ),
      this.model
    );
    btn.setAttribute(KEY, 'give-up');
    return btn;
  }

  /**
   * The countdown, Undo (Enter or Escape on it, or its shortcut anywhere in
   * the notebook) and Settle now. The status line announces the window once,
   * with the shortcut: the countdown ticking is not read out.
   */
  private pendingControls(p: IPendingSettle): HTMLElement[] {
    this.shownPending = p;
    const keys = this.shortcut('undo');
    this.countdown = h('span', {
      className: 'jp-CIBench-countdown',
      text: pendingText(p, keys),
      attrs: { 'aria-hidden': 'true' }
    });
    const status = h('span', {
      className: 'jp-CIBench-pending',
      attrs: {
        role: 'status',
        'aria-live': 'polite',
        id: 'jp-CIBench-pending-status'
      },
      text: pendingText(p, keys)
    });
    const undo = this.undoButton(keys);
    const now = button(
      trans.__('Settle now'),
      'jp-CIBench-settle-now',
      () => void this.actions.settleNow(),
      trans.__('Send it without waiting')
    );
    now.setAttribute(KEY, 'settle-now');
    return [this.countdown, undo, now, status];
  }

  private undoButton(keys: string): HTMLButtonElement {
    const undo = button(
      trans.__('Undo'),
      'jp-CIBench-undo',
      () => this.undo(),
      keys ? trans.__('Undo (%1)', keys) : trans.__('Undo')
    );
    if (keys) {
      undo.setAttribute('aria-keyshortcuts', keys.replace(/\s+/g, ''));
    }
    undo.setAttribute('aria-describedby', 'jp-CIBench-pending-status');
    undo.addEventListener('keydown', event => {
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        this.undo();
      }
    });
    return mark(undo, 'undo');
  }

  private undo(): void {
    this.actions.undoSettle();
    this.focusPrimary(); // Next step again
  }

  private samePending(): boolean {
    const a = this.model.pending;
    const b = this.shownPending;
    return (
      !!a &&
      !!b &&
      a.attemptId === b.attemptId &&
      a.step === b.step &&
      a.kind === b.kind
    );
  }

  /** The player's status line and the enabled state of its buttons. */
  private renderAutoplay(): void {
    const state = this.model.autoplay;
    const mine = state.id === this.model.attempt?.id;
    this.autoplayLine.textContent = mine ? state.status : '';
    const playing = mine && state.playing;
    this.node
      .querySelectorAll<HTMLButtonElement>(
        '.jp-CIBench-play-step, .jp-CIBench-play-all'
      )
      .forEach(btn => (btn.disabled = playing));
    const stop = this.node.querySelector<HTMLButtonElement>('.jp-CIBench-stop');
    if (stop) {
      stop.disabled = !playing;
    }
  }

  private countdown: HTMLElement | null = null;
  private shownPending: IPendingSettle | null = null;
  private autoplayLine = h('p', {
    className: 'jp-CIBench-autoplay-status',
    attrs: { role: 'status', 'aria-live': 'polite' }
  });
}

const RENDER_ON: ChangeKind[] = [
  'view',
  'attempt',
  'selected',
  'pending',
  'notebooks'
];

/** The bar's main action, and its focus key (kept across renders). */
function mark(btn: HTMLButtonElement, key: string): HTMLButtonElement {
  btn.setAttribute(KEY, key);
  btn.setAttribute('data-primary', '');
  return btn;
}
