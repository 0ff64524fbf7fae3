/**
 * A member's attempt, drilled down from the class table: each opened step's
 * instruction (its markdown rendered), outcome (the panel's words), kept
 * grade, working time and note, and its turns with their code, the outputs
 * the kernel published, the grade as of each turn and when it ran. No
 * reference material (the server sends none).
 */
import { outcomeText, ranNothing, stepOutcomeText } from '../grade';
import { modeLabel, playerLabel } from '../model';
import { h } from '../panel/dom';
import { DASH, formatSeconds, keptGradeText } from '../panel/words';
import type { IMemberAttempt, IMemberStep, IMemberTurn } from './api';
import { InstructionMarkdown } from './markdown';
import { statusWord } from './table';
import { trans } from '../i18n';

/**
 * The attempt's record, with a button back to the table; `markdown` renders
 * the instructions (plain text without a rendermime registry).
 */
export function memberAttemptView(
  record: IMemberAttempt,
  back: () => void,
  markdown: InstructionMarkdown = new InstructionMarkdown(null)
): HTMLElement {
  const title = `${record.participant}: ${record.title}`;
  return h(
    'section',
    {
      className: 'jp-CIBench-memberAttempt',
      attrs: { 'aria-label': title, 'data-attempt': record.id }
    },
    h('button', {
      className: 'jp-CIBench-button jp-CIBench-classBack',
      text: trans.__('Back to the class'),
      attrs: { type: 'button' },
      onClick: back
    }),
    h('h3', { text: title }),
    h('p', {
      text: trans.__(
        '%1 · step %2 of %3 · %4 · %5 · started %6',
        statusWord(record.status),
        record.current_step + 1,
        record.n_steps,
        modeLabel(record.mode),
        playedBy(record),
        when(record.created_at)
      )
    }),
    ...record.steps.map(step => stepView(record, step, markdown))
  );
}

/** Who played: the member (a person), else the player as the panel names it. */
function playedBy(record: IMemberAttempt): string {
  return record.player === 'human'
    ? trans.__('played by %1', record.participant)
    : trans.__('player: %1', playerLabel(record.player));
}

/**
 * How a step settled, as the student's panel said it ("gave up · no run" for
 * a step settled without a run), and whether it ran nothing.
 */
function stepOutcome(
  record: IMemberAttempt,
  step: IMemberStep
): { outcome: string; unrun: boolean } {
  const settled = step.settled_at !== null;
  const run = { outcome: step.outcome, settled, turns: step.turns.length };
  const unrun = ranNothing({ ...run, grade: null }) !== null;
  const outcome = unrun
    ? stepOutcomeText({ ...run, grade: null }, record.turn_cap)
    : outcomeText(step.outcome, settled, record.turn_cap);
  return { outcome, unrun };
}

function stepView(
  record: IMemberAttempt,
  step: IMemberStep,
  markdown: InstructionMarkdown
): HTMLElement {
  const { outcome, unrun } = stepOutcome(record, step);
  const kept = step.settled_at && !unrun ? keptGradeText(step.grade) : DASH;
  return h(
    'section',
    {
      className: 'jp-CIBench-memberStep',
      attrs: { 'data-step': String(step.index) }
    },
    h('h4', {
      className: 'jp-CIBench-memberOutcome',
      text: trans.__('Step %1 (%2): %3', step.index + 1, step.kind, outcome)
    }),
    markdown.render(record.id, step.index, step.instruction),
    h('p', {
      className: 'jp-CIBench-memberGrade',
      text: trans.__(
        'kept grade: %1 · working time %2 · opened %3%4',
        kept,
        formatSeconds(step.working_seconds),
        when(step.opened_at),
        step.settled_at ? trans.__(' · settled %1', when(step.settled_at)) : ''
      )
    }),
    step.note
      ? h('p', {
          className: 'jp-CIBench-memberNote',
          text: trans.__('note: %1', step.note)
        })
      : null,
    turnsView(step)
  );
}

/** The step's turns; "No turn yet." while it is open without one (a settled one's heading says "no run"). */
function turnsView(step: IMemberStep): HTMLElement | null {
  if (!step.turns.length) {
    return step.settled_at ? null : h('p', { text: trans.__('No turn yet.') });
  }
  return h(
    'ol',
    {
      className: 'jp-CIBench-memberTurns',
      attrs: { 'aria-label': trans.__("Step %1's turns", step.index + 1) }
    },
    ...step.turns.map(turnView)
  );
}

/** "turn 2 · passed · 1.00 · error · ran 10:04": a turn's head line. */
function turnHead(turn: IMemberTurn): string {
  return trans.__(
    'turn %1 · %2%3 · ran %4',
    turn.turn + 1,
    turn.grade ? keptGradeText(turn.grade) : DASH,
    turn.error ? trans.__(' · error') : '',
    when(turn.started_at)
  );
}

function turnView(turn: IMemberTurn): HTMLElement {
  return h(
    'li',
    {
      className: 'jp-CIBench-memberTurn',
      attrs: { 'data-turn': String(turn.turn) }
    },
    h('div', { className: 'jp-CIBench-memberTurnHead', text: turnHead(turn) }),
    h(
      'pre',
      {
        className: 'jp-CIBench-memberCode',
        attrs: { 'aria-label': trans.__('code') }
      },
      h('code', { text: turn.code })
    ),
    turn.output
      ? h('pre', {
          className: 'jp-CIBench-memberOutput',
          text: turn.output,
          attrs: { 'aria-label': trans.__('output') }
        })
      : null,
    turn.image
      ? h('img', {
          className: 'jp-CIBench-memberImage',
          attrs: {
            src: `data:image/png;base64,${turn.image}`,
            alt: trans.__("turn %1's figure", turn.turn + 1)
          }
        })
      : null
  );
}

/** A stored time (ISO, UTC) in the browser's local time. */
function when(iso: string): string {
  const at = new Date(iso);
  return isNaN(at.getTime()) ? iso : at.toLocaleTimeString();
}
