import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { IRenderMime } from '@jupyterlab/rendermime';

import { prefetch } from '../notebook/prefetch';

function fakeApp(formats: () => Promise<unknown>) {
  const asked: unknown[] = [];
  const app = {
    serviceManager: {
      nbconvert: {
        getExportFormats: (force?: boolean) => {
          asked.push(force);
          return formats();
        }
      }
    }
  } as unknown as JupyterFrontEnd;
  return { app, asked };
}

describe('prefetch', () => {
  it("asks for the export formats the lab keeps (not forced) and loads the parser's code", async () => {
    const { app, asked } = fakeApp(async () => ({ html: {} }));
    const rendered: string[] = [];
    const parser = {
      render: async (text: string) => {
        rendered.push(text);
        return '<em>CIBench</em>';
      }
    } as IRenderMime.IMarkdownParser;
    await prefetch(app, parser);
    expect(asked).toEqual([false]); // a later getExportFormats(false) is answered from the lab's cache
    expect(rendered).toHaveLength(1);
  });

  it('only warns when the server cannot list them', async () => {
    const { app } = fakeApp(async () => {
      throw new Error('503');
    });
    const warn = jest
      .spyOn(console, 'warn')
      .mockImplementation(() => undefined);
    await expect(prefetch(app, null)).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();
  });
});
