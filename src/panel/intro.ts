/**
 * The selected task's intro: its title and facets, the intro text and step
 * kinds — a Qwen task's question as asked (plain text: nothing in it is
 * markup), its files, hard or easy and the runs allowed — then the mode and
 * player choice, next to Start in the action bar. A long intro scrolls in
 * its own box, so the choice below it stays in view.
 */
import { ITaskDetail, Mode } from '../api';
import { ChangeKind, CIBenchModel, modeLabel } from '../model';
import { h, replaceChildren } from './dom';
import { taskMeta, taskTitle } from './facets';
import { PlayerChoice } from './players';
import { isQwen, itemFacts, qwenLine } from './qwen';
import { trans } from '../i18n';

export class TaskIntro {
  constructor(private model: CIBenchModel) {
    this.players = new PlayerChoice(model);
    this.render();
  }

  readonly node = h('section', {
    className: 'jp-CIBench-detail',
    attrs: { 'aria-label': trans.__('Selected task') }
  });

  /** Focus the checked mode (the task was chosen from the keyboard); whether there was one. */
  focusChoice(): boolean {
    const mode = this.node.querySelector<HTMLInputElement>(
      'input.jp-CIBench-mode:checked'
    );
    mode?.focus();
    return !!mode;
  }

  update(kind: ChangeKind): void {
    if (kind === 'selected' || kind === 'mode') {
      this.render();
    } else if (kind === 'players') {
      this.players.render();
    }
  }

  private render(): void {
    const task = this.model.selected;
    if (!task) {
      replaceChildren(this.node);
      this.node.hidden = true;
      return;
    }
    this.node.hidden = false;
    replaceChildren(
      this.node,
      h('h3', {
        className: 'jp-CIBench-detail-title',
        text: taskTitle(task, this.model.tasks)
      }),
      h('p', { className: 'jp-CIBench-task-meta', text: taskMeta(task) }),
      ...(isQwen(task)
        ? qwenIntro(task, this.model.turnCap)
        : [introText(task), kindsLine(task)]),
      isQwen(task) ? null : modeChoice(this.model), // no oracle mode: one step
      this.players.node
    );
    this.players.render();
  }

  private players: PlayerChoice;
}

/** The mode radios: end-to-end or oracle. */
function modeChoice(model: CIBenchModel): HTMLFieldSetElement {
  const radios = (['e2e', 'oracle'] as Mode[]).map(mode => {
    const id = `jp-CIBench-mode-${mode}`;
    const input = h('input', {
      className: 'jp-CIBench-mode',
      attrs: { type: 'radio', name: 'jp-CIBench-mode', value: mode, id }
    });
    input.checked = model.mode === mode;
    input.addEventListener('change', () => {
      if (input.checked) {
        model.mode = mode;
      }
    });
    return h(
      'div',
      { className: 'jp-CIBench-modeOption' },
      input,
      h('label', { text: modeLabel(mode), attrs: { for: id } })
    );
  });
  return h(
    'fieldset',
    { className: 'jp-CIBench-modes' },
    h('legend', { text: trans.__('Mode') }),
    ...radios
  );
}

/** The intro's text: a box of its own that scrolls (by keyboard too) when the text is long. */
function introText(task: ITaskDetail): HTMLElement {
  return h('p', {
    className: 'jp-CIBench-intro',
    text: task.intro,
    attrs: {
      tabindex: '0',
      role: 'region',
      'aria-label': trans.__('Task intro')
    }
  });
}

/**
 * A Qwen task's facts (files, hard or easy, the runs allowed: in view next to
 * Start), then its question as asked (the title is only its start) and its
 * family line.
 */
function qwenIntro(task: ITaskDetail, turnCap: number): HTMLElement[] {
  const item = task.benchmark_item;
  if (!item) {
    return [
      introText(task),
      h('p', { className: 'jp-CIBench-kinds', text: qwenLine(task) })
    ];
  }
  const question = h('p', {
    className: 'jp-CIBench-intro jp-CIBench-question',
    text: item.question,
    attrs: {
      lang: task.language === 'zh' ? 'zh' : 'en',
      tabindex: '0',
      role: 'region',
      'aria-label': trans.__('Question')
    }
  });
  const facts = itemFacts(item, turnCap).map(text =>
    h('li', { className: 'jp-CIBench-fact', text })
  );
  return [
    h(
      'ul',
      {
        className: 'jp-CIBench-facts',
        attrs: { 'aria-label': trans.__('The item') }
      },
      ...facts
    ),
    h('h4', {
      className: 'jp-CIBench-questionLabel',
      text: trans.__('Question')
    }),
    question,
    h('p', { className: 'jp-CIBench-kinds', text: qwenLine(task) })
  ];
}

/** "Step kinds: 1 exec, 2 num". */
function kindsLine(task: ITaskDetail): HTMLElement {
  const kinds = (task.instructions ?? []).map(i => i.kind);
  const counts = new Map<string, number>();
  kinds.forEach(k => counts.set(k, (counts.get(k) ?? 0) + 1));
  const text = [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
  return h('p', {
    className: 'jp-CIBench-kinds',
    text: text ? trans.__('Step kinds: %1', text) : ''
  });
}
