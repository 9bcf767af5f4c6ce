import { describe, expect, it } from 'vitest';
import { axisMin, families, familyOf, fmtBytes, metricNames, metricsOption, sourcePath } from './families';
import type { Model } from './types';

const m = (name: string, family: string, version: number, metrics: Record<string, number | string>, stage = 'none'): Model => ({
  apiVersion: 'cube/v1', kind: 'Model', metadata: { name, project: 'lab' },
  spec: { name: family, version, framework: 'sklearn', metrics }, status: { stage: stage as 'none' },
} as Model);

describe('families', () => {
  const all = [m('iris-v1', 'iris', 1, { acc: 0.9 }), m('net-v1', 'net', 1, {}), m('iris-v3', 'iris', 3, { acc: 0.95, f1: 0.9, note: 'x' }, 'production'),
    m('iris-v2', 'iris', 2, { f1: 0.8 })];

  it('groups versions by family, newest first, with the production one', () => {
    const fs = families(all);
    expect(fs.map((f) => f.name)).toEqual(['iris', 'net']);
    expect(fs[0].versions.map((v) => v.metadata.name)).toEqual(['iris-v3', 'iris-v2', 'iris-v1']);
    expect(fs[0].production?.metadata.name).toBe('iris-v3');
    expect(fs[1].production).toBeUndefined();
  });

  it('charts numeric metrics side by side, one series per version, oldest first', () => {
    const fs = families(all);
    expect(metricNames(fs[0].versions)).toEqual(['acc', 'f1', 'note']);
    const o = metricsOption(fs[0].versions, (v) => `v${v.spec?.version}`) as {
      xAxis: { data: string[] }; series: { name: string; data: (number | null)[] }[];
    };
    expect(o.xAxis.data).toEqual(['acc', 'f1']);
    expect(o.series.map((s) => s.name)).toEqual(['v1', 'v2', 'v3']);
    expect(o.series.map((s) => s.data)).toEqual([[0.9, null], [null, 0.8], [0.95, 0.9]]);
  });

  it('starts the value axis below the least bar', () => {
    expect(axisMin([0.91, 0.96, 0.89, 0.94])).toBeCloseTo(0.873, 6);
    expect(axisMin([0.2, 3])).toBe(0);
    expect(axisMin([5, 5])).toBe(0);
    expect(axisMin([100, 101])).toBe(99.8);
    expect(axisMin([-2, -1])).toBe(-2.25);
    expect(axisMin([])).toBe(0);
  });

  it('links a version to what made it', () => {
    expect(sourcePath('lab', { kind: 'PipelineRun', name: 'r 1', pipeline: 'daily' })).toBe('/p/lab/pipelines/daily/runs/r%201');
    expect(sourcePath('lab', { kind: 'PipelineRun', name: 'r', job: 'r-train' })).toBe('/p/lab/jobs/r-train');
    expect(sourcePath('lab', { kind: 'Experiment', name: 'tune', trial: 3 })).toBe('/p/lab/experiments/tune');
    expect(sourcePath('lab', { kind: 'Job', name: 'train' })).toBe('/p/lab/jobs/train');
    expect(sourcePath('lab', undefined)).toBeNull();
  });

  it('formats sizes and names families like the SDK', () => {
    expect(fmtBytes(512)).toBe('512 B');
    expect(fmtBytes(1536)).toBe('1.50 KiB');
    expect(fmtBytes(undefined)).toBe('—');
    expect(familyOf('out/My Model_v2.tar.gz')).toBe('my-model-v2');
  });
});
