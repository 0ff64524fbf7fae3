import { IProposal } from '../api';
import { requestFacts } from '../notebook/autoplay';
import { attemptView } from './fixtures';

function proposal(over: Partial<IProposal>): IProposal {
  return {
    step: 0,
    turn: 0,
    action: 'code',
    code: 'x = 1',
    tokens: null,
    latency_s: null,
    recorded: false,
    grade: null,
    settled: null,
    next: { do: 'run', step: 0, turn: 0, code: 'x = 1' },
    attempt: attemptView(),
    ...over
  };
}

describe('requestFacts', () => {
  it("says a model request's tokens and seconds", () => {
    expect(requestFacts(proposal({ tokens: 439, latency_s: 0.8412 }))).toBe(
      ' (439 tokens, 0.84 s)'
    );
  });

  it('says nothing for a replay', () => {
    expect(requestFacts(proposal({}))).toBe('');
  });
});
