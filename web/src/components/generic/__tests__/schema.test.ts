import { defaultsFor, fieldKind, fromFormValues, toFormValues, type JsonSchema } from '../schema';
import { formNameForField, parseFieldPath } from '../fieldPath';
import { objectToYaml, yamlToObject } from '../yamlText';

const TASKS: JsonSchema = {
  type: 'object',
  required: ['command'],
  properties: {
    replicas: { type: 'integer', default: 1 },
    command: { type: 'array', minItems: 1, items: { type: 'string' } },
    priority: { enum: ['high', 'normal', 'low'], default: 'normal' },
    retries: { type: 'object', properties: { limit: { type: 'integer', default: 0 } } },
    resources: { type: 'object', additionalProperties: { anyOf: [{ type: 'number' }, { type: 'string' }] } },
    tasks: { type: 'array', items: { type: 'object', properties: { retries: { type: 'integer' } } } },
    extra: { type: 'object' },
  },
};
const ROOT: JsonSchema = { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string' } } }, spec: TASKS } };

describe('schema kinds', () => {
  it('classifies each node', () => {
    const p = TASKS.properties!;
    expect(fieldKind(p.replicas)).toBe('integer');
    expect(fieldKind(p.command)).toBe('array');
    expect(fieldKind(p.priority)).toBe('enum');
    expect(fieldKind(p.retries)).toBe('object');
    expect(fieldKind(p.resources)).toBe('map');
    expect(fieldKind(p.resources.additionalProperties as JsonSchema)).toBe('union');
    expect(fieldKind(p.extra)).toBe('json');
  });
});

describe('defaults', () => {
  it('fills defaults, nested objects and minItems', () => {
    expect(defaultsFor(TASKS)).toEqual({ replicas: 1, command: [''], priority: 'normal', retries: { limit: 0 } });
  });
});

describe('form values', () => {
  const obj = { replicas: 2, command: ['python3', 'x.py'], resources: { cpu: '2', 'nvidia.com/gpu': 1 }, extra: { a: 1 } };
  it('turns maps into rows and back, coercing union numbers', () => {
    const fv = toFormValues(TASKS, obj) as Record<string, unknown>;
    expect(fv.resources).toEqual([
      { key: 'cpu', value: '2' },
      { key: 'nvidia.com/gpu', value: 1 },
    ]);
    expect(fv.extra).toBe('{\n  "a": 1\n}');
    expect(fromFormValues(TASKS, fv)).toEqual({ ...obj, resources: { cpu: 2, 'nvidia.com/gpu': 1 } });
  });
  it('drops empty inputs and names a bad JSON field', () => {
    expect(fromFormValues(TASKS, { command: ['a', ''], priority: undefined, replicas: null })).toEqual({ command: ['a'] });
    expect(() => fromFormValues(TASKS, { extra: '{' }, 'spec')).toThrow(/spec\.extra/);
  });
});

describe('field paths', () => {
  it('parses indexes', () => {
    expect(parseFieldPath('spec.tasks[2].retries')).toEqual(['spec', 'tasks', 2, 'retries']);
  });
  it('maps server paths to form names', () => {
    const values = toFormValues(ROOT, { metadata: { name: 'a' }, spec: { resources: { cpu: '1', 'nvidia.com/gpu': 2 }, tasks: [{}, {}, {}] } });
    expect(formNameForField('spec.tasks[2].retries', ROOT, values)).toEqual(['spec', 'tasks', 2, 'retries']);
    expect(formNameForField('spec.resources.nvidia.com/gpu', ROOT, values)).toEqual(['spec', 'resources', 1, 'value']);
    expect(formNameForField('spec.resources.cpu', ROOT, values)).toEqual(['spec', 'resources', 0, 'value']);
    expect(formNameForField('spec.command', ROOT, values)).toEqual(['spec', 'command']);
    expect(formNameForField('metadata.name', ROOT, values)).toEqual(['metadata', 'name']);
    expect(formNameForField('status.x', ROOT, values)).toBeUndefined();
  });
});

describe('YAML', () => {
  it('round-trips an object without server metadata', () => {
    const obj = {
      apiVersion: 'cube/v1',
      kind: 'Job',
      metadata: { name: 'j', labels: { a: 'b' }, uid: 'u', resourceVersion: '4', created: 'x' },
      spec: { command: ['sh', '-c', 'echo "hi: there"'], resources: { 'nvidia.com/gpu': 0.5 } },
      status: { phase: 'Running' },
    };
    const back = yamlToObject(objectToYaml(obj));
    expect(back).toEqual({
      apiVersion: 'cube/v1',
      kind: 'Job',
      metadata: { name: 'j', labels: { a: 'b' }, resourceVersion: '4' },
      spec: obj.spec,
    });
  });
  it('refuses what is not an object', () => {
    expect(() => yamlToObject('- a')).toThrow();
    expect(() => yamlToObject('a: [')).toThrow();
  });
});

describe('YAML field lines', () => {
  const text = 'metadata:\n  name: j\nspec:\n  command:\n    - a\n  retries:\n    limit: x\n  tasks:\n    - retries: 1\n    - retries: 2\n';
  it('finds the line of a field path, or of its nearest parent', async () => {
    const { lineOfField } = await import('../yamlText');
    expect(lineOfField(text, 'spec.retries.limit')).toBe(7);
    expect(lineOfField(text, 'spec.tasks[1].retries')).toBe(10);
    expect(lineOfField(text, 'spec.retries.backoff')).toBe(7);
    expect(lineOfField(text, 'status.x')).toBeUndefined();
  });
});
