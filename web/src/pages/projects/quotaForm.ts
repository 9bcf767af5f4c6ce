// quotaForm.ts — a project's quotas as the quota form edits them: one row
// per pool and resource with its guaranteed and max amounts (text such as
// "8", "500m", "64Gi"; empty: none), checked here, and the merge patch of
// spec.quotas that turns the stored quotas into the rows (pools and
// resources left out become null, so they are removed).
import { parseQuantity } from './quantity';

export interface QuotaRow {
  pool: string;
  resource: string;
  guaranteed?: string;
  max?: string;
}

type Amounts = Record<string, unknown>;
export type Quotas = Record<string, { guaranteed?: Amounts; max?: Amounts }>;

const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** The rows of stored quotas, by pool then resource. */
export function rowsOfQuotas(q: Quotas | undefined): QuotaRow[] {
  const rows: QuotaRow[] = [];
  for (const pool of Object.keys(q ?? {}).sort()) {
    const p = q![pool] ?? {};
    const names = new Set([...Object.keys(p.guaranteed ?? {}), ...Object.keys(p.max ?? {})]);
    for (const resource of [...names].sort())
      rows.push({ pool, resource, guaranteed: text(p.guaranteed?.[resource]), max: text(p.max?.[resource]) });
  }
  return rows;
}

export interface RowProblem {
  index: number;
  field: 'pool' | 'resource' | 'guaranteed' | 'max';
  key: string;
}

/** What is wrong with the rows (message keys of projects.quota.err.*). */
export function checkQuotaRows(rows: QuotaRow[]): RowProblem[] {
  const out: RowProblem[] = [];
  const seen = new Set<string>();
  rows.forEach((r, index) => {
    if (!r.pool) out.push({ index, field: 'pool', key: 'projects.quota.err.pool' });
    if (!r.resource) out.push({ index, field: 'resource', key: 'projects.quota.err.resource' });
    else if (seen.has(`${r.pool}\t${r.resource}`)) out.push({ index, field: 'resource', key: 'projects.quota.err.twice' });
    seen.add(`${r.pool}\t${r.resource}`);
    const g = r.guaranteed?.trim() ? parseQuantity(r.guaranteed.trim(), r.resource) : undefined;
    const m = r.max?.trim() ? parseQuantity(r.max.trim(), r.resource) : undefined;
    if (g !== undefined && !(g >= 0)) out.push({ index, field: 'guaranteed', key: 'projects.quota.err.amount' });
    if (m !== undefined && !(m >= 0)) out.push({ index, field: 'max', key: 'projects.quota.err.amount' });
    if (g === undefined && m === undefined && r.resource) out.push({ index, field: 'max', key: 'projects.quota.err.empty' });
    if (g !== undefined && m !== undefined && g >= 0 && m >= 0 && g > m)
      out.push({ index, field: 'guaranteed', key: 'projects.quota.err.overMax' });
  });
  return out;
}

/** An amount as the API takes it: numbers for plain counts, else the text. */
function amount(v: string): string | number {
  const s = v.trim();
  return /^\d+(\.\d+)?$/.test(s) ? Number(s) : s;
}

/** The merge patch of spec.quotas from `old` to the rows. */
export function quotaPatch(old: Quotas | undefined, rows: QuotaRow[]): Record<string, unknown> {
  const want: Record<string, { guaranteed: Record<string, unknown>; max: Record<string, unknown> }> = {};
  for (const r of rows) {
    const p = (want[r.pool] ??= { guaranteed: {}, max: {} });
    if (r.guaranteed?.trim()) p.guaranteed[r.resource] = amount(r.guaranteed);
    if (r.max?.trim()) p.max[r.resource] = amount(r.max);
  }
  const patch: Record<string, unknown> = {};
  for (const pool of Object.keys(old ?? {})) if (!want[pool]) patch[pool] = null;
  for (const [pool, p] of Object.entries(want)) {
    const was = old?.[pool] ?? {};
    const side = (k: 'guaranteed' | 'max') => {
      const o: Record<string, unknown> = {};
      for (const r of Object.keys(was[k] ?? {})) if (!(r in p[k])) o[r] = null;
      return Object.assign(o, p[k]);
    };
    patch[pool] = { guaranteed: side('guaranteed'), max: side('max') };
  }
  return patch;
}
