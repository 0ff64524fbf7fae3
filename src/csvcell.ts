/**
 * The one CSV cell rule of every CSV the lab writes in the browser (the
 * server's is `cibench_lab/views/csvcells.py`; docs/exports.md, "CSV cells"):
 * a text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return
 * gets a leading `'`, so a spreadsheet shows it as text instead of running it
 * as a formula. A real number (a negative score) stays a number; text that
 * only looks like one is text.
 */

/** The characters a spreadsheet reads as the start of a formula. */
export const FORMULA_LEADS = ['=', '+', '-', '@', '\t', '\r'];

/** `value` as the text of one CSV cell: neutral, then quoted when it must be. */
export function csvCell(
  value: string | number | boolean | null | undefined
): string {
  if (value === null || value === undefined) {
    return '';
  }
  let text = String(value);
  if (
    typeof value === 'string' &&
    FORMULA_LEADS.some(lead => text.startsWith(lead))
  ) {
    text = `'${text}`;
  }
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
