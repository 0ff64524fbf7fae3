/**
 * What the first notebook a page opens waits for, asked for beforehand: once
 * the lab is restored and the page idle, the server's export formats (the
 * lab's export menus list them when the first notebook opens, and the server
 * takes a few hundred ms to list them) and the markdown parser's code (loaded
 * when the first instruction cell renders). The person's first Start then
 * does not wait for either.
 */
import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { IMarkdownParser } from '@jupyterlab/rendermime';
import type { IRenderMime } from '@jupyterlab/rendermime';

/** At most this long after the lab is restored, even on a page that is never idle. */
const IDLE_WITHIN_MS = 3_000;

export const prefetchPlugin: JupyterFrontEndPlugin<void> = {
  id: 'cibench-lab:prefetch',
  description: "Fetches what a page's first notebook needs before a Start.",
  autoStart: true,
  optional: [IMarkdownParser],
  activate: (
    app: JupyterFrontEnd,
    parser: IRenderMime.IMarkdownParser | null
  ): void => {
    void app.restored.then(() =>
      whenIdle(() => prefetch(app, parser), IDLE_WITHIN_MS)
    );
  }
};

/** Ask for the export formats (kept by the lab's nbconvert manager) and load the parser. */
export async function prefetch(
  app: Pick<JupyterFrontEnd, 'serviceManager'>,
  parser: IRenderMime.IMarkdownParser | null
): Promise<void> {
  await Promise.all([
    app.serviceManager.nbconvert.getExportFormats(false),
    parser?.render('*CIBench*')
  ]).catch(err =>
    console.warn('cibench-lab: prefetching for the first notebook', err)
  );
}

function whenIdle(fn: () => void, within: number): void {
  if (typeof window.requestIdleCallback === 'function') {
    window.requestIdleCallback(fn, { timeout: within });
  } else {
    window.setTimeout(fn, 0);
  }
}
