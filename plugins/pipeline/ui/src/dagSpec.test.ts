import { graphToSpec, locateError, locateField, specToGraph, uniqueTaskName, wouldCreateCycle, TASK_NAME_RE } from './dagSpec';
import type { PipelineTask } from './types';

const tasks: PipelineTask[] = [
  { name: 'import', template: 'data-import', args: { '--source': 'sklearn' }, layout: { x: 0, y: 0 } },
  { name: 'split', template: 'data-split', upstream: ['import'], retries: 2, layout: { x: 0, y: 120 } },
  { name: 'train', template: 'sklearn-lr', upstream: ['split'], env: { A: '1' }, layout: { x: 10, y: 240 } },
  { name: 'eval', template: 'model-evaluate', upstream: ['train', 'split'], layout: { x: 0, y: 360 } },
];

describe('spec <-> graph', () => {
  it('round-trips every task field', () => {
    const { nodes, edges } = specToGraph(tasks);
    expect(edges.map((e) => e.id)).toEqual(['import->split', 'split->train', 'train->eval', 'split->eval']);
    expect(graphToSpec(nodes, edges)).toEqual(tasks);
  });

  it('takes upstream from the edges and layout from the positions', () => {
    const { nodes, edges } = specToGraph(tasks);
    nodes[2].position = { x: 33.4, y: 250.6 };
    const out = graphToSpec(nodes, [...edges.filter((e) => e.id !== 'split->eval'), { id: 'import->eval', source: 'import', target: 'eval' }]);
    expect(out[2].layout).toEqual({ x: 33, y: 251 });
    expect(out[3].upstream).toEqual(['train', 'import']);
  });

  it('drops the upstream list of a task whose edges were removed, and dangling edges', () => {
    const { nodes } = specToGraph(tasks);
    const out = graphToSpec(nodes.slice(0, 2), [{ id: 'x', source: 'ghost', target: 'split' }]);
    expect(out[1]).not.toHaveProperty('upstream');
  });

  it('lays out tasks that have no position yet', () => {
    const { nodes } = specToGraph([{ name: 'a' }, { name: 'b', upstream: ['a'] }]);
    expect(nodes[1].position.y).toBeGreaterThan(nodes[0].position.y);
  });

  it('ignores upstreams naming no task', () => {
    expect(specToGraph([{ name: 'a', upstream: ['nope'] }]).edges).toEqual([]);
  });
});

describe('wouldCreateCycle', () => {
  const { edges } = specToGraph(tasks);
  it('refuses back edges and self-loops', () => {
    expect(wouldCreateCycle(edges, 'eval', 'import')).toBe(true);
    expect(wouldCreateCycle(edges, 'train', 'split')).toBe(true);
    expect(wouldCreateCycle(edges, 'split', 'split')).toBe(true);
  });
  it('allows forward edges', () => {
    expect(wouldCreateCycle(edges, 'import', 'eval')).toBe(false);
  });
});

describe('uniqueTaskName', () => {
  it('makes DNS labels unique with a counter', () => {
    expect(uniqueTaskName('sklearn-lr', ['sklearn-lr', 'sklearn-lr-2'])).toBe('sklearn-lr-3');
    expect(uniqueTaskName('My Template_1', [])).toBe('my-template-1');
    const long = uniqueTaskName('x'.repeat(60), ['x'.repeat(40)]);
    expect(long).toHaveLength(40);
    expect(long.endsWith('-2')).toBe(true);
    expect(TASK_NAME_RE.test(long)).toBe(true);
  });
});

describe('locateField', () => {
  it('finds the task and argument a server error names', () => {
    expect(locateField('spec.tasks[2].args.--C')).toEqual({ task: 2, arg: '--C' });
    expect(locateField('spec.tasks[0].args["--model_path"]')).toEqual({ task: 0, arg: '--model_path' });
    expect(locateField('spec.tasks[1].upstream')).toEqual({ task: 1, field: 'upstream' });
    expect(locateField('spec.schedule')).toEqual({ field: 'schedule' });
    expect(locateField(undefined)).toBeNull();
  });
});

describe('locateError', () => {
  it('strips the field prefix and finds the argument in the message when needed', () => {
    expect(locateError('spec.tasks[1].args.--C', 'spec.tasks[1].args.--C: 500 is outside the range 0,100'))
      .toEqual({ task: 1, arg: '--C', message: '500 is outside the range 0,100' });
    expect(locateError('spec.tasks[4].args', 'spec.tasks[4].args: --train_csv is required'))
      .toEqual({ task: 4, arg: '--train_csv', field: undefined, message: '--train_csv is required' });
    expect(locateError('spec.schedule', 'spec.schedule: minute: 61 is out of range'))
      .toEqual({ field: 'schedule', message: 'minute: 61 is out of range' });
    expect(locateError(undefined, 'conflict')).toEqual({ message: 'conflict' });
  });
});
