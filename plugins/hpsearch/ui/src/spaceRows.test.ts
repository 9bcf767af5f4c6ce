import { describe, expect, it } from 'vitest';
import { emptyRow, fieldsOf, rowsToSpace, spaceToRows, splitOptions } from './spaceRows';

describe('search-space rows', () => {
  it('names the fields of each type', () => {
    expect(fieldsOf('quniform')).toEqual(['low', 'high', 'q']);
    expect(fieldsOf('qlognormal')).toEqual(['mu', 'sigma', 'q']);
    expect(fieldsOf('randint')).toEqual(['lower', 'upper']);
    expect(fieldsOf('choice')).toEqual(['options']);
    expect(emptyRow('normal').values).toEqual(['', '']);
  });

  it('turns rows into NNI JSON and back', () => {
    const rows = [
      { name: 'lr', type: 'loguniform' as const, values: ['0.0001', '0.1'] },
      { name: 'opt', type: 'choice' as const, values: ['adam, sgd, 3, true, "a, b"'] },
      { name: 'bs', type: 'quniform' as const, values: ['16', '128', '16'] },
    ];
    const { space, errors } = rowsToSpace(rows);
    expect(errors).toEqual([]);
    expect(space).toEqual({
      lr: { _type: 'loguniform', _value: [0.0001, 0.1] },
      opt: { _type: 'choice', _value: ['adam', 'sgd', 3, true, 'a, b'] },
      bs: { _type: 'quniform', _value: [16, 128, 16] },
    });
    const back = spaceToRows(space)!;
    expect(rowsToSpace(back).space).toEqual(space);
  });

  it('finds what the plugin would refuse', () => {
    const bad = (type: string, values: string[], name = 'x') =>
      rowsToSpace([{ name, type: type as never, values }]).errors[0]?.key;
    expect(bad('uniform', ['1', '0'])).toBe('order');
    expect(bad('loguniform', ['0', '1'])).toBe('positive');
    expect(bad('quniform', ['0', '1', '0'])).toBe('q');
    expect(bad('normal', ['0', '-1'])).toBe('sigma');
    expect(bad('randint', ['1.5', '3'])).toBe('integer');
    expect(bad('uniform', ['a', '1'])).toBe('number');
    expect(bad('choice', [' '])).toBe('options');
    expect(bad('uniform', ['0', '1'], '')).toBe('name');
    expect(rowsToSpace([{ name: 'a', type: 'uniform', values: ['0', '1'] },
      { name: 'a', type: 'uniform', values: ['0', '1'] }]).errors).toEqual([{ row: 1, key: 'duplicate' }]);
  });

  it('leaves nested choices to the JSON mode', () => {
    expect(spaceToRows({ m: { _type: 'choice', _value: [{ _name: 'svm' }] } })).toBeNull();
    expect(splitOptions('[1, 2], {"a": 1}, x')).toEqual(['[1, 2]', '{"a": 1}', 'x']);
  });
});
