import { csvCell, FORMULA_LEADS } from '../csvcell';

describe('csvCell: no cell a spreadsheet would run', () => {
  it.each(FORMULA_LEADS)('quotes a text cell starting with %j', lead => {
    const cell = csvCell(`${lead}HYPERLINK("http://x")`);
    const text = /^"/.test(cell) ? cell.slice(1, -1).replace(/""/g, '"') : cell;
    expect(text).toBe(`'${lead}HYPERLINK("http://x")`);
  });

  it('leaves other text, real numbers and blanks alone', () => {
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvCell(-3)).toBe('-3');
    expect(csvCell(-2.5)).toBe('-2.5');
    expect(csvCell('-3')).toBe("'-3"); // text that looks like a number is text
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(false)).toBe('false');
    expect(csvCell('a,b')).toBe('"a,b"');
  });
});
