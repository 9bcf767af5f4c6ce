// quantity.ts — resource quantities as cubed writes them ("2", "500m",
// "16Gi", 0.25) and the use of a project's quotas, computed from its Jobs.
//
// cubed exposes no per-project usage yet, so a pool's use is the sum, over
// the project's Jobs holding resources (phase Admitted or Running), of
// spec.resources × spec.replicas in the Job's pool (spec.pool, "default").
import type { CubeObject } from '../../api/types';

const BYTES: Record<string, number> = {
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50,
  k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15,
};

export function isMemory(resource: string): boolean {
  return /memory|storage/i.test(resource);
}

/** The value in base units (cores, bytes, devices), NaN when unreadable. */
export function parseQuantity(v: unknown, resource: string): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return NaN;
  const m = v.trim().match(/^([0-9]*\.?[0-9]+)([A-Za-z]*)$/);
  if (!m) return NaN;
  const n = Number(m[1]);
  const unit = m[2];
  if (!unit) return n;
  if (isMemory(resource)) return unit in BYTES ? n * BYTES[unit] : NaN;
  return unit === 'm' ? n / 1000 : NaN;
}

/** A readable quantity: memory in Gi/Mi, others as plain numbers. */
export function formatQuantity(n: number, resource: string): string {
  if (!Number.isFinite(n)) return '?';
  const round = (x: number) => String(Math.round(x * 100) / 100);
  if (isMemory(resource)) {
    if (n >= 2 ** 30) return `${round(n / 2 ** 30)}Gi`;
    if (n >= 2 ** 20) return `${round(n / 2 ** 20)}Mi`;
    return `${round(n)}`;
  }
  return round(n);
}

export const HOLDING_PHASES = ['Admitted', 'Running'];

interface JobSpec {
  replicas?: number;
  pool?: string;
  resources?: Record<string, unknown>;
}

/** pool -> resource -> amount held by the given jobs. */
export function usageByPool(jobs: CubeObject[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const j of jobs) {
    const phase = (j.status as { phase?: string } | undefined)?.phase;
    if (!phase || !HOLDING_PHASES.includes(phase)) continue;
    const spec = (j.spec ?? {}) as JobSpec;
    const pool = spec.pool || 'default';
    const replicas = spec.replicas ?? 1;
    for (const [r, v] of Object.entries(spec.resources ?? {})) {
      const q = parseQuantity(v, r);
      if (!Number.isFinite(q)) continue;
      out[pool] ??= {};
      out[pool][r] = (out[pool][r] ?? 0) + q * replicas;
    }
  }
  return out;
}
