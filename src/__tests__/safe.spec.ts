import { KernelMessage } from '@jupyterlab/services';

import { keepSafe, safeData } from '../notebook/safe';

const HOSTILE = {
  'text/html': '<script>window.__pwned=1</script>',
  'application/javascript': 'window.__pwned=2',
  'image/svg+xml': '<svg onload="window.__pwned=3"/>',
  'application/vnd.jupyter.widget-view+json': { model_id: 'x' }
};

function message(
  msgType: string,
  content: { [key: string]: unknown }
): KernelMessage.IIOPubMessage {
  return {
    header: { msg_type: msgType },
    content
  } as unknown as KernelMessage.IIOPubMessage;
}

describe('an oracle cell output', () => {
  it('keeps text/plain and images only, and their size', () => {
    const msg = message('display_data', {
      data: { ...HOSTILE, 'text/plain': '<HTML>', 'image/png': 'iVBO=' },
      metadata: { 'image/png': { width: 5, onload: 'x' }, isolated: true }
    });
    keepSafe(msg);
    expect(msg.content).toEqual({
      data: { 'text/plain': '<HTML>', 'image/png': 'iVBO=' },
      metadata: { 'image/png': { width: 5 } }
    });
  });

  it('says what was not shown when nothing is left', () => {
    expect(safeData({ 'text/html': '<b>x</b>', 'image/png': '"><i>' })).toEqual(
      { 'text/plain': '[output not shown: image/png, text/html]' }
    );
  });

  it('leaves a stream alone', () => {
    const msg = message('stream', { name: 'stdout', text: '<b>hi</b>' });
    keepSafe(msg);
    expect(msg.content).toEqual({ name: 'stdout', text: '<b>hi</b>' });
  });
});
