import { describe, expect, it } from 'vitest';
import { checkQuotaRows, quotaPatch, rowsOfQuotas } from './quotaForm';

const OLD = {
  default: { guaranteed: { cpu: '8' }, max: { cpu: 16, 'nvidia.com/gpu': 4 } },
  old: { max: { memory: '64Gi' } },
};

describe('the quota form', () => {
  it('shows one row per pool and resource', () => {
    expect(rowsOfQuotas(OLD)).toEqual([
      { pool: 'default', resource: 'cpu', guaranteed: '8', max: '16' },
      { pool: 'default', resource: 'nvidia.com/gpu', guaranteed: '', max: '4' },
      { pool: 'old', resource: 'memory', guaranteed: '', max: '64Gi' },
    ]);
    expect(rowsOfQuotas(undefined)).toEqual([]);
  });

  it('patches what changed and removes what was left out', () => {
    const patch = quotaPatch(OLD, [
      { pool: 'default', resource: 'cpu', guaranteed: '', max: '32' },
      { pool: 'train', resource: 'memory', guaranteed: '128Gi', max: '' },
    ]);
    expect(patch).toEqual({
      old: null,
      default: { guaranteed: { cpu: null }, max: { 'nvidia.com/gpu': null, cpu: 32 } },
      train: { guaranteed: { memory: '128Gi' }, max: {} },
    });
  });

  it('says what is wrong with a row', () => {
    const probs = checkQuotaRows([
      { pool: '', resource: 'cpu', max: '4' },
      { pool: 'default', resource: 'cpu', max: 'lots' },
      { pool: 'default', resource: 'cpu', max: '4' },
      { pool: 'default', resource: 'memory', guaranteed: '64Gi', max: '32Gi' },
      { pool: 'default', resource: 'nvidia.com/gpu' },
    ]);
    expect(probs.map((p) => [p.index, p.field, p.key])).toEqual([
      [0, 'pool', 'projects.quota.err.pool'],
      [1, 'max', 'projects.quota.err.amount'],
      [2, 'resource', 'projects.quota.err.twice'],
      [3, 'guaranteed', 'projects.quota.err.overMax'],
      [4, 'max', 'projects.quota.err.empty'],
    ]);
    expect(checkQuotaRows([{ pool: 'default', resource: 'cpu', guaranteed: '500m', max: '2' }])).toEqual([]);
  });
});
