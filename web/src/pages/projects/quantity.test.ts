import { describe, expect, it } from 'vitest';
import { formatQuantity, parseQuantity, usageByPool } from './quantity';
import { quotaRows } from './Quotas';

describe('quantities and quota use', () => {
  it('parses cubed quantities per resource', () => {
    expect(parseQuantity('500m', 'cpu')).toBe(0.5);
    expect(parseQuantity('2', 'cpu')).toBe(2);
    expect(parseQuantity(4, 'nvidia.com/gpu')).toBe(4);
    expect(parseQuantity('16Gi', 'memory')).toBe(16 * 2 ** 30);
    expect(parseQuantity('512M', 'memory')).toBe(512e6);
    expect(parseQuantity('2x', 'cpu')).toBeNaN();
    expect(parseQuantity('4Gi', 'cpu')).toBeNaN();
    expect(formatQuantity(16 * 2 ** 30, 'memory')).toBe('16Gi');
    expect(formatQuantity(0.25, 'nvidia.com/gpu')).toBe('0.25');
  });

  it('sums what admitted and running jobs hold, per pool, times replicas', () => {
    const job = (name: string, phase: string, spec: Record<string, unknown>) => ({ metadata: { name }, spec, status: { phase } });
    const use = usageByPool([
      job('a', 'Running', { replicas: 2, resources: { cpu: '500m', 'nvidia.com/gpu': 1 } }),
      job('b', 'Admitted', { pool: 'big', resources: { memory: '4Gi' } }),
      job('c', 'Pending', { resources: { cpu: '8' } }),
      job('d', 'Succeeded', { resources: { cpu: '8' } }),
    ]);
    expect(use).toEqual({ default: { cpu: 1, 'nvidia.com/gpu': 2 }, big: { memory: 4 * 2 ** 30 } });
    const rows = quotaRows({ guaranteed: { cpu: '2' }, max: { cpu: '4', 'nvidia.com/gpu': 4 } }, use.default);
    expect(rows).toEqual([
      { resource: 'cpu', used: 1, guaranteed: 2, max: 4 },
      { resource: 'nvidia.com/gpu', used: 2, guaranteed: NaN, max: 4 },
    ]);
  });
});
