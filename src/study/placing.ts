/**
 * What the results view's charts need to keep their text readable: a text's
 * width (measured with the page's UI font where a canvas can, else a generous
 * estimate), round tick values for an axis, and label placement — each label
 * beside its point where its box stays in the plot and clears every label
 * placed before and every point; none where no place is free (the chart lists
 * such points in a table instead). Pure but for the measuring canvas.
 */

/** A box in the chart's coordinates (y down). */
export interface IBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A label placed: where its text is drawn, and its box. */
export interface IPlaced {
  x: number;
  y: number;
  anchor: 'start' | 'end';
  box: IBox;
}

/** Widths per em of the estimate (DejaVu Sans, the widest usual UI font, is ~0.62). */
const EM_ESTIMATE = 0.68;
let canvas: CanvasRenderingContext2D | null | undefined;

/** The width of `text` at `size` px in the UI font. */
export function textWidth(text: string, size: number): number {
  if (canvas === undefined) {
    canvas = makeCanvas();
  }
  if (canvas) {
    canvas.font = `${size}px ${uiFont()}`;
    return Math.ceil(canvas.measureText(text).width) + 1;
  }
  return text.length * size * EM_ESTIMATE;
}

function makeCanvas(): CanvasRenderingContext2D | null {
  if (!('fonts' in document)) {
    return null; // no layout engine to measure with (a test's DOM): the estimate
  }
  try {
    return document.createElement('canvas').getContext('2d');
  } catch {
    return null;
  }
}

function uiFont(): string {
  const root = document.documentElement;
  const family = getComputedStyle(root).getPropertyValue('--jp-ui-font-family');
  return family.trim() || 'sans-serif';
}

export function overlaps(a: IBox, b: IBox): boolean {
  return (
    a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
  );
}

function within(inner: IBox, outer: IBox): boolean {
  return (
    inner.x >= outer.x &&
    inner.y >= outer.y &&
    inner.x + inner.w <= outer.x + outer.w &&
    inner.y + inner.h <= outer.y + outer.h
  );
}

/** The box of a text drawn at (x, baseline y) with this anchor, a pixel of margin around it. */
export function textBox(
  x: number,
  y: number,
  width: number,
  size: number,
  anchor: 'start' | 'end' | 'middle'
): IBox {
  const left =
    anchor === 'start' ? x : anchor === 'end' ? x - width : x - width / 2;
  return {
    x: left - 1,
    y: y - size * 0.9 - 1,
    w: width + 2,
    h: size * 1.2 + 2
  };
}

/**
 * Where a label of `width` goes beside a point at (cx, cy): right of it,
 * then left, level with it, then a line higher or lower, then further away.
 */
function candidates(cx: number, cy: number, size: number) {
  const mid = cy + size * 0.35;
  const out: { x: number; y: number; anchor: 'start' | 'end' }[] = [];
  for (const shift of [0, -1, 1, -2, 2, -3, 3]) {
    const y = mid + shift * (size + 2);
    out.push(
      { x: cx + 7, y, anchor: 'start' },
      { x: cx - 7, y, anchor: 'end' }
    );
  }
  return out;
}

/**
 * Place each label beside its point (in the order given): the first place
 * inside `area` clear of the labels placed so far and of `obstacles`; null
 * where there is none.
 */
export function placeLabels(
  labels: { cx: number; cy: number; text: string }[],
  size: number,
  area: IBox,
  obstacles: IBox[]
): (IPlaced | null)[] {
  const taken: IBox[] = [...obstacles];
  return labels.map(({ cx, cy, text }) => {
    const width = textWidth(text, size);
    for (const at of candidates(cx, cy, size)) {
      const box = textBox(at.x, at.y, width, size, at.anchor);
      if (within(box, area) && !taken.some(t => overlaps(t, box))) {
        taken.push(box);
        return { ...at, box };
      }
    }
    return null;
  });
}

/** About `count` round values (1, 2 or 5 times a power of ten) covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) {
    hi = lo + 1;
  }
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step =
    [1, 2, 5, 10].map(m => m * power).find(s => s >= raw) ?? 10 * power;
  const first = Math.floor(lo / step + 1e-9) * step;
  const ticks: number[] = [];
  for (let v = first; v < hi + step - 1e-9; v += step) {
    ticks.push(Number(v.toFixed(10)));
  }
  return ticks;
}

/** A tick's value in words: as many decimals as the step needs. */
export function tickText(value: number, ticks: number[]): string {
  const step = ticks.length > 1 ? Math.abs(ticks[1] - ticks[0]) : 1;
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  return value.toFixed(decimals);
}
