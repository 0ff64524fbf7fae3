/**
 * An attached player (a model, or a replay of a recorded model run) playing
 * in the live notebook: a thin "ask what next → do it → report" cycle over the
 * server's step driver. `propose`: ask for the player's turn; `run`: put its
 * code in the step's answer cell, run it on the notebook's kernel and report
 * the run (graded by the server like a person's); after a settle, whatever the
 * answer says next (the oracle's reference). Every decision — another turn,
 * settling, turn limits — is in the server's answers. Play step / Play all / Stop.
 */
import { CodeCell } from '@jupyterlab/cells';

import { CIBenchApi, IAttemptView, INextAction, IProposal } from '../api';
import { CIBenchModel, playerLabel } from '../model';
import { BadgeState, showBadge } from './badge';
import { findCell } from './cells';
import { applyNext, openCurrentStep, runTurn } from './play';
import { AttemptSession } from './session';
import { trans } from '../i18n';

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

  /** Play until the open step settles (`all`: until the server says done). */
  async play(session: AttemptSession, all: boolean): Promise<void> {
    const id = session.id;
    if (this.active.has(id)) {
      return;
    }
    this.active.add(id);
    this.stopped.delete(id);
    try {
      await this.follow(session, session.view.next, all);
    } catch (err) {
      if (!this.stopped.has(id)) {
        throw err;
      } // else: the cancelled request's refusal
    } finally {
      this.active.delete(id);
      this.status(session, this.stopped.has(id) ? trans.__('Stopped.') : '');
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
      running
        ? trans.__("Stopping: interrupting the player's code…")
        : trans.__('Stopping…')
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

  /** Do what the server says next until it waits for a person, is done, or we stop. */
  private async follow(
    session: AttemptSession,
    first: INextAction,
    all: boolean
  ): Promise<void> {
    let next = first;
    while (!this.stopped.has(session.id)) {
      const answer =
        next.do === 'propose'
          ? await this.propose(session, next)
          : next.do === 'run'
            ? await this.run(session, next)
            : null; // wait, done (a reference comes with the settle below)
      if (!answer) {
        return;
      }
      next = answer.next;
      if (answer.settled) {
        next = await applyNext(session, next);
        this.host.afterSettle(session.view);
        if (!all) {
          return;
        }
      }
    }
  }

  /** Ask the player for its turn; a reply that ran nothing gets a note badge. */
  private async propose(
    session: AttemptSession,
    next: INextAction
  ): Promise<IProposal | null> {
    const step = next.step ?? session.view.current_step;
    this.status(
      session,
      trans.__(
        'Step %1: waiting for %2…',
        step + 1,
        playerLabel(session.view.player)
      )
    );
    const proposal = await this.host.api.propose(session.id, step);
    this.update(session, proposal.attempt);
    if (this.stopped.has(session.id) && proposal.next.do === 'run') {
      return null; // asked again later, the server hands out the same code
    }
    if (proposal.next.do !== 'run') {
      const cell = answerCell(session, step);
      if (cell) {
        showBadge(cell, ranNothing(proposal), step);
      }
    }
    this.facts = requestFacts(proposal);
    return proposal;
  }

  /** Run the player's code as the step's turn and report it. */
  private async run(
    session: AttemptSession,
    next: INextAction
  ): Promise<{ next: INextAction; settled: unknown } | null> {
    const step = next.step ?? session.view.current_step;
    const cell = answerCell(session, step);
    if (!cell) {
      throw new Error(trans.__('step %1 has no answer cell', step + 1));
    }
    cell.model.sharedModel.setSource(next.code ?? '');
    const who = playerLabel(session.view.player);
    const turn = (next.turn ?? 0) + 1;
    this.status(
      session,
      trans.__(
        "Step %1, turn %2: running %3's code…%4",
        step + 1,
        turn,
        who,
        this.facts
      )
    );
    this.running.add(session.id);
    const result = await runTurn(session, cell, this.host.api).finally(() =>
      this.running.delete(session.id)
    );
    if (!result) {
      throw new Error(
        trans.__('the run of step %1 could not be reported', step + 1)
      );
    }
    this.update(session, result.attempt);
    return result;
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

  private facts = ''; // the last proposal's tokens and seconds, for the status line
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
    facts.push(trans.__('%1 tokens', p.tokens));
  }
  if (typeof p.latency_s === 'number') {
    facts.push(trans.__('%1 s', p.latency_s.toFixed(2)));
  }
  return facts.length ? ` (${facts.join(', ')})` : '';
}

function ranNothingWords(): { [action: string]: string } {
  return {
    empty: trans.__('the reply called the interpreter without code'),
    no_action: trans.__('the reply had no interpreter call'),
    invalid: trans.__('the reply was not in the expected format'),
    finish: trans.__('the reply gave a final answer without code'),
    give_up: trans.__('the recording has no more turns for this step')
  };
}

/** The badge of a reply that ran no code (a failed turn, recorded by the server). */
function ranNothing(p: IProposal): BadgeState {
  const what = ranNothingWords()[p.action] ?? p.action;
  return { kind: 'note', message: trans.__('turn %1: %2', p.turn + 1, what) };
}
