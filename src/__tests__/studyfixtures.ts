/**
 * The study tests' fixtures: a study view as the server sends it, a plan
 * in progress, and a study host that records what the controller asks of it.
 */
import { CIBenchModel } from '../model';
import type { IStudyView, StudyApi } from '../study/api';
import type { IStudyHost } from '../study/controller';

export function study(over: Partial<IStudyView> = {}): IStudyView {
  return {
    id: 'pilot',
    title: 'Pilot',
    protocol: 'model-parity',
    proctored: false,
    consent: 'We record your code.\n\nYou may stop at any time.',
    settle_note: 'a note',
    questionnaire: [
      {
        name: 'expertise',
        label: 'Expertise',
        type: 'choice',
        choices: ['low', 'high'],
        required: true,
        min: null,
        max: null
      },
      {
        name: 'years',
        label: 'Years of Python',
        type: 'number',
        choices: [],
        required: false,
        min: 0,
        max: null
      }
    ],
    settings: {
      show_grades: false,
      turn_cap: 3,
      pause_after: 300,
      reveal: 'never',
      max_turn: 3,
      grade_rule: 'settling'
    },
    participant_code: false,
    n_items: 2,
    participant: 'pat',
    researcher: false,
    state: 'consent',
    enrolment: null,
    items: [],
    current: null,
    next: null,
    done: 0,
    finished: 0,
    quit: 0,
    total_seconds: 0,
    ...over
  };
}

export const PLAYING: Partial<IStudyView> = {
  state: 'playing',
  enrolment: {
    consent_at: '2025-01-01T00:00:00Z',
    answers: {},
    finished_at: null
  },
  current: 0,
  items: [
    {
      index: 0,
      task_id: 'a/b/c',
      title: 'Task A',
      mode: 'e2e',
      status: 'open',
      attempt_id: 'a'.repeat(32),
      notebook_path: 'cibench-attempts/c/c.ipynb',
      working_seconds: 65
    },
    {
      index: 1,
      task_id: 'a/b/d',
      title: 'Task B',
      mode: 'e2e',
      status: 'todo',
      attempt_id: null,
      notebook_path: null,
      working_seconds: null
    }
  ],
  total_seconds: 65
};

export function fakeHost(
  api: Partial<StudyApi>
): IStudyHost & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    api: api as StudyApi,
    lab: new CIBenchModel(),
    openAttempt: async (id, path) => void calls.push(`open ${id} ${path}`),
    refresh: async () => void calls.push('refresh'),
    closeNotebooks: async paths => void calls.push(`close ${paths.join(',')}`),
    closeTabsExcept: async paths =>
      void calls.push(`close tabs but ${paths.join(',')}`),
    confirm: async () => true,
    reveal: () => void calls.push('reveal'),
    showResults: state =>
      void calls.push(`results ${state.runs.length} ${state.refused ?? ''}`)
  };
}
