import { stringify } from 'yaml';
import { importPipeline, ImportError } from './porting';
import type { Pipeline } from './types';

const p: Pipeline = {
  kind: 'Pipeline',
  metadata: { name: 'daily', project: 'p1', uid: 'u', resourceVersion: '9', labels: { team: 'a' } },
  spec: { schedule: '@daily', tasks: [{ name: 'a', template: 'custom-command', args: { '--command': 'echo "hi: there"' } }, { name: 'b', upstream: ['a'] }] },
  status: { lastRun: 'x' },
};

describe('import', () => {
  it('reads an exported document: name, labels and spec, nothing the server owns', () => {
    const text = stringify({ apiVersion: 'cube/v1', kind: 'Pipeline', metadata: { name: 'daily', labels: { team: 'a' } }, spec: p.spec });
    expect(importPipeline(text)).toEqual({ kind: 'Pipeline', metadata: { name: 'daily', labels: { team: 'a' } }, spec: p.spec });
    expect(importPipeline(text, 'other').metadata.name).toBe('other');
  });

  it('takes JSON and a bare spec with a name given apart', () => {
    expect(importPipeline(JSON.stringify({ tasks: [{ name: 'x' }] }), 'n').spec).toEqual({ tasks: [{ name: 'x' }] });
  });

  it('says what is missing', () => {
    expect(() => importPipeline('tasks: [{name: x}]')).toThrow('metadata.name missing');
    expect(() => importPipeline('metadata: {name: x}')).toThrow('spec.tasks missing');
    expect(() => importPipeline('a: [')).toThrow(ImportError);
  });
});
