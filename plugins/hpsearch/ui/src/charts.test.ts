import { describe, expect, it } from 'vitest';
import { bestSoFar, paramColumns, parallelOption, progressOption } from './charts';
import type { Trial } from './types';

const trial = (n: number, value: number | null, parameters: Record<string, unknown>): Trial => ({
  trial: n, job: `e-${n}`, phase: value === null ? 'Failed' : 'Succeeded', parameters, value,
  lastStep: 0, source: 'tuner',
});
const L = { trial: 'trial', value: 'value', best: 'best', step: 'step' };

describe('charts', () => {
  const trials = [trial(2, 0.5, { lr: 0.1, m: { _name: 'svm', C: 1 } }), trial(1, 0.7, { lr: 0.01, m: { _name: 'tree' } }),
    trial(3, null, { lr: 0.2, m: { _name: 'tree' } }), trial(4, 0.9, { lr: 0.05, m: { _name: 'svm', C: 10 } })];

  it('keeps the best so far in trial order, either direction', () => {
    expect(bestSoFar(trials, 'maximize')).toEqual([0.7, 0.7, 0.7, 0.9]);
    expect(bestSoFar(trials, 'minimize')).toEqual([0.7, 0.5, 0.5, 0.5]);
  });

  it('plots every final value and the best line', () => {
    const o = progressOption(trials, 'maximize', L);
    expect(o.series[1].data).toEqual([[1, 0.7], [2, 0.5], [4, 0.9]]);
    expect(o.series[0].data).toEqual([[1, 0.7], [2, 0.7], [3, 0.7], [4, 0.9]]);
  });

  it('names nested parameters and sets category axes for options', () => {
    expect(paramColumns(trials)).toEqual(['lr', 'm.C', 'm._name']);
    const o = parallelOption(trials, L);
    expect(o.parallelAxis.map((a) => a.type)).toEqual(['value', 'value', 'category', 'value']);
    expect(o.series[0].data).toEqual([[0.1, 1, 'svm', 0.5], [0.01, undefined, 'tree', 0.7], [0.05, 10, 'svm', 0.9]]);
    expect(o.visualMap).toMatchObject({ min: 0.5, max: 0.9, dimension: 3 });
  });
});
