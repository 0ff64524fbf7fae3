/**
 * A step's recorded turns, for debugging a player: the code that ran, and for
 * a model its prompt, raw reply, tokens, latency and retries.
 */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { ITurnDetail } from '../api';
import { badgeText } from '../grade';
import { stepLabel } from '../model';
import { h } from './dom';

/** "412 tokens (380 prompt + 32 reply) · 0.84 s · 1 retry". */
export function turnFacts(t: ITurnDetail): string {
  const facts: string[] = [];
  if (t.tokens?.total) {
    const parts =
      typeof t.tokens.prompt === 'number' &&
      typeof t.tokens.completion === 'number'
        ? ` (${t.tokens.prompt} prompt + ${t.tokens.completion} reply)`
        : '';
    facts.push(`${t.tokens.total} tokens${parts}`);
  }
  if (typeof t.latency_s === 'number') {
    facts.push(`${t.latency_s.toFixed(2)} s`);
  }
  if (t.retries) {
    facts.push(`${t.retries} retr${t.retries === 1 ? 'y' : 'ies'}`);
  }
  if (t.action && t.action !== 'code') {
    facts.push(`ran nothing (${t.action})`);
  }
  if (t.edited) {
    facts.push('code edited before it ran');
  }
  if (t.truncated) {
    facts.push('outputs cut: the kernel printed more than the server keeps');
  }
  if (t.malformed) {
    const s = t.malformed === 1 ? '' : 's';
    facts.push(`${t.malformed} malformed message${s} from the kernel ignored`);
  }
  return facts.join(' · ');
}

function block(label: string, text: string, cls: string): HTMLElement {
  return h(
    'details',
    { className: `jp-CIBench-turn-part ${cls}` },
    h('summary', { text: label }),
    h('pre', { text })
  );
}

function promptText(prompt: unknown[]): string {
  return prompt
    .map(m => {
      const msg = m as { role?: string; content?: unknown };
      const content =
        typeof msg.content === 'string'
          ? msg.content
          : JSON.stringify(msg.content ?? m, null, 1);
      return `── ${msg.role ?? 'message'} ──\n${content}`;
    })
    .join('\n\n');
}

/** One turn's details as DOM. */
export function turnNode(t: ITurnDetail): HTMLElement {
  const who = t.model ? ` · ${t.model}` : '';
  return h(
    'section',
    {
      className: 'jp-CIBench-turn',
      attrs: { 'data-turn': String(t.turn) }
    },
    h('h4', { text: `Turn ${t.turn + 1}${who}` }),
    h('p', { className: 'jp-CIBench-turn-facts', text: turnFacts(t) }),
    t.grade
      ? h('p', { className: 'jp-CIBench-turn-grade', text: badgeText(t.grade) })
      : null,
    t.prompt
      ? block(
          `Prompt (${t.prompt.length} messages)`,
          promptText(t.prompt),
          'jp-CIBench-turn-prompt'
        )
      : null,
    t.response !== undefined
      ? block('Raw reply', t.response, 'jp-CIBench-turn-response')
      : null,
    block('Code', t.code || '(none)', 'jp-CIBench-turn-code'),
    t.observation?.length
      ? block(
          'What the model was shown next',
          typeof t.observation === 'string'
            ? t.observation
            : promptText(t.observation),
          'jp-CIBench-turn-observation'
        )
      : null
  );
}

/** The turns of one step as DOM (the dialog's body). */
export function turnsNode(turns: ITurnDetail[], step: number): HTMLElement {
  return h(
    'div',
    { className: 'jp-CIBench-turns' },
    turns.length
      ? null
      : h('p', {
          className: 'jp-CIBench-empty',
          text: `${stepLabel(step)} has no recorded turns yet.`
        }),
    ...turns.map(turnNode)
  );
}

/** Show a step's turns in a dialog. */
export async function showTurns(
  turns: ITurnDetail[],
  step: number
): Promise<void> {
  const body = new Widget({ node: turnsNode(turns, step) });
  await showDialog({
    title: `${stepLabel(step)}: turns`,
    body,
    buttons: [Dialog.okButton({ label: 'Close' })]
  });
}
