/**
 * A step instruction's markdown in the class view, rendered as JupyterLab
 * renders a markdown cell: the application's rendermime registry's
 * `text/markdown` renderer, on untrusted content, so its HTML is sanitized
 * (no script, no handler) and it wears JupyterLab's rendered-markdown styles
 * in either theme. The view redraws at every poll: each rendered instruction
 * of the attempt shown is kept and its node moved into the new drawing, not
 * rendered again.
 */
import type { IRenderMime, IRenderMimeRegistry } from '@jupyterlab/rendermime';

import { h } from '../panel/dom';

export const MARKDOWN = 'text/markdown';
const CLASS = 'jp-CIBench-memberInstruction';

/** Renders one attempt's instructions at a time (another attempt's drop). */
export class InstructionMarkdown {
  constructor(private rendermime: IRenderMimeRegistry | null) {}

  /**
   * Step `index`'s instruction `source` of attempt `attempt`, rendered; its
   * plain text until the renderer is done (and without a registry).
   */
  render(attempt: string, index: number, source: string): HTMLElement {
    if (!this.rendermime) {
      return h('p', { className: CLASS, text: source });
    }
    if (attempt !== this.attempt) {
      this.clear();
      this.attempt = attempt;
    }
    const kept = this.kept.get(index);
    if (kept && kept.source === source) {
      return kept.renderer.node;
    }
    kept?.renderer.dispose();
    const renderer = this.rendermime.createRenderer(MARKDOWN);
    renderer.addClass(CLASS);
    renderer.node.textContent = source;
    const model = this.rendermime.createModel({
      data: { [MARKDOWN]: source },
      trusted: false
    });
    const done = renderer.renderModel(model).catch(() => undefined); // the text stays
    this.kept.set(index, { source, renderer, done });
    return renderer.node;
  }

  /** Resolves once every instruction rendered so far is drawn. */
  async rendered(): Promise<void> {
    await Promise.all([...this.kept.values()].map(kept => kept.done));
  }

  /** Forget every kept instruction. */
  clear(): void {
    for (const { renderer } of this.kept.values()) {
      renderer.dispose();
    }
    this.kept.clear();
    this.attempt = null;
  }

  private attempt: string | null = null;
  private kept = new Map<
    number,
    { source: string; renderer: IRenderMime.IRenderer; done: Promise<void> }
  >();
}
