/// <reference types="node" />
import { readFileSync } from 'fs';
import * as path from 'path';

const STYLE = path.resolve(__dirname, '..', '..', 'style');
const SHEETS = ['base.css', 'notebook.css', 'results.css', 'class.css'];

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

  it("lays out the panel header's title row, not a notebook's title cell", () => {
    const cell = document.createElement('div');
    cell.className = 'jp-Cell jp-MarkdownCell jp-CIBench-title';
    const notebook = document.createElement('div');
    notebook.className = 'jp-Notebook';
    notebook.append(cell);
    const header = document.createElement('header');
    header.className = 'jp-CIBench-header';
    const row = document.createElement('div');
    row.className = 'jp-CIBench-title';
    header.append(row);
    document.body.append(notebook, header);
    expect(getComputedStyle(row).display).toBe('flex');
    expect(getComputedStyle(cell).display).not.toBe('flex'); // a block: full width
    expect(getComputedStyle(cell).alignItems).not.toBe('baseline');
  });

  it('imports every sheet before its first rule (an @import after a rule is void)', () => {
    const css = sheet('base.css').replace(/\/\*[\s\S]*?\*\//g, '');
    const firstRule = css.search(/^[^@\s]/m);
    const imports = Array.from(css.matchAll(/@import[^;]*;/g), m => m.index!);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.every(at => at < firstRule)).toBe(true);
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
