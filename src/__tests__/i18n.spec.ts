/**
 * The lab's words in Chinese: every string the sources hand to `trans` has a
 * Simplified Chinese translation in the catalog the Python package ships
 * (cibench_lab/locale/zh_CN/LC_MESSAGES/cibench_lab.json), with the same
 * placeholders; and with JupyterLab's translator set to that catalog the
 * panel's words come out in Chinese, with the null translator in English.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { Gettext, ITranslator } from '@jupyterlab/translation';

import { DOMAIN, useTranslator } from '../i18n';
import { badgeText, runsLeftText } from '../grade';
import { stepLabel } from '../model';
import { matchCount } from '../panel/facets';
import { pendingText } from '../panel/actionbar';
import { grade } from './fixtures';

const ROOT = path.resolve(__dirname, '..', '..');
const CATALOG = path.join(
  ROOT,
  'cibench_lab',
  'locale',
  'zh_CN',
  'LC_MESSAGES',
  `${DOMAIN}.json`
);

type Catalog = { [msgid: string]: string[] } & {
  '': { domain: string; language: string; plural_forms: string };
};

function catalog(): Catalog {
  return JSON.parse(fs.readFileSync(CATALOG, 'utf8'));
}

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      return entry.name === '__tests__' ? [] : sources(full);
    }
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The msgids (singular, plural) of every `trans.__` / `trans._n` call in `src/`. */
function msgids(): Map<string, string> {
  const found = new Map<string, string>();
  const literal = (n?: ts.Node) =>
    n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n))
      ? n.text
      : null;
  for (const file of sources(path.join(ROOT, 'src'))) {
    const text = fs.readFileSync(file, 'utf8');
    const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n)) {
        const callee = n.expression.getText(src);
        const one = literal(n.arguments[0]);
        if (callee === 'trans.__' && one !== null) {
          found.set(one, one);
        } else if (callee === 'trans._n' && one !== null) {
          found.set(one, one + (literal(n.arguments[1]) ?? ''));
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(src);
  }
  return found;
}

const placeholders = (s: string) =>
  [...new Set(s.match(/%\d/g) ?? [])].sort().join(' ');

/** A translator for our domain only, reading the shipped catalog (as JupyterLab's does). */
function chinese(): ITranslator {
  const data = catalog();
  const bundle = new Gettext({ domain: DOMAIN, locale: 'zh-CN' });
  bundle.loadJSON(
    { ...data, '': { ...data[''], pluralForms: data[''].plural_forms } },
    DOMAIN
  );
  return { languageCode: 'zh-CN', load: () => bundle };
}

describe('the Chinese catalog', () => {
  it('translates every string the lab says, keeping its placeholders', () => {
    const data = catalog();
    const ids = msgids();
    expect(ids.size).toBeGreaterThan(400);
    const missing = [...ids.keys()].filter(id => !data[id]?.[0]);
    expect(missing).toEqual([]);
    const wrong = [...ids].filter(
      ([id, both]) => placeholders(data[id][0]) !== placeholders(both)
    );
    expect(wrong).toEqual([]);
  });

  it('holds no string the lab no longer says', () => {
    const ids = msgids();
    const stale = Object.keys(catalog()).filter(id => id && !ids.has(id));
    expect(stale).toEqual([]);
  });

  it('is Simplified Chinese with one plural form', () => {
    const header = catalog()[''];
    expect(header.language).toBe('zh-CN');
    expect(header.plural_forms).toBe('nplurals=1; plural=0;');
  });
});

describe('the lab under a translator', () => {
  afterEach(() => useTranslator(null));

  it('speaks Chinese with the Chinese catalog', () => {
    useTranslator(chinese());
    expect(stepLabel(2)).toBe('步骤 3');
    expect(matchCount(3, 10)).toBe('3 / 10 个任务');
    expect(runsLeftText(1)).toBe('还可运行 1 次');
    expect(badgeText(grade({ detail: '' }))).toBe('通过');
    expect(
      pendingText({ attemptId: 'a', kind: 'next', step: 0, remaining: 4 })
    ).toBe('步骤 1 将在 4 秒后提交');
  });

  it('speaks English with none (the null translator)', () => {
    useTranslator(chinese());
    useTranslator(null);
    expect(stepLabel(2)).toBe('Step 3');
    expect(matchCount(3, 10)).toBe('3 of 10 tasks');
    expect(runsLeftText(1)).toBe('1 run left');
  });
});
