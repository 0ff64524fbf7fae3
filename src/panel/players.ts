/**
 * The task intro's player choice: you, an attached model (server-configured,
 * by name) or a replay of a recorded model run, or of a transcript file.
 */
import { CIBenchModel } from '../model';
import { h, input, replaceChildren } from './dom';
import { trans } from '../i18n';

const PLAYER_ID = 'jp-CIBench-player-select';
const TRANSCRIPT_ID = 'jp-CIBench-transcript-input';

export class PlayerChoice {
  constructor(private model: CIBenchModel) {}

  private select = playerSelect(this.model);

  /** The row: its label, the select and (for a transcript) the path. */
  readonly node = h(
    'div',
    { className: 'jp-CIBench-playerRow' },
    h('label', {
      className: 'jp-CIBench-label',
      text: trans.__('Player'),
      attrs: { for: PLAYER_ID }
    }),
    this.select
  );

  /**
   * Refill the player choice in place: the select keeps its focus (a keyboard
   * user stepping through the options) and a typed transcript path stays.
   */
  render(): void {
    replaceChildren(this.select, ...playerOptions(this.model));
    this.select.value = this.model.player;
    if (this.select.selectedIndex < 0) {
      this.select.selectedIndex = 0; // a choice not offered (yet): show "You"
    }
    const wantsPath = this.model.player === 'transcript';
    if (wantsPath && !this.transcriptRow) {
      this.transcriptRow = transcriptInput(this.model);
      this.node.append(this.transcriptRow);
    } else if (!wantsPath && this.transcriptRow) {
      this.transcriptRow.remove();
      this.transcriptRow = null;
    }
  }

  private transcriptRow: HTMLElement | null = null;
}

/** The options: "You", the attached models, then the recorded runs and a transcript. */
function playerOptions(model: CIBenchModel): HTMLElement[] {
  const option = (value: string, text: string) =>
    h('option', { text, attrs: { value } });
  const groups: HTMLElement[] = [option('', trans.__('You'))];
  if (model.models.length) {
    groups.push(
      h(
        'optgroup',
        { attrs: { label: trans.__('Attach a model') } },
        ...model.models.map(m =>
          option(`model:${m.name}`, `${m.name} (${m.protocol})`)
        )
      )
    );
  }
  groups.push(
    h(
      'optgroup',
      { attrs: { label: trans.__('Replay a run') } },
      ...model.recordings.map(r =>
        option(
          `replay:${r.id}`,
          `${r.run}: ${r.player.replace(/^openai:/, '')}, ${r.mode}`
        )
      ),
      option('transcript', trans.__('A transcript file (JSONL)…'))
    )
  );
  return groups;
}

function playerSelect(model: CIBenchModel): HTMLSelectElement {
  const select = h('select', {
    className: 'jp-CIBench-player',
    attrs: { id: PLAYER_ID }
  });
  select.addEventListener('change', () => {
    model.player = select.value;
  });
  return select;
}

/** The path of a transcript to replay (JSONL, as `cibench-lab run --export-transcript` writes). */
function transcriptInput(model: CIBenchModel): HTMLElement {
  const attrs = {
    id: TRANSCRIPT_ID,
    type: 'text',
    placeholder: trans.__('runs/qwen.jsonl'),
    spellcheck: 'false'
  };
  const path = input(
    { className: 'jp-CIBench-filter jp-CIBench-transcript', attrs },
    model.transcript,
    text => (model.transcript = text)
  );
  return h(
    'div',
    {},
    h('label', {
      className: 'jp-CIBench-label',
      text: trans.__('Transcript (path under the server root)'),
      attrs: { for: TRANSCRIPT_ID }
    }),
    path
  );
}
