/// <reference types="node" />
import { execFileSync } from 'child_process';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..', '..');

/** The eslint rules that apply to `file` (eslint's own resolution of eslint.config.mjs). */
function rulesFor(file: string): { [rule: string]: unknown } {
  const bin = path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');
  const out = execFileSync(process.execPath, [bin, '--print-config', file], {
    cwd: ROOT,
    encoding: 'utf-8'
  });
  return JSON.parse(out).rules;
}

describe('size limits', () => {
  it('hold src/ to 400 lines a file and 40 a function, blank lines and comments aside', () => {
    const rules = rulesFor('src/panel/tasks.ts');
    const skip = { skipBlankLines: true, skipComments: true };
    expect(rules['max-lines']).toEqual([2, { max: 400, ...skip }]);
    expect(rules['max-lines-per-function']).toEqual([2, { max: 40, ...skip }]);
  });

  it('leave the tests to their own length', () => {
    const rules = rulesFor('src/__tests__/panel.spec.ts');
    expect(rules['max-lines']).toBeUndefined();
    expect(rules['max-lines-per-function']).toBeUndefined();
  });
});
