/**
 * The lab's words in the person's language: every user-facing string goes
 * through `trans` (JupyterLab's gettext bundle for our domain). The lab's
 * plugin hands over JupyterLab's translator when it activates; until then,
 * and in tests, the null translator gives the English source strings. The
 * translations ship in cibench_lab/locale/<lang>/LC_MESSAGES/cibench_lab.json,
 * found by jupyterlab_server through the `jupyterlab.locale` entry point.
 */
import {
  ITranslator,
  nullTranslator,
  TranslationBundle
} from '@jupyterlab/translation';

/** Our gettext domain (the entry point's name and the JSON file's). */
export const DOMAIN = 'cibench_lab';

/** The bundle in use (a property, so it can be swapped when the lab activates). */
const current: { trans: TranslationBundle } = {
  trans: nullTranslator.load(DOMAIN)
};

/**
 * Translate with `translator` from now on (the lab's plugin, at activation);
 * none (a lab without the translation plugin): the English source strings.
 */
export function useTranslator(translator: ITranslator | null): void {
  current.trans = (translator ?? nullTranslator).load(DOMAIN);
}

/**
 * The bundle of the translator in use: `trans.__('Step %1', n)`,
 * `trans._n('%1 run left', '%1 runs left', n)`, `trans._p(context, text)`.
 */
export const trans = {
  __: (msgid: string, ...args: unknown[]): string =>
    current.trans.__(msgid, ...args),
  _n: (msgid: string, plural: string, n: number, ...args: unknown[]): string =>
    current.trans._n(msgid, plural, n, ...args),
  _p: (context: string, msgid: string, ...args: unknown[]): string =>
    current.trans._p(context, msgid, ...args)
};
