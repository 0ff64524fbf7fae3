import {
  IAttemptSummary,
  IAttemptView,
  IGrade,
  ITaskDetail,
  ITaskSummary,
  ITurnDetail
} from '../api';
import { IPanelActions } from '../panel/actions';

export const TASKS: ITaskSummary[] = [
  {
    id: 'cibench_template/pandas/wine_quality',
    title: 'Wine quality',
    split: 'cibench_template',
    lib: 'pandas',
    language: 'en',
    libraries: ['pandas', 'matplotlib'],
    steps: 3,
    kinds: ['exec', 'num', 'vis']
  },
  {
    id: 'cibench_template_chinese/nltk/corpus',
    title: '语料分析',
    split: 'cibench_template_chinese',
    lib: 'nltk',
    language: 'zh',
    libraries: ['nltk'],
    steps: 2,
    kinds: ['text']
  },
  {
    id: 'cibench_generation/seaborn/tips',
    title: 'Tips plots',
    split: 'cibench_generation',
    lib: 'seaborn',
    language: 'en',
    libraries: ['seaborn'],
    steps: 1,
    kinds: ['vis']
  }
];

/** Qwen benchmark tasks as the server lists them (tests/fixtures/qwen/benchmark's items). */
export function qwenTask(
  stem: string,
  question: string,
  over: Partial<NonNullable<ITaskSummary['benchmark_item']>> = {},
  language = 'en'
): ITaskDetail {
  const family = over.family ?? 'qwen-math';
  const line = Number(stem.split('_')[1]);
  return {
    id: `cibench_qwen/${family}/${stem}`,
    title: question.length > 60 ? `${question.slice(0, 52)}…` : question,
    split: 'cibench_qwen',
    lib: family,
    language,
    libraries: [family],
    steps: 1,
    kinds: ['exec'],
    benchmark: 'qwen',
    intro: '',
    instructions: [{ index: 0, kind: 'exec' }],
    benchmark_item: {
      question,
      family,
      difficulty: null,
      files: [],
      source: stem.startsWith('gsm8k')
        ? 'gsm8k_test.jsonl'
        : 'eval_code_interpreter_v1.jsonl',
      line,
      calls: 1,
      runs: 1,
      ...over
    }
  };
}

export const QWEN_TASKS: ITaskDetail[] = [
  qwenTask('ci_0006', 'Solve x**2 - 5*x + 6 = 0 and print the roots.'),
  qwenTask('ci_0007', '求 1 到 100 的整数之和。', {}, 'zh'),
  qwenTask('ci_0002', 'Plot the temperature of each day as a line chart.', {
    family: 'qwen-vis',
    difficulty: 'easy',
    files: ['weather/weather.csv'],
    calls: 4,
    runs: 3
  }),
  qwenTask(
    'ci_0005',
    '请计算订单的总金额。',
    {
      family: 'qwen-general',
      files: ['shop/orders.csv']
    },
    'zh'
  )
];

export const DETAIL: ITaskDetail = {
  ...TASKS[0],
  intro: 'Explore the wine quality data set.',
  instructions: [
    { index: 0, kind: 'exec' },
    { index: 1, kind: 'num' },
    { index: 2, kind: 'vis' }
  ]
};

export function grade(over: Partial<IGrade> = {}): IGrade {
  return {
    profile: 'cibench',
    kind: 'num',
    tool: 1,
    exec: 1,
    score: 1,
    metric: 'numeric_correct',
    detail: 'number matched',
    passed: true,
    ungradable: null,
    ...over
  };
}

