import { knownOutputs, outputRef, upstreamOutputs, withRef } from './outputRefs';
import type { PipelineRun } from './types';

describe('upstream output references', () => {
  it('lists the tasks before one, with the keys the last run recorded', () => {
    const run = { metadata: { name: 'r' }, spec: { pipeline: 'p', tasks: [] },
      status: { tasks: { split: { outputs: { train_csv: 'a', test_csv: 'b' } }, load: { outputs: {} } } } } as PipelineRun;
    const edges = [{ source: 'load', target: 'split' }, { source: 'split', target: 'train' }, { source: 'load', target: 'train' }];
    expect(upstreamOutputs('train', edges, knownOutputs(run))).toEqual([
      { task: 'load', keys: [] },
      { task: 'split', keys: ['test_csv', 'train_csv'] },
    ]);
    expect(upstreamOutputs('load', edges, {})).toEqual([]);
    expect(knownOutputs(null)).toEqual({});
  });

  it('writes the reference the server renders, after what the field holds', () => {
    expect(outputRef('split', 'train_csv')).toBe('{{ tasks.split.outputs.train_csv }}');
    expect(withRef('', '{{ x }}')).toBe('{{ x }}');
    expect(withRef(undefined, '{{ x }}')).toBe('{{ x }}');
    expect(withRef('--in ', '{{ x }}')).toBe('--in {{ x }}');
  });
});
