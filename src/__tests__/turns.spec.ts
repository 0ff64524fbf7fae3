import { ITurnDetail } from '../api';
import { turnFacts, turnsNode } from '../panel/turns';
import { grade, turnDetail } from './fixtures';

const MODEL_TURN: ITurnDetail = {
  step: 2,
  turn: 0,
  code: 'print(df.shape[0])',
  outputs: [],
  error: false,
  started_at: '2026-11-29T21:00:00Z',
  finished_at: '2026-11-29T21:00:01Z',
  grade: grade({ kind: 'num', detail: 'number matched' }),
  action: 'code',
  model: 'qwen',
  prompt: [
    { role: 'system', content: 'You are an assistant.' },
    { role: 'user', content: 'How many rows?' }
  ],
  response: 'Thought: count\nAction: IPythonInterpreter',
  tokens: { prompt: 380, completion: 32, total: 412 },
  latency_s: 0.8412,
  retries: 1,
  observation: [{ role: 'system', content: 'Response:4\n' }]
};

describe('turn details', () => {
  it('says tokens, latency, retries and what ran', () => {
    expect(turnFacts(MODEL_TURN)).toBe(
      '412 tokens (380 prompt + 32 reply) · 0.84 s · 1 retry'
    );
    expect(
      turnFacts({
        ...MODEL_TURN,
        action: 'no_action',
        retries: 2,
        edited: true
      })
    ).toBe(
      '412 tokens (380 prompt + 32 reply) · 0.84 s · 2 retries · ran nothing (no_action) · code edited before it ran'
    );
  });

  it('says when outputs were cut, and reads token counts the server left null', () => {
    expect(
      turnFacts({
        ...MODEL_TURN,
        tokens: { prompt: null, completion: null, total: 412 },
        retries: 0,
        truncated: true
      })
    ).toBe(
      '412 tokens · 0.84 s · outputs cut: the kernel printed more than the server keeps'
    );
  });

  it('says how many malformed messages from the kernel were ignored', () => {
    const person = { ...MODEL_TURN, tokens: undefined, latency_s: undefined };
    expect(turnFacts({ ...person, retries: 0, malformed: 2 })).toBe(
      '2 malformed messages from the kernel ignored'
    );
    expect(turnFacts({ ...person, retries: 0, malformed: 1 })).toBe(
      '1 malformed message from the kernel ignored'
    );
  });

  it('shows prompt, raw reply and code of each turn', () => {
    const node = turnsNode([MODEL_TURN, { ...MODEL_TURN, turn: 1 }], 2);
    const turns = node.querySelectorAll('.jp-CIBench-turn');
    expect(turns).toHaveLength(2);
    expect(turns[0].querySelector('h4')?.textContent).toBe('Turn 1 · qwen');
    const prompt = turns[0].querySelector('.jp-CIBench-turn-prompt')!;
    expect(prompt.querySelector('summary')?.textContent).toBe(
      'Prompt (2 messages)'
    );
    expect(prompt.querySelector('pre')?.textContent).toContain(
      '── user ──\nHow many rows?'
    );
    expect(
      turns[0].querySelector('.jp-CIBench-turn-response pre')?.textContent
    ).toBe(MODEL_TURN.response);
    expect(
      turns[0].querySelector('.jp-CIBench-turn-code pre')?.textContent
    ).toBe(MODEL_TURN.code);
    expect(
      turns[0].querySelector('.jp-CIBench-turn-observation pre')?.textContent
    ).toBe('── system ──\nResponse:4\n');
    expect(turns[0].querySelector('.jp-CIBench-turn-grade')?.textContent).toBe(
      'number matched'
    );
  });

  it("shows a Qwen ReAct turn's observation text as it is", () => {
    const qwen = { ...MODEL_TURN, observation: 'stdout:\n```\n4\n```' };
    const node = turnsNode([qwen], 2);
    expect(
      node.querySelector('.jp-CIBench-turn-observation pre')?.textContent
    ).toBe('stdout:\n```\n4\n```');
  });

  it('says when a step has no turns, and a person turn has no prompt', () => {
    expect(turnsNode([], 0).textContent).toContain(
      'Step 1 has no recorded turns yet.'
    );
    const person = turnDetail(0, 0, 'x = 1', {
      started_at: '',
      finished_at: ''
    });
    const node = turnsNode([person], 0);
    expect(node.querySelector('.jp-CIBench-turn-prompt')).toBeNull();
    expect(node.querySelector('.jp-CIBench-turn-facts')?.textContent).toBe('');
  });
});
