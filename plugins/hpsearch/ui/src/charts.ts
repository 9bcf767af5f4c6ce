// charts.ts — the experiment page's ECharts options, built from its trials:
// the best value so far with every trial's final value, intermediate
// curves of selected trials, and parameters against the value (parallel
// coordinates). Pure: tested without a browser.
import type { Direction, Trial } from './types';

type Labels = { trial: string; value: string; best: string; step: string };

/** The best final value after each trial (in trial order), null until one. */
export function bestSoFar(trials: Trial[], direction: Direction): (number | null)[] {
  let best: number | null = null;
  return [...trials].sort((a, b) => a.trial - b.trial).map((t) => {
    if (t.value !== null && Number.isFinite(t.value) &&
        (best === null || (direction === 'maximize' ? t.value > best : t.value < best)))
      best = t.value;
    return best;
  });
}

export function progressOption(trials: Trial[], direction: Direction, l: Labels) {
  const sorted = [...trials].sort((a, b) => a.trial - b.trial);
  const best = bestSoFar(sorted, direction);
  return {
    tooltip: { trigger: 'axis' },
    legend: { data: [l.best, l.value] },
    xAxis: { type: 'value', name: l.trial, minInterval: 1 },
    yAxis: { type: 'value', name: l.value, scale: true },
    series: [
      { name: l.best, type: 'line', step: 'end', showSymbol: false,
        data: sorted.map((t, i) => [t.trial, best[i]]).filter((p) => p[1] !== null) },
      { name: l.value, type: 'scatter', symbolSize: 7,
        data: sorted.filter((t) => t.value !== null).map((t) => [t.trial, t.value]) },
    ],
  };
}

export function curvesOption(trials: Trial[], l: Labels) {
  return {
    tooltip: { trigger: 'axis' },
    legend: { type: 'scroll', data: trials.map((t) => `#${t.trial}`) },
    xAxis: { type: 'value', name: l.step, minInterval: 1 },
    yAxis: { type: 'value', name: l.value, scale: true },
    series: trials.map((t) => ({ name: `#${t.trial}`, type: 'line', data: t.intermediate ?? [] })),
  };
}

/** The parameter names of the trials, nested ones as "model._name", "model.C". */
export function paramColumns(trials: Trial[]): string[] {
  const names = new Set<string>();
  const walk = (prefix: string, o: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(o)) {
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) walk(`${prefix}${k}.`, v as Record<string, unknown>);
      else names.add(prefix + k);
    }
  };
  trials.forEach((t) => walk('', t.parameters ?? {}));
  return [...names].sort();
}

/** A parameter of a trial by its column name ("model.C"). */
export function paramOf(t: Trial, column: string): unknown {
  let v: unknown = t.parameters;
  for (const part of column.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  return v;
}

export function parallelOption(trials: Trial[], l: Labels) {
  const cols = paramColumns(trials);
  const done = trials.filter((t) => t.value !== null);
  const axes = cols.map((c, dim) => {
    const values = done.map((t) => paramOf(t, c)).filter((v) => v !== undefined);
    const numeric = values.every((v) => typeof v === 'number');
    return numeric ? { dim, name: c, type: 'value', scale: true }
      : { dim, name: c, type: 'category', data: [...new Set(values.map((v) => String(v)))].sort() };
  });
  const values = done.map((t) => t.value as number);
  return {
    parallelAxis: [...axes, { dim: cols.length, name: l.value, type: 'value', scale: true }],
    visualMap: values.length ? { min: Math.min(...values), max: Math.max(...values), dimension: cols.length,
      calculable: true, precision: 3, right: 0, inRange: { color: ['#d94e5d', '#eac736', '#50a3ba'] } } : undefined,
    series: [{ type: 'parallel', lineStyle: { width: 1.5, opacity: 0.6 },
      data: done.map((t) => [...cols.map((c, k) => {
        const v = paramOf(t, c);
        return axes[k].type === 'value' ? v : v === undefined ? null : String(v);
      }), t.value]) }],
  };
}
