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
      text: 'Back to the class',
      attrs: { type: 'button' },
      onClick: back
    }),
    h('h3', { text: title }),
    h('p', {
      text: `${record.status} · step ${record.current_step + 1} of ${record.n_steps} · ${modeLabel(record.mode)} · ${playedBy(record)} · started ${when(record.created_at)}`
    }),
    ...record.steps.map(step => stepView(record, step, markdown))
  );
}

/** Who played: the member (a person), else the player as the panel names it. */
function playedBy(record: IMemberAttempt): string {
  return record.player === 'human'
    ? `played by ${record.participant}`
    : `player: ${playerLabel(record.player)}`;
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
      text: `Step ${step.index + 1} (${step.kind}): ${outcome}`
    }),
    markdown.render(record.id, step.index, step.instruction),
    h('p', {
      className: 'jp-CIBench-memberGrade',
      text: `kept grade: ${kept} · working time ${formatSeconds(step.working_seconds)} · opened ${when(step.opened_at)}${step.settled_at ? ` · settled ${when(step.settled_at)}` : ''}`
    }),
    step.note
      ? h('p', {
          className: 'jp-CIBench-memberNote',
          text: `note: ${step.note}`
        })
      : null,
    turnsView(step)
  );
}

/** The step's turns; "No turn yet." while it is open without one (a settled one's heading says "no run"). */
function turnsView(step: IMemberStep): HTMLElement | null {
  if (!step.turns.length) {
    return step.settled_at ? null : h('p', { text: 'No turn yet.' });
  }
  return h(
    'ol',
    {
      className: 'jp-CIBench-memberTurns',
      attrs: { 'aria-label': `Step ${step.index + 1}'s turns` }
    },
    ...step.turns.map(turnView)
  );
}

function turnView(turn: IMemberTurn): HTMLElement {
  return h(
    'li',
    {
      className: 'jp-CIBench-memberTurn',
      attrs: { 'data-turn': String(turn.turn) }
    },
    h('div', {
      className: 'jp-CIBench-memberTurnHead',
      text: `turn ${turn.turn + 1} · ${turn.grade ? keptGradeText(turn.grade) : DASH}${turn.error ? ' · error' : ''} · ran ${when(turn.started_at)}`
    }),
    h(
      'pre',
      { className: 'jp-CIBench-memberCode', attrs: { 'aria-label': 'code' } },
      h('code', { text: turn.code })
    ),
    turn.output
      ? h('pre', {
          className: 'jp-CIBench-memberOutput',
          text: turn.output,
          attrs: { 'aria-label': 'output' }
        })
      : null,
    turn.image
      ? h('img', {
          className: 'jp-CIBench-memberImage',
          attrs: {
            src: `data:image/png;base64,${turn.image}`,
            alt: `turn ${turn.turn + 1}'s figure`
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
