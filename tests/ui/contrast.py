"""Contrast measured in the browser from computed styles (WCAG 2.x relative luminance).

Colours are read back through a 1×1 canvas, so every CSS colour syntax the page computes
(``rgb()``, ``color(srgb …)`` of a ``color-mix()``) counts the same; a text colour is blended over
the layers of background colours behind it (each ancestor's ``background-color`` and opacity)
down to the first opaque one, as the eye sees it. axe-core's scan leaves out what it cannot
decide (it passed while "missed" read 2.3:1), so these measure themselves.
"""

from __future__ import annotations

from playwright.sync_api import Page

#: window.__contrast: rgba(css), over(fg, bg), luminance, ratio, background(el), textColour(el).
HELPERS = """() => {
  if (window.__contrast) return;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const rgba = css => {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = '#010203';
    ctx.fillStyle = css;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
    return a === 0 ? [0, 0, 0, 0] : [r, g, b, a / 255];
  };
  const over = (top, under) => {
    const a = top[3];
    return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)).concat([1]);
  };
  const luminance = c => {
    const ch = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * ch(c[0]) + 0.7152 * ch(c[1]) + 0.0722 * ch(c[2]);
  };
  const ratio = (a, b) => {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  // the background behind `el`: its own and its ancestors' colours, stacked, on the page's
  const background = el => {
    const layers = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const style = getComputedStyle(node);
      const c = rgba(style.backgroundColor);
      const o = Number(style.opacity);
      if (c[3] > 0) layers.push([c[0], c[1], c[2], c[3] * o]);
      if (c[3] * o >= 1) break;
    }
    let bg = rgba(getComputedStyle(document.body).backgroundColor);
    if (bg[3] < 1) bg = [255, 255, 255, 1];
    for (const layer of layers.reverse()) bg = over(layer, bg);
    return bg;
  };
  // the text's colour with every ancestor's opacity applied
  const textColour = el => {
    const c = rgba(getComputedStyle(el).color);
    let o = 1;
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      o *= Number(getComputedStyle(node).opacity);
    }
    return [c[0], c[1], c[2], c[3] * o];
  };
  window.__contrast = {rgba, over, ratio, background, textColour};
}"""

#: Every visible text under the roots: [{text, cls, ratio, need}] (need: 4.5, or 3 for large text).
TEXTS = """(roots) => {
  const {ratio, background, textColour, over} = window.__contrast;
  const found = [];
  for (const root of roots.flatMap(sel => [...document.querySelectorAll(sel)])) {
    for (const el of [root, ...root.querySelectorAll('*')]) {
      const own = [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim();
      const box = el.getBoundingClientRect();
      if (!own || box.width < 2 || box.height < 2) continue;
      if (el.closest(':disabled, [hidden], [aria-hidden="true"]')) continue;
      if (getComputedStyle(el).visibility !== 'visible') continue;
      const style = getComputedStyle(el);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      const bg = background(el);
      const fg = over(textColour(el), bg);
      const need = large ? 3 : 4.5;
      found.push({text: own.slice(0, 60), cls: String(el.className), ratio: ratio(fg, bg), need});
    }
  }
  return found;
}"""

#: The focus indicator of the focused element: {visible, ring, ratioControl, ratioBackground, width}.
FOCUS_RING = """() => {
  const {rgba, ratio, background} = window.__contrast;
  const el = document.activeElement;
  const style = getComputedStyle(el);
  let ring = null, width = 0;
  if (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) {
    ring = rgba(style.outlineColor); width = parseFloat(style.outlineWidth);
  } else if (style.boxShadow && style.boxShadow !== 'none') {
    const m = style.boxShadow.match(/(rgba?\\([^)]*\\)|color\\([^)]*\\))/);
    const px = [...style.boxShadow.matchAll(/(-?[\\d.]+)px/g)].map(x => parseFloat(x[1]));
    if (m) { ring = rgba(m[1]); width = Math.max(...px.slice(2, 4), 0); }
  }
  if (!ring || ring[3] === 0) return {visible: false, what: el.outerHTML.slice(0, 100)};
  const control = background(el);
  const around = el.parentElement ? background(el.parentElement) : control;
  return {visible: el.matches(':focus-visible'), width, what: el.outerHTML.slice(0, 100),
          ratioControl: ratio(ring, control), ratioBackground: ratio(ring, around)};
}"""


def texts_below_aa(page: Page, roots: list[str]) -> tuple[list[dict], int]:
    """The visible texts under ``roots`` that miss WCAG AA, and how many texts were measured."""
    page.evaluate(HELPERS)
    found = page.evaluate(TEXTS, roots)
    return [t for t in found if t["ratio"] < t["need"]], len(found)


def text_ratio(page: Page, selector: str) -> float:
    """The contrast of the first element matching ``selector`` (its text over its background)."""
    page.evaluate(HELPERS)
    return page.locator(selector).first.evaluate(
        "el => { const c = window.__contrast, bg = c.background(el);"
        " return c.ratio(c.over(c.textColour(el), bg), bg); }"
    )


def focus_ring(page: Page) -> dict:
    """The focus indicator the focused element shows (see FOCUS_RING)."""
    page.evaluate(HELPERS)
    return page.evaluate(FOCUS_RING)
