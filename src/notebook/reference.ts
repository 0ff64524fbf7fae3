/**
 * End-to-end mode: a settled step's reference, as the attempt's reveal policy
 * allows it (the attempt view carries `reference` only then), shown as a
 * collapsed, read-only markdown cell below the step's answer cell — the code
 * fenced, the output text and the plot — that never runs.
 */
import { IReference } from '../api';
import { referenceLabel } from './labels';

/** The attachment name of a reference plot. */
export const PLOT_ATTACHMENT = 'reference.png';

/** A fenced block of `text` whose fence no backtick run inside can close. */
export function fence(text: string, lang = ''): string {
  const runs = text.match(/`{3,}/g) ?? [];
  const longest = runs.reduce((n, run) => Math.max(n, run.length), 2);
  const bar = '`'.repeat(longest + 1);
  return `${bar}${lang}\n${text.replace(/\n+$/, '')}\n${bar}`;
}

/** The reference plot as base64 PNG, from a bare base64 string or a data URI. */
export function plotData(image: string | null | undefined): string | null {
  if (!image) {
    return null;
  }
  const uri = /^data:image\/png;base64,(.*)$/s.exec(image);
  return (uri ? uri[1] : image).replace(/\s+/g, '') || null;
}

/**
 * The reference cell's markdown. Its first line is what a collapsed cell shows
 * (JupyterLab's placeholder), so it names the step.
 */
export function referenceMarkdown(step: number, ref: IReference): string {
  const image = plotData(ref.image);
  if (!ref.code.trim()) {
    // no reference code: a GSM8K item's answer (its worked solution and gold)
    const head = `${referenceLabel(step)}: the task's answer (read-only).`;
    return [head, fence(ref.output.trim())].join('\n\n');
  }
  const what = image ? 'code, output and plot' : 'code and output';
  const parts = [
    `${referenceLabel(step)}: the task's ${what} (read-only, never run).`,
    fence(ref.code, 'python')
  ];
  const output = ref.output.trim();
  if (output && !(image && output.startsWith('image/png'))) {
    parts.push('Output:', fence(output));
  }
  if (image) {
    parts.push(
      `![The reference plot of step ${step + 1}](attachment:${PLOT_ATTACHMENT})`
    );
  }
  return parts.join('\n\n');
}

/** The cell's attachments: the plot, when the reference has one. */
export function referenceAttachments(
  ref: IReference
): { [name: string]: { [mime: string]: string } } | undefined {
  const image = plotData(ref.image);
  return image ? { [PLOT_ATTACHMENT]: { 'image/png': image } } : undefined;
}
