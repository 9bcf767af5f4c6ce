// families.ts — grouping versions into families, and what the pages show
// of a version (pure: tested in families.test.ts).
import type { Family, Model, ModelSource } from './types';

const version = (m: Model) => m.spec?.version ?? 0;

/** The project's models grouped by family (spec.name), families by name,
 *  versions newest first. */
export function families(models: Model[]): Family[] {
  const by = new Map<string, Model[]>();
  for (const m of models) {
    const f = m.spec?.name ?? m.metadata.name;
    by.set(f, [...(by.get(f) ?? []), m]);
  }
  return [...by.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, vs]) => {
      const versions = [...vs].sort((a, b) => version(b) - version(a));
      return { name, versions, latest: versions[0], production: versions.find((v) => v.status?.stage === 'production') };
    });
}

/** The metric names of the versions, in first-seen order. */
export function metricNames(versions: Model[]): string[] {
  const out: string[] = [];
  for (const v of versions)
    for (const k of Object.keys(v.spec?.metrics ?? {})) if (!out.includes(k)) out.push(k);
  return out;
}

/** Numeric metrics only: the ones a chart can draw. */
export function numericMetricNames(versions: Model[]): string[] {
  return metricNames(versions).filter((k) => versions.some((v) => typeof v.spec?.metrics?.[k] === 'number'));
}

/** A bar chart (ECharts option) of every numeric metric side by side,
 *  one series per version, oldest first. */
export function metricsOption(versions: Model[], label: (v: Model) => string): object {
  const names = numericMetricNames(versions);
  const ordered = [...versions].sort((a, b) => version(a) - version(b));
  const values = ordered.flatMap((v) => names.map((k) => v.spec?.metrics?.[k]))
    .filter((x): x is number => typeof x === 'number');
  return {
    tooltip: { trigger: 'axis' },
    legend: { type: 'scroll' },
    grid: { left: 48, right: 16, top: 40, bottom: 32 },
    xAxis: { type: 'category', data: names },
    yAxis: { type: 'value', min: axisMin(values) },
    series: ordered.map((v) => ({
      name: label(v),
      type: 'bar',
      data: names.map((k) => {
        const x = v.spec?.metrics?.[k];
        return typeof x === 'number' ? x : null;
      }),
    })),
  };
}

/** Where the value axis starts: 0 when the values are far from it, else
 *  a quarter of their spread below the least, so the least bar shows and
 *  close scores (0.91 against 0.96) still differ visibly. */
export function axisMin(values: number[]): number {
  if (!values.length) return 0;
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const spread = hi - lo || Math.abs(lo) || 1;
  if (lo >= 0 && lo <= spread) return 0;
  return Number((lo - spread / 4).toPrecision(3));
}

/** Bytes as "12.3 MiB". */
export function fmtBytes(n?: number): string {
  if (n === undefined || n === null) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(v < 10 ? 2 : 1)} ${units[i]}`;
}

/** A metric value for a table cell. */
export function fmtMetric(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toPrecision(4);
  return v === undefined || v === null ? '—' : String(v);
}

/** The console path of what produced a version (its lineage), or null. */
export function sourcePath(project: string, s?: ModelSource): string | null {
  if (!s?.name) return null;
  const p = encodeURIComponent(project);
  const n = encodeURIComponent(s.name);
  switch (s.kind) {
    case 'PipelineRun':
      if (s.pipeline) return `/p/${p}/pipelines/${encodeURIComponent(s.pipeline)}/runs/${n}`;
      return s.job ? `/p/${p}/jobs/${encodeURIComponent(s.job)}` : null;
    case 'Experiment':
      return `/p/${p}/experiments/${n}`;
    case 'Notebook':
      return `/p/${p}/notebooks/${n}`;
    default:
      return `/p/${p}/jobs/${n}`;
  }
}

/** "run daily-7 · task train" and the like. */
export function sourceText(s?: ModelSource): string {
  if (!s) return '—';
  const parts = [`${s.kind} ${s.name}`];
  if (s.task) parts.push(`task ${s.task}`);
  if (s.trial) parts.push(`trial ${s.trial}`);
  return parts.join(' · ');
}

/** A family name from a file name, as the SDK makes one. */
export function familyOf(fileName: string): string {
  const base = fileName.split('/').pop()!.split('.')[0].toLowerCase();
  const name = base.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 54).replace(/-+$/, '');
  return name || 'model';
}
