import type {
  IClassAttempt,
  IClassProgress,
  IMemberAttempt
} from '../class/api';
import {
  RenderMimeRegistry,
  standardRendererFactories
} from '@jupyterlab/rendermime';

import { memberAttemptView } from '../class/attempt';
import { passRateChart, RATE_LEGEND, rateText } from '../class/chart';
import { InstructionMarkdown } from '../class/markdown';
import {
  cellText,
  classTable,
  filterNote,
  latestCells,
  tableNote
} from '../class/table';

const TASK = 'cibench_template/pandas/leak_probe';

function attempt(over: Partial<IClassAttempt> = {}): IClassAttempt {
  return {
    participant: 'ada',
    task_id: TASK,
    title: 'Leak probe',
    attempt_id: 'a'.repeat(32),
    status: 'open',
    current_step: 2,
    n_steps: 4,
    step_seconds: 65,
    passed: 2,
    settled: 2,
    not_graded: 0,
    score: 100,
    created_at: '2026-01-01T10:00:00Z',
    ...over
  };
}

function progress(attempts: IClassAttempt[]): IClassProgress {
  return {
    name: 'demo',
    members: ['ada', 'bob'],
    profile: 'cibench',
    tasks: [{ task_id: TASK, title: 'Leak probe' }],
    attempts,
    pass_rates: [
      {
        task_id: TASK,
        step: 0,
        reached: 2,
        settled: 2,
        passed: 2,
        not_graded: 0
      },
      {
        task_id: TASK,
        step: 1,
        reached: 2,
        settled: 2,
        passed: 1,
        not_graded: 0
      }
    ]
  };
}

describe('the class table', () => {
  it('keeps the newest attempt of each member and task and counts the others', () => {
    const newest = attempt();
    const older = attempt({ attempt_id: 'b'.repeat(32), status: 'quit' });
    const cells = latestCells(progress([newest, older]));
    expect(cells.get(`ada\t${TASK}`)).toEqual({ attempt: newest, count: 2 });
    expect(cells.has(`bob\t${TASK}`)).toBe(false);
  });

  it('says where an attempt stands and how many of the steps settled passed', () => {
    expect(cellText(attempt())).toBe(
      'step 3 of 4 · 1m 05s · 2 of 2 settled passed'
    );
    const done = { status: 'done', passed: 3, settled: 4, score: 75 } as const;
    expect(cellText(attempt(done))).toBe(
      'done (4 steps) · – · 3 of 4 settled passed'
    );
    const first = { current_step: 0, passed: 0, settled: 0, score: null };
    expect(cellText(attempt(first))).toBe(
      'step 1 of 4 · 1m 05s · none settled yet'
    );
    const qwen = { n_steps: 1, passed: 0, settled: 0, not_graded: 1 };
    expect(cellText(attempt({ ...qwen, status: 'done', score: null }))).toBe(
      'done (1 step) · – · not graded'
    );
    const some = { passed: 1, settled: 1, not_graded: 1, score: 100 };
    expect(cellText(attempt(some))).toBe(
      'step 3 of 4 · 1m 05s · 1 of 1 settled passed · 1 not graded'
    );
    expect(cellText(undefined)).toBe('not started');
  });

  it('says so when the filters leave no participant', () => {
    const data = progress([attempt()]);
    expect(filterNote(data, { task: null, status: null })).toBeNull();
    expect(filterNote(data, { task: null, status: 'open' })).toBeNull();
    expect(filterNote(data, { task: null, status: 'done' })!.textContent).toBe(
      'No participant has a cell that is done. Choose Any status to see everyone.'
    );
    expect(filterNote(data, { task: TASK, status: 'quit' })!.textContent).toBe(
      'No participant has a cell that is quit in Leak probe. Choose Any status to see everyone.'
    );
    const none = { ...progress([]), members: [] };
    expect(filterNote(none, { task: null, status: 'done' })).toBeNull(); // tableNote says it
  });

  it('filters members by the status of their cells and opens a cell on click', () => {
    const opened: string[] = [];
    const data = progress([attempt()]);
    const all = classTable(data, { task: null, status: null }, a =>
      opened.push(a.attempt_id)
    );
    expect(all.querySelectorAll('tbody tr')).toHaveLength(2);
    all.querySelector<HTMLButtonElement>('button[data-attempt]')!.click();
    expect(opened).toEqual(['a'.repeat(32)]);
    const idle = classTable(data, { task: null, status: 'none' }, () => {});
    expect(
      Array.from(idle.querySelectorAll('tbody tr')).map(r =>
        r.getAttribute('data-member')
      )
    ).toEqual(['bob']);
  });

  it('lists every participant before anyone attempted a task', () => {
    const none = { ...progress([]), tasks: [], pass_rates: [] };
    const members = (filters: { status: string | null }) =>
      Array.from(
        classTable(none, { task: null, ...filters }, () => {}).querySelectorAll(
          'tbody tr'
        ),
        r => r.getAttribute('data-member')
      );
    expect(members({ status: null })).toEqual(['ada', 'bob']);
    expect(members({ status: 'none' })).toEqual(['ada', 'bob']); // not started
    expect(members({ status: 'open' })).toEqual([]);
    expect(tableNote(none)!.textContent).toMatch(/^No attempts yet/);
    expect(tableNote(progress([attempt()]))).toBeNull();
    expect(tableNote({ ...none, members: [] })!.textContent).toBe(
      'This class has no participants yet.'
    );
  });
});

