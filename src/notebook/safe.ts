/**
 * What an oracle reference cell shows: a reference comes from a task someone
 * imported, so the lab runs it with the server's rule for outputs it writes
 * into a notebook (`cibench_lab/play/safe_outputs.py`): of each MIME bundle
 * only `text/plain`, `image/png` and `image/jpeg` — no HTML, JavaScript, SVG,
 * markdown or widget view, nothing a browser runs — and a bundle left with
 * none of them says in `text/plain` what was not shown. Streams and errors
 * are text already. A person's own cells are not touched.
 */
import { Kernel, KernelMessage } from '@jupyterlab/services';

/** The MIME types an oracle cell's output keeps. */
export const SAFE_MIME = ['text/plain', 'image/png', 'image/jpeg'];
const IMAGES = ['image/png', 'image/jpeg'];
const BASE64 = /^[A-Za-z0-9+/=\s]*$/;
const NAMED = 3; // left-out MIME types named in the note, at most

type Bundle = { [mime: string]: unknown };

function text(value: unknown): string | undefined {
  if (typeof value === 'string') {
    return value;
  }
  if (Array.isArray(value) && value.every(v => typeof v === 'string')) {
    return value.join('');
  }
  return undefined;
}

/** The bundle's safe part; a note in `text/plain` when that leaves nothing. */
export function safeData(data: Bundle): { [mime: string]: string } {
  const kept: { [mime: string]: string } = {};
  for (const mime of SAFE_MIME) {
    const value = text(data[mime]);
    if (value !== undefined && (mime === 'text/plain' || BASE64.test(value))) {
      kept[mime] = value;
    }
  }
  const all = Object.keys(data);
  if (!Object.keys(kept).length && all.length) {
    const left = all.map(m => m.slice(0, 40)).sort();
    const more = left.length > NAMED ? ', …' : '';
    kept['text/plain'] =
      `[output not shown: ${left.slice(0, NAMED).join(', ')}${more}]`;
  }
  return kept;
}

/** The kept images' width and height, nothing else. */
export function safeMetadata(
  metadata: Bundle,
  data: { [mime: string]: string }
): { [mime: string]: { [key: string]: number } } {
  const out: { [mime: string]: { [key: string]: number } } = {};
  for (const mime of IMAGES) {
    const entry = metadata[mime] as Bundle | undefined;
    if (!(mime in data) || !entry || typeof entry !== 'object') {
      continue;
    }
    const size: { [key: string]: number } = {};
    for (const key of ['width', 'height']) {
      if (typeof entry[key] === 'number') {
        size[key] = entry[key] as number;
      }
    }
    if (Object.keys(size).length) {
      out[mime] = size;
    }
  }
  return out;
}

const BUNDLES = ['display_data', 'execute_result', 'update_display_data'];

/** Keep an IOPub message's MIME bundle to the safe types, in place. */
export function keepSafe(msg: KernelMessage.IIOPubMessage): void {
  if (!BUNDLES.includes(msg.header.msg_type)) {
    return;
  }
  const content = msg.content as { data?: unknown; metadata?: unknown };
  const data =
    content.data && typeof content.data === 'object' ? content.data : {};
  const kept = safeData(data as Bundle);
  const metadata = content.metadata;
  content.metadata = safeMetadata(
    metadata && typeof metadata === 'object' ? (metadata as Bundle) : {},
    kept
  );
  content.data = kept;
}

/** Every output of this run kept safe before the output area sees it. */
export function runSafely(
  future:
    | Kernel.IShellFuture<
        KernelMessage.IExecuteRequestMsg,
        KernelMessage.IExecuteReplyMsg
      >
    | null
    | undefined
): void {
  future?.registerMessageHook(msg => {
    keepSafe(msg);
    return true;
  });
}
