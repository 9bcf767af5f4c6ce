import { describe, expect, it } from 'vitest';
import { checkJobForm, formFieldOf, formFromJob, humanMessage, jobFromForm, JOB_DEFAULTS, shellJoin, shellSplit, SplitError } from './jobForm';

describe('shellSplit', () => {
  it('splits words as a shell does, without expanding', () => {
    expect(shellSplit('python3 train.py  --lr 0.01')).toEqual(['python3', 'train.py', '--lr', '0.01']);
    expect(shellSplit(`echo "run 1" 'it''s' a\\ b`)).toEqual(['echo', 'run 1', 'its', 'a b']);
    expect(shellSplit(`sh -c 'echo $HOME; ls'`)).toEqual(['sh', '-c', 'echo $HOME; ls']);
    expect(shellSplit(`echo "a \\"q\\" \\$x \\n"`)).toEqual(['echo', 'a "q" $x \\n']);
    expect(shellSplit(`echo ''`)).toEqual(['echo', '']);
    expect(shellSplit('   ')).toEqual([]);
  });

  it('refuses what a shell would not accept', () => {
    expect(() => shellSplit(`echo 'open`)).toThrow(SplitError);
    expect(() => shellSplit(`echo "open`)).toThrow(/double/);
    expect(() => shellSplit('echo \\')).toThrow(/backslash/);
  });

  it('joins words back so that they split the same', () => {
    const words = ['python3', '-c', "print('hi there')", '', 'a"b'];
    expect(shellSplit(shellJoin(words))).toEqual(words);
  });
});

describe('the Job form', () => {
  const base = { ...JOB_DEFAULTS, name: 'train-1', commandLine: 'python3 train.py --name "run 1"' };

  it('makes a Job with default resources and units', () => {
    expect(jobFromForm(base)).toEqual({
      apiVersion: 'cube/v1',
      kind: 'Job',
      metadata: { name: 'train-1' },
      spec: { command: ['python3', 'train.py', '--name', 'run 1'], resources: { cpu: '1', memory: '2Gi' } },
    });
  });

  it('runs a script with /bin/sh -c and keeps env rows, devices and the rest', () => {
    const job = jobFromForm({
      ...base, commandMode: 'script', script: 'set -e\necho hi\n', cpu: 0.5, memory: 1.5, memoryUnit: 'Gi',
      devices: [{ resource: 'nvidia.com/gpu', count: 0.25 }], env: [{ name: 'LR', value: '0.1' }, { name: 'EMPTY' }],
      replicas: 2, pool: 'train', priority: 'high', timeoutMinutes: 90, retries: 2, distributed: 'pytorch',
    });
    expect(job.spec).toEqual({
      command: ['/bin/sh', '-c', 'set -e\necho hi\n'],
      resources: { cpu: '0.5', memory: '1536Mi', 'nvidia.com/gpu': 0.25 },
      replicas: 2, env: { LR: '0.1', EMPTY: '' }, pool: 'train', priority: 'high', timeoutSeconds: 5400,
      retries: { limit: 2 }, distributed: 'pytorch',
    });
    // and back (the YAML mode's round trip)
    const again = formFromJob(job);
    expect(again).toMatchObject({ commandMode: 'script', script: 'set -e\necho hi\n', cpu: 0.5, memory: 1536, memoryUnit: 'Mi', replicas: 2 });
    expect(jobFromForm(again).spec).toEqual(job.spec);
  });

  it('says what is wrong in words, field by field, in form order', () => {
    const probs = checkJobForm({
      ...base, name: 'Bad_Name', commandLine: `echo 'x`, cpu: 0,
      devices: [{ resource: '', count: 1 }, { resource: 'nvidia.com/gpu', count: 1.5 }],
      env: [{ name: '1X' }, { name: 'A' }, { name: 'A' }],
    });
    expect(probs.map((p) => [p.field.join('.'), p.key])).toEqual([
      ['name', 'jobs.form.err.name'],
      ['commandLine', 'jobs.form.err.split.single'],
      ['cpu', 'jobs.form.err.cpu'],
      ['devices.0.resource', 'jobs.form.err.deviceResource'],
      ['devices.1.count', 'jobs.form.err.deviceShare'],
      ['env.0.name', 'jobs.form.err.envName'],
      ['env.2.name', 'jobs.form.err.envDuplicate'],
    ]);
    expect(checkJobForm({ ...JOB_DEFAULTS }).map((p) => p.key)).toEqual(['jobs.form.err.nameRequired', 'jobs.form.err.commandRequired']);
    expect(checkJobForm(base)).toEqual([]);
  });

  it('puts a server error on the field it names', () => {
    const v = { ...base, devices: [{ resource: 'nvidia.com/gpu', count: 9 }], env: [{ name: 'X', value: '' }] };
    expect(formFieldOf('spec.command[0]', v)).toEqual(['commandLine']);
    expect(formFieldOf('spec.resources.memory', v)).toEqual(['memory']);
    expect(formFieldOf('spec.resources.nvidia.com/gpu', v)).toEqual(['devices', 0, 'count']);
    expect(formFieldOf('spec.env.X', v)).toEqual(['env', 0, 'name']);
    expect(formFieldOf('metadata.name', v)).toEqual(['name']);
    expect(formFieldOf('spec.mounts', v)).toBeNull();
    expect(humanMessage('spec.pool', 'spec.pool: no node serves pool "x"')).toBe('No node serves pool "x"');
  });
});
