// charts.ts — the service page's chart options from GET …/samples
// (columns t, rps, errors, p50, p99, inflight, ready; t in ms).
import type { Samples } from './types';

type T = (key: string) => string;

/** A line chart; the title alone on the top line, the legend under the
 *  plot (beside the title they overlap on a phone), time labels that would
 *  overlap left out, counts on whole-number ticks. Units are in the titles. */
function line(title: string, counts: boolean, t: number[], series: { name: string; data: number[] }[]) {
  return {
    title: { text: title, left: 0, top: 0, textStyle: { fontSize: 13 } },
    tooltip: { trigger: 'axis' },
    legend: { bottom: 0, left: 'center' },
    grid: { left: 8, right: 16, top: 32, bottom: 32, containLabel: true },
    xAxis: { type: 'time', axisLabel: { hideOverlap: true } },
    yAxis: { type: 'value', min: 0, ...(counts ? { minInterval: 1 } : {}) },
    animation: false,
    series: series.map((s) => ({
      name: s.name, type: 'line', showSymbol: false,
      data: s.data.map((v, i) => [t[i], Number.isFinite(v) ? Math.round(v * 1000) / 1000 : null]),
    })),
  };
}

/** Four charts: traffic (requests and errors per second), latency (p50,
 *  p99 in ms), requests in flight, ready replicas. */
export function chartOptions(s: Samples | null | undefined, t: T) {
  const ts = s?.t ?? [];
  return {
    traffic: line(t('serving.chart.traffic'), false, ts, [
      { name: t('serving.chart.rps'), data: s?.rps ?? [] },
      { name: t('serving.chart.errors'), data: s?.errors ?? [] }]),
    latency: line(t('serving.chart.latency'), false, ts, [
      { name: 'p50', data: s?.p50 ?? [] }, { name: 'p99', data: s?.p99 ?? [] }]),
    inflight: line(t('serving.chart.inflight'), true, ts, [{ name: t('serving.chart.inflight'), data: s?.inflight ?? [] }]),
    replicas: line(t('serving.chart.replicas'), true, ts, [{ name: t('serving.chart.ready'), data: s?.ready ?? [] }]),
  };
}
