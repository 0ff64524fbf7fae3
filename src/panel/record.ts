/**
 * The participant record in the panel: the working clock's Pause / Resume
 * button and its state in words (action bar), and the person's note on the
 * open step — a labelled text box saved while they type and when they leave
 * it (attempt view); settled steps show theirs read-only (steps.ts).
 */
import { IAttemptView, IStepView } from '../api';
import { messageOf, stepLabel } from '../model';
import { IRecordActions } from './actions';
import { button, h } from './dom';
import { trans } from '../i18n';

/** The server's limit on a note (record/activity.py, NOTE_MAX). */
export const NOTE_MAX = 10_000;
/** A note is saved this long after the last keystroke (and at once when the box loses the focus). */
export const NOTE_SAVE_MS = 1_000;

/** The working clock's state in words. */
export function clockText(view: IAttemptView): string {
  return view.paused
    ? trans.__(
        'Clock paused: this time does not count. Resume, edit or run a cell to go on.'
      )
    : trans.__('Clock running');
}

/** Pause or Resume (by its state) and the clock's state, for a person's open attempt. */
export function clockControls(
  view: IAttemptView,
  record: IRecordActions
): HTMLElement[] {
  const paused = !!view.paused;
  const toggle = button(
    paused ? trans.__('Resume') : trans.__('Pause'),
    paused ? 'jp-CIBench-resume' : 'jp-CIBench-pause',
    () => void (paused ? record.resume('button') : record.pause('button')),
    paused
      ? trans.__('Resume the working clock')
      : trans.__('Pause the working clock: time away does not count')
  );
  toggle.setAttribute('data-focus-key', 'clock'); // kept across the bar's renders
  const state = h(
    'span',
    {
      className: `jp-CIBench-clock${paused ? ' jp-CIBench-clock-paused' : ''}`,
      attrs: { role: 'status' }
    },
    clockText(view)
  );
  return [toggle, state];
}

/** A settled step's note, read-only (null without one). */
export function settledNote(step: IStepView): HTMLElement | null {
  return step.settled && step.note
    ? h('p', {
        className: 'jp-CIBench-step-note',
        text: trans.__('Note: %1', step.note)
      })
    : null;
}

/** What the note box says of its text: saved, saving, too long, or why it was not saved. */
export function noteStatus(
  length: number,
  state: 'saved' | 'saving' | 'edited' | 'failed',
  reason = ''
): string {
  if (length > NOTE_MAX) {
    return trans.__(
      'Too long to save: %1 of at most %2 characters.',
      length,
      NOTE_MAX
    );
  }
  switch (state) {
    case 'saving':
      return trans.__('Saving…');
    case 'failed':
      return trans.__('Not saved: %1', reason);
    case 'edited':
      return trans.__('Not saved yet');
    default:
      return length ? trans.__('Saved') : '';
  }
}

/** The person's note on one step of an attempt: a labelled text box that saves itself. */
export class NoteBox {
  constructor(
    readonly attemptId: string,
    readonly step: number,
    initial: string | null,
    private record: IRecordActions
  ) {
    const id = `jp-CIBench-note-${attemptId}-${step}`;
    this.saved = initial ?? '';
    this.area = h('textarea', {
      className: 'jp-CIBench-note-text',
      attrs: { id, rows: '3', 'aria-describedby': `${id}-status` }
    });
    this.area.value = this.saved;
    this.status = h('p', {
      className: 'jp-CIBench-note-status',
      attrs: { id: `${id}-status`, 'aria-live': 'polite' }
    });
    this.node = h(
      'div',
      { className: 'jp-CIBench-note', attrs: { 'data-step': String(step) } },
      h('label', {
        className: 'jp-CIBench-note-label',
        text: trans.__('Note on %1', stepLabel(step)),
        attrs: { for: id }
      }),
      this.area,
      this.status
    );
    this.area.addEventListener('input', () => this.edited());
    this.area.addEventListener('blur', () => void this.flush());
    this.say(noteStatus(this.saved.length, 'saved'));
  }

  readonly node: HTMLElement;

  /** Save what is typed now (when it changed). */
  async flush(): Promise<void> {
    this.clearTimer();
    const text = this.area.value;
    if (text === this.saved || text === this.sending) {
      return;
    }
    if (text.length > NOTE_MAX) {
      this.say(noteStatus(text.length, 'failed'), true);
      return;
    }
    this.sending = text;
    this.say(noteStatus(text.length, 'saving'));
    try {
      await this.record.saveNote(this.attemptId, this.step, text);
      this.saved = text;
      const now = this.area.value;
      this.say(noteStatus(now.length, now === text ? 'saved' : 'edited'));
    } catch (err) {
      this.say(noteStatus(text.length, 'failed', messageOf(err)), true);
    } finally {
      this.sending = null;
    }
  }

  /** Leaving the step: save what is left. */
  dispose(): void {
    void this.flush();
  }

  private edited(): void {
    const length = this.area.value.length;
    this.clearTimer();
    if (length > NOTE_MAX) {
      this.say(noteStatus(length, 'edited'), true);
      return;
    }
    this.say(noteStatus(length, 'edited'));
    this.timer = setTimeout(() => void this.flush(), NOTE_SAVE_MS);
  }

  private say(text: string, alert = false): void {
    this.status.textContent = text;
    this.status.classList.toggle('jp-CIBench-note-error', alert);
    this.area.setAttribute('aria-invalid', String(alert));
  }

  private clearTimer(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  private area: HTMLTextAreaElement;
  private status: HTMLElement;
  private saved: string;
  private sending: string | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
}
