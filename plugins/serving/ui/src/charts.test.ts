import { describe, expect, it } from 'vitest';
import { chartOptions } from './charts';

describe('chartOptions', () => {
  it('pairs every column with its time', () => {
    const o = chartOptions({ t: [1000, 6000], rps: [2, 4.12345], errors: [0, 1], p50: [1, 2], p99: [3, 4],
      inflight: [0, 2], ready: [1, 2] }, (k) => k);
    expect(o.traffic.series[0].data).toEqual([[1000, 2], [6000, 4.123]]);
    expect(o.traffic.series[1].data[1]).toEqual([6000, 1]);
    expect(o.latency.series.map((s) => s.name)).toEqual(['p50', 'p99']);
    expect(o.replicas.series[0].data).toEqual([[1000, 1], [6000, 2]]);
  });
  it('keeps the legend off the title line and time labels apart', () => {
    const o = chartOptions(null, (k) => k);
    for (const c of [o.traffic, o.latency, o.inflight, o.replicas]) {
      expect(c.legend).toEqual({ bottom: 0, left: 'center' });
      expect(c.xAxis.axisLabel.hideOverlap).toBe(true);
      expect(c.yAxis).not.toHaveProperty('name');
    }
    expect(o.replicas.yAxis.minInterval).toBe(1);
    expect(o.latency.yAxis).not.toHaveProperty('minInterval');
  });
  it('draws empty charts before the first sample', () => {
    expect(chartOptions(null, (k) => k).inflight.series[0].data).toEqual([]);
  });
});
