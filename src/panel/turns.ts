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
import { trans } from '../i18n';

/** "412 tokens (380 prompt + 32 reply)", or nothing when the turn names no tokens. */
function tokenFacts(t: ITurnDetail): string[] {
  if (!t.tokens?.total) {
    return [];
  }
  const parts =
    typeof t.tokens.prompt === 'number' &&
    typeof t.tokens.completion === 'number'
      ? trans.__(
          ' (%1 prompt + %2 reply)',
          t.tokens.prompt,
          t.tokens.completion
        )
      : '';
  return [trans.__('%1 tokens%2', t.tokens.total, parts)];
}

/** "412 tokens (380 prompt + 32 reply) · 0.84 s · 1 retry". */
export function turnFacts(t: ITurnDetail): string {
  const facts = tokenFacts(t);
  if (typeof t.latency_s === 'number') {
    facts.push(trans.__('%1 s', t.latency_s.toFixed(2)));
  }
  if (t.retries) {
    facts.push(trans._n('%1 retry', '%1 retries', t.retries));
  }
  if (t.action && t.action !== 'code') {
    facts.push(trans.__('ran nothing (%1)', t.action));
  }
  if (t.edited) {
    facts.push(trans.__('code edited before it ran'));
  }
  if (t.truncated) {
    facts.push(
      trans.__('outputs cut: the kernel printed more than the server keeps')
    );
  }
  if (t.malformed) {
    facts.push(
      trans._n(
        '%1 malformed message from the kernel ignored',
        '%1 malformed messages from the kernel ignored',
        t.malformed
      )
    );
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

/** The prompt a turn sent, folded. */
function promptBlock(prompt: NonNullable<ITurnDetail['prompt']>): HTMLElement {
  return block(
    trans._n('Prompt (%1 message)', 'Prompt (%1 messages)', prompt.length),
    promptText(prompt),
    'jp-CIBench-turn-prompt'
  );
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
    h('h4', { text: trans.__('Turn %1%2', t.turn + 1, who) }),
    h('p', { className: 'jp-CIBench-turn-facts', text: turnFacts(t) }),
    t.grade
      ? h('p', { className: 'jp-CIBench-turn-grade', text: badgeText(t.grade) })
      : null,
    t.prompt ? promptBlock(t.prompt) : null,
    t.response !== undefined
      ? block(trans.__('Raw reply'), t.response, 'jp-CIBench-turn-response')
      : null,
    block(
      trans.__('Code'),
      t.code || trans.__('(none)'),
      'jp-CIBench-turn-code'
    ),
    t.observation?.length
      ? block(
          trans.__('What the model was shown next'),
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
          text: trans.__('%1 has no recorded turns yet.', stepLabel(step))
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
    title: trans.__('%1: turns', stepLabel(step)),
    body,
    buttons: [Dialog.okButton({ label: trans.__('Close') })]
  });
}