export function attemptView(over: Partial<IAttemptView> = {}): IAttemptView {
  return {
    id: 'a'.repeat(32),
    task_id: TASKS[0].id,
    title: 'Wine quality',
    intro: 'Explore.',
    mode: 'e2e',
    player: 'human',
    status: 'open',
    current_step: 1,
    n_steps: 3,
    kinds: ['exec', 'num', 'vis'],
    settings: {
      show_grades: true,
      turn_cap: 0,
      pause_after: 300,
      reveal: 'after-task',
      max_turn: 3,
      grade_rule: 'best'
    },
    notebook_path: 'cibench-attempts/wine_quality-aaaaaaaa/wine_quality.ipynb',
    kernel_id: null,
    profile: 'cibench',
    steps: [
      {
        index: 0,
        kind: 'exec',
        instruction: 'Load the data.',
        modules: ['pandas'],
        turns: 1,
        outcome: 'next',
        settled: true,
        seconds: 12.34,
        working_seconds: 10.5,
        grade: grade({ kind: 'exec', detail: 'ran without error' }),
        kept_turn: 0,
        run_limit: null,
        criterion: 'passes when it runs without error',
        opened_at: '2024-01-01T00:00:01Z',
        first_run_at: '2024-01-01T00:00:05Z',
        settled_at: '2024-01-01T00:00:13Z',
        note: null
      },
      {
        index: 1,
        kind: 'num',
        instruction: 'How many rows?',
        modules: [],
        turns: 0,
        outcome: null,
        settled: false,
        seconds: null,
        working_seconds: 3,
        grade: null,
        kept_turn: null,
        run_limit: null,
        criterion: 'passes when the printed number matches',
        opened_at: '2024-01-01T00:00:13Z',
        first_run_at: null,
        settled_at: null,
        note: null
      }
    ],
    summary: null,
    summaries: null,
    next: { do: 'wait', step: 1 },
    created_at: '2024-01-01T00:00:00Z',
    sandbox: { enabled: true, network: false, tool: 'bubblewrap' },
    kernel: 'running',
    kernel_stopped: null,
    paused: false,
    pauses: [],
    ...over
  };
}

export function attemptRow(
  over: Partial<IAttemptSummary> = {}
): IAttemptSummary {
  return {
    id: 'x1',
    task_id: TASKS[0].id,
    title: TASKS[0].title,
    mode: 'e2e',
    status: 'open',
    current_step: 0,
    n_steps: 3,
    notebook_path: 'a.ipynb',
    created_at: '2024-01-01T00:00:00Z',
    passed: null,
    language: 'en',
    split: 'cibench_template',
    ...over
  };
}

/** The panel's actions, each call recorded by name (a selected task and an opened attempt with their id). */
export function fakeActions(): IPanelActions & { calls: string[] } {
  const calls: string[] = [];
  const record = (name: string) => async () => {
    calls.push(name);
  };
  return {
    calls,
    refresh: record('refresh'),
    selectTask: async (id: string) => {
      calls.push(`select ${id}`);
    },
    start: record('start'),
    open: async (a: IAttemptSummary) => {
      calls.push(`open ${a.id}`);
    },
    openNotebook: record('openNotebook'),
    next: record('next'),
    giveUp: record('giveUp'),
    undoSettle: () => {
      calls.push('undo');
      return true;
    },
    settleNow: record('settleNow'),
    playStep: record('playStep'),
    playAll: record('playAll'),
    stopPlayer: record('stopPlayer'),
    showTurns: async (step: number) => {
      calls.push(`turns ${step}`);
    },
    record: {
      pause: async (cause: string) => {
        calls.push(`pause ${cause}`);
      },
      resume: async (cause: string) => {
        calls.push(`resume ${cause}`);
      },
      saveNote: async (id: string, step: number, text: string) => {
        calls.push(`note ${step} ${text}`);
      }
    }
  };
}

/** A recorded turn of `step` (0-based `turn`) that ran `code` without error. */
export function turnDetail(
  step: number,
  turn: number,
  code: string,
  over: Partial<ITurnDetail> = {}
): ITurnDetail {
  return {
    step,
    turn,
    code,
    outputs: [],
    error: false,
    started_at: '2024-01-01T00:00:00Z',
    finished_at: '2024-01-01T00:00:01Z',
    grade: null,
    ...over
  };
}

/** What standalone Yjs cells (how a notebook model builds cells) warn in jsdom. */
const YJS_NOISE = /^(Invalid access: Add Yjs type|\[yjs#509\])/;

/**
 * Keep the Yjs warnings of standalone cells out of a test file's output
 * (every other warning still shows); call at the top of the file.
 */
export function quietYjsWarnings(): void {
  const warn = console.warn;
  beforeAll(() => {
    jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
      if (!YJS_NOISE.test(String(args[0]))) {
        warn(...args);
      }
    });
  });
  afterAll(() => jest.restoreAllMocks());
}
