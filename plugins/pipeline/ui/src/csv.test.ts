import { parseCsv } from './csv';

describe('parseCsv', () => {
  it('reads quoted fields, doubled quotes and CRLF', () => {
    expect(parseCsv('a,"b, c"\r\n1,"say ""hi"""\n2,\n')).toEqual({
      header: ['a', 'b, c'], rows: [['1', 'say "hi"'], ['2', '']], truncated: false,
    });
  });
  it('stops after maxRows and says so', () => {
    const t = parseCsv('x\n1\n2\n3\n4\n', 2);
    expect(t.rows).toEqual([['1'], ['2']]);
    expect(t.truncated).toBe(true);
  });
  it('keeps a last line without a newline', () => {
    expect(parseCsv('x,y\n1,2').rows).toEqual([['1', '2']]);
  });
});
