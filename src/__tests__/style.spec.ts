/// <reference types="node" />
import { readFileSync } from 'fs';
import * as path from 'path';

const STYLE = path.resolve(__dirname, '..', '..', 'style');
const SHEETS = ['base.css', 'notebook.css', 'results.css'];

function sheet(name: string): string {
  return readFileSync(path.join(STYLE, name), 'utf-8');
}

/** A `<pre>` inside an element of `className`, styled by base.css. */
function preIn(className: string): CSSStyleDeclaration {
  const part = document.createElement('div');
  part.className = className;
  const pre = document.createElement('pre');
  part.append(pre);
  document.body.append(part);
  return getComputedStyle(pre);
}

describe('the stylesheets', () => {
  beforeAll(() => {
    const style = document.createElement('style');
    style.textContent = sheet('base.css');
    document.head.append(style);
  });

  it('show code in a reference and in a turn alike, each at its own size', () => {
    const ref = preIn('jp-CIBench-ref-part');
    const turn = preIn('jp-CIBench-turn-part');
    for (const pre of [ref, turn]) {
      expect(pre.whiteSpace).toBe('pre-wrap');
      expect(pre.overflow).toBe('auto');
      expect(pre.getPropertyValue('font-family')).toBe(
        'var(--jp-code-font-family)'
      );
    }
    expect([ref.maxHeight, ref.padding]).toEqual(['30vh', '4px 6px']);
    expect([turn.maxHeight, turn.padding]).toEqual(['40vh', '6px 8px']);
  });

  it.each(SHEETS)(
    '%s takes every colour from the theme (no literal colour)',
    name => {
      const css = sheet(name).replace(/\/\*[\s\S]*?\*\//g, '');
      expect(css).not.toMatch(/#[0-9a-f]{3,8}\b/i);
      expect(css).not.toMatch(/\b(rgba?|hsla?)\(/i);
      expect(css).not.toMatch(/:\s*(white|black|red|green|blue|gray|grey)\b/i);
    }
  );
});