describe('the pass-rate chart', () => {
  it('draws a bar per step and says each rate in words', () => {
    const chart = passRateChart(progress([attempt()]), null);
    const bars = chart.querySelectorAll('rect.jp-CIBench-chartBar');
    expect(bars).toHaveLength(2);
    expect(Number(bars[1].getAttribute('width'))).toBe(100); // half of 200
    expect(chart.querySelector('.jp-CIBench-srOnly')!.textContent).toBe(
      'Leak probe: step 1: 2 of 2 who settled it passed (100%); ' +
        'step 2: 1 of 2 who settled it passed (50%)'
    );
    expect(chart.querySelector('figcaption')!.textContent).toContain(
      RATE_LEGEND
    );
  });

  it('counts a step someone is still on as neither passed nor missed', () => {
    const on = {
      task_id: TASK,
      step: 2,
      reached: 1,
      settled: 0,
      passed: 0,
      not_graded: 0
    };
    expect(rateText(on)).toBe('step 3: nobody settled it yet · 1 still on it');
    const some = { ...on, reached: 3, settled: 2, passed: 1 };
    expect(rateText(some)).toBe(
      'step 3: 1 of 2 who settled it passed (50%) · 1 still on it'
    );
    const chart = passRateChart(
      { ...progress([attempt()]), pass_rates: [on, some] },
      null
    );
    const bars = chart.querySelectorAll('rect.jp-CIBench-chartBar');
    expect(Array.from(bars, b => Number(b.getAttribute('width')))).toEqual([
      0, 100
    ]);
    const labels = Array.from(
      chart.querySelectorAll('text.jp-CIBench-chartLabel'),
      t => t.textContent
    ).filter(t => t!.includes('/'));
    expect(labels).toEqual(['0/0 · 1 on it', '1/2 · 1 on it']);
  });

  it('leaves a step not graded out of its rate, and says so', () => {
    const rate = {
      task_id: TASK,
      step: 0,
      reached: 3,
      settled: 3,
      passed: 1,
      not_graded: 1
    };
    expect(rateText(rate)).toBe(
      'step 1: 1 of 2 who settled it passed (50%) · 1 not graded'
    );
  });
});

describe("a member's attempt", () => {
  it('shows each turn with its code and output', () => {
    const record: IMemberAttempt = {
      id: 'a'.repeat(32),
      participant: 'ada',
      task_id: TASK,
      title: 'Leak probe',
      status: 'open',
      mode: 'e2e',
      player: 'human',
      current_step: 0,
      n_steps: 4,
      turn_cap: null,
      created_at: '2026-01-01T10:00:00Z',
      finished_at: null,
      steps: [
        {
          index: 0,
          kind: 'exec',
          instruction: 'Make a variable.',
          outcome: null,
          opened_at: '2026-01-01T10:00:00Z',
          settled_at: null,
          working_seconds: 3,
          grade: null,
          passed: false,
          note: 'hmm',
          turns: [
            {
              step: 0,
              turn: 0,
              code: 'x = 1',
              output: 'done\n',
              image: null,
              error: false,
              grade: null,
              started_at: '2026-01-01T10:00:01Z',
              finished_at: '2026-01-01T10:00:02Z'
            }
          ]
        }
      ]
    };
    let back = 0;
    const node = memberAttemptView(record, () => (back += 1));
    expect(node.querySelector('.jp-CIBench-memberCode')!.textContent).toBe(
      'x = 1'
    );
    expect(node.querySelector('.jp-CIBench-memberOutput')!.textContent).toBe(
      'done\n'
    );
    expect(node.querySelector('.jp-CIBench-memberNote')!.textContent).toBe(
      'note: hmm'
    );
    node.querySelector<HTMLButtonElement>('.jp-CIBench-classBack')!.click();
    expect(back).toBe(1);
  });
});

