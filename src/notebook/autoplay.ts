/**
 * An attached player (a model, or a replay of a recorded model run) playing
 * in the live notebook: the server proposes each turn's code, which is put in
 * the step's answer cell and run on the notebook's kernel; the run is graded
 * by the server like a person's. Play step / Play all / Stop.
 */
import { CodeCell } from '@jupyterlab/cells';

import { CIBenchApi, IAttemptView, IProposal, ISettled } from '../api';
import { CIBenchModel, playerLabel } from '../model';
import { BadgeState, showBadge } from './badge';
import { findCell } from './cells';
import { applySettled, openCurrentStep, runTurn } from './play';
import { AttemptSession } from './session';

/** What the autoplayer needs of the attempt controller. */
export interface IAutoplayHost {
  api: CIBenchApi;
  model: CIBenchModel;
  /** Update the panel with a newer attempt view. */
  show(view: IAttemptView): void;
  /** After a step settled (the attempt may be done). */
  afterSettle(view: IAttemptView): void;
}

export class Autoplayer {
  constructor(private host: IAutoplayHost) {}

  /** Play the open step to its end (`all`: every remaining step). */
  async play(session: AttemptSession, all: boolean): Promise<void> {
    const id = session.id;
    if (this.active.has(id)) {
      return;
    }
    this.active.add(id);
    this.stopped.delete(id);
    try {
      do {
        await this.playStep(session);
      } while (all && this.goesOn(session));
    } catch (err) {
      if (!this.stopped.has(id)) {
        throw err;
      } // else: the cancelled request's refusal
    } finally {
      this.active.delete(id);
      this.status(session, this.stopped.has(id) ? 'Stopped.' : '');
    }
  }

  /** Stop after the turn in flight; cancel a request the server is waiting on. */
  async stop(session: AttemptSession): Promise<void> {
    if (!this.active.has(session.id)) {
      return;
    }
    this.stopped.add(session.id);
    const running = this.running.has(session.id);
    this.status(
      session,
      running ? "Stopping: interrupting the player's code…" : 'Stopping…'
    );
    try {
      if (running) {
        // the run ends with KeyboardInterrupt and is recorded as a failed turn
        await session.sessionContext.session?.kernel?.interrupt();
      } else {
        await this.host.api.stop(session.id);
      }
    } catch (err) {
      console.warn('cibench-lab: stop failed', err);
    }
  }

  private goesOn(session: AttemptSession): boolean {
    return session.view.status === 'open' && !this.stopped.has(session.id);
  }

  private async playStep(session: AttemptSession): Promise<void> {
    const step = session.view.current_step;
    while (this.goesOn(session) && session.view.current_step === step) {
      const settled = await this.turn(session);
      if (settled) {
        await applySettled(session, settled);
        this.host.afterSettle(session.view);
        return;
      }
    }
  }

  /** One turn: ask the player, run its code in the cell; the step's settle, if any. */
  private async turn(session: AttemptSession): Promise<ISettled | null> {
    const view = session.view;
    const step = view.current_step;
    const who = playerLabel(view.player);
    this.status(session, `Step ${step + 1}: waiting for ${who}…`);
    const proposal = await this.host.api.propose(view.id, step);
    this.update(session, proposal.attempt);
    if (this.stopped.has(session.id) && proposal.action === 'code') {
      return null; // asked again later, the server hands out the same code
    }
    const cell = answerCell(session, step);
    if (proposal.action !== 'code') {
      if (cell) {
        showBadge(cell, ranNothing(proposal), step);
      }
      return proposal.settled;
    }
    if (!cell) {
      throw new Error(`step ${step + 1} has no answer cell`);
    }
    cell.model.sharedModel.setSource(proposal.code ?? '');
    this.status(
      session,
      `Step ${step + 1}, turn ${proposal.turn + 1}: running ${who}'s code…${requestFacts(proposal)}`
    );
    this.running.add(session.id);
    const result = await runTurn(session, cell, this.host.api).finally(() =>
      this.running.delete(session.id)
    );
    if (!result) {
      throw new Error(`the run of step ${step + 1} could not be reported`);
    }
    this.update(session, result.attempt);
    return result.settled;
  }

  private update(session: AttemptSession, view: IAttemptView): void {
    session.view = view;
    this.host.show(view);
  }

  /** Tell the panel what the player does, if it shows this attempt. */
  private status(session: AttemptSession, text: string): void {
    if (this.host.model.attempt?.id === session.id) {
      this.host.model.autoplay = {
        id: session.id,
        playing: this.active.has(session.id),
        status: text
      };
    }
  }

  private active = new Set<string>();
  private stopped = new Set<string>();
  private running = new Set<string>(); // the player's code is running in the kernel
}

/** The open step's answer cell (created if the notebook lacks it). */
function answerCell(session: AttemptSession, step: number): CodeCell | null {
  let cell = findCell(session.notebook, 'answer', step);
  if (!cell) {
    openCurrentStep(session);
    cell = findCell(session.notebook, 'answer', step);
  }
  return cell instanceof CodeCell ? cell : null;
}

/** " (439 tokens, 0.84 s)" for a model's reply; '' for a replay. */
export function requestFacts(p: IProposal): string {
  const facts: string[] = [];
  if (p.tokens) {
    facts.push(`${p.tokens} tokens`);
  }
  if (typeof p.latency_s === 'number') {
    facts.push(`${p.latency_s.toFixed(2)} s`);
  }
  return facts.length ? ` (${facts.join(', ')})` : '';
}

const RAN_NOTHING: { [action: string]: string } = {
  empty: 'the reply called the interpreter without code',
  no_action: 'the reply had no interpreter call',
  invalid: 'the reply was not in the expected format',
  finish: 'the reply gave a final answer without code',
  give_up: 'the recording has no more turns for this step'
};

/** The badge of a reply that ran no code (a failed turn, recorded by the server). */
function ranNothing(p: IProposal): BadgeState {
  const what = RAN_NOTHING[p.action] ?? p.action;
  return { kind: 'note', message: `turn ${p.turn + 1}: ${what}` };
}
