// charts.ts — the service page's chart options from GET …/samples
// (columns t, rps, errors, p50, p99, inflight, ready; t in ms).
import type { Samples } from './types';

type T = (key: string) => string;

function line(title: string, unit: string, t: number[], series: { name: string; data: number[] }[]) {
  return {
    title: { text: title, textStyle: { fontSize: 13 } },
    tooltip: { trigger: 'axis' },
    legend: { top: 0, right: 0 },
    grid: { left: 48, right: 16, top: 36, bottom: 28 },
    xAxis: { type: 'time' },
    yAxis: { type: 'value', name: unit, min: 0 },
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
    traffic: line(t('serving.chart.traffic'), '/s', ts, [
      { name: t('serving.chart.rps'), data: s?.rps ?? [] },
      { name: t('serving.chart.errors'), data: s?.errors ?? [] }]),
    latency: line(t('serving.chart.latency'), 'ms', ts, [
      { name: 'p50', data: s?.p50 ?? [] }, { name: 'p99', data: s?.p99 ?? [] }]),
    inflight: line(t('serving.chart.inflight'), '', ts, [{ name: t('serving.chart.inflight'), data: s?.inflight ?? [] }]),
    replicas: line(t('serving.chart.replicas'), '', ts, [{ name: t('serving.chart.ready'), data: s?.ready ?? [] }]),
  };
}