function member(steps: IMemberAttempt['steps']): IMemberAttempt {
  return {
    id: 'b'.repeat(32),
    participant: 'ada',
    task_id: TASK,
    title: 'Leak probe',
    status: 'open',
    mode: 'e2e',
    player: 'human',
    current_step: steps.length - 1,
    n_steps: 4,
    turn_cap: 3,
    created_at: '2026-01-01T10:00:00Z',
    finished_at: null,
    steps
  };
}

/** `s` with one turn run. */
function ran(
  s: IMemberAttempt['steps'][number]
): IMemberAttempt['steps'][number] {
  const turn = {
    step: s.index,
    turn: 0,
    code: 'print(1)',
    output: '1\n',
    image: null,
    error: false,
    grade: null,
    started_at: '2026-01-01T10:00:01Z',
    finished_at: '2026-01-01T10:00:02Z'
  };
  return { ...s, turns: [turn] };
}

function step(
  index: number,
  outcome: string | null,
  instruction = 'Print it.'
): IMemberAttempt['steps'][number] {
  return {
    index,
    kind: 'text',
    instruction,
    outcome,
    opened_at: '2026-01-01T10:00:00Z',
    settled_at: outcome === null ? null : '2026-01-01T10:01:00Z',
    working_seconds: 3,
    grade: null,
    passed: false,
    note: null,
    turns: []
  };
}

describe("a member's step, in the words of the student's panel", () => {
  it('names how each step settled, never the outcome code', () => {
    const steps = [
      ran(step(0, 'next')),
      ran(step(1, 'turn_cap')),
      ran(step(2, 'gave_up')),
      step(3, null)
    ];
    const node = memberAttemptView(member(steps), () => undefined);
    const heads = Array.from(
      node.querySelectorAll('.jp-CIBench-memberOutcome'),
      e => e.textContent
    );
    expect(heads).toEqual([
      'Step 1 (text): settled',
      'Step 2 (text): settled at the 3-run limit',
      'Step 3 (text): gave up',
      'Step 4 (text): open'
    ]);
    expect(node.textContent).not.toContain('turn_cap');
    expect(node.textContent).toContain('end-to-end · played by ada');
  });

  it('says "gave up · no run" where the student ran nothing, as their panel did', () => {
    const steps = [step(0, 'gave_up'), step(1, 'next'), step(2, null)];
    const node = memberAttemptView(member(steps), () => undefined);
    const heads = Array.from(
      node.querySelectorAll('.jp-CIBench-memberOutcome'),
      e => e.textContent
    );
    expect(heads).toEqual([
      'Step 1 (text): gave up · no run',
      'Step 2 (text): settled · no run',
      'Step 3 (text): open'
    ]);
    const said = Array.from(
      node.querySelectorAll('.jp-CIBench-memberStep'),
      e => e.textContent
    );
    expect(said[0]).not.toContain('No turn yet');
    expect(said[2]).toContain('No turn yet.');
  });

  it("renders an instruction's markdown through the registry, sanitized, once per attempt", async () => {
    const rendermime = new RenderMimeRegistry({
      initialFactories: standardRendererFactories
    });
    const markdown = new InstructionMarkdown(rendermime);
    const risky = 'Print **it**. <img src="x.png" onerror="alert(1)">';
    const record = member([step(0, null, risky)]);
    const node = memberAttemptView(record, () => undefined, markdown);
    const shown = node.querySelector<HTMLElement>(
      '.jp-CIBench-memberInstruction'
    )!;
    expect(shown.classList.contains('jp-RenderedMarkdown')).toBe(true);
    await markdown.rendered();
    const img = shown.querySelector('img');
    expect(img).not.toBeNull(); // rendered as HTML, not shown as its text
    expect(img!.hasAttribute('onerror')).toBe(false); // untrusted: sanitized
    const again = memberAttemptView(record, () => undefined, markdown);
    expect(again.querySelector('.jp-CIBench-memberInstruction')).toBe(shown);
    const other = memberAttemptView(
      { ...record, id: 'c'.repeat(32) },
      () => undefined,
      markdown
    );
    expect(other.querySelector('.jp-CIBench-memberInstruction')).not.toBe(
      shown
    );
  });

  it('shows an instruction as text without a registry', () => {
    const node = memberAttemptView(
      member([step(0, null, 'Print **it**.')]),
      () => undefined
    );
    const shown = node.querySelector('.jp-CIBench-memberInstruction')!;
    expect(shown.textContent).toBe('Print **it**.');
  });
});
