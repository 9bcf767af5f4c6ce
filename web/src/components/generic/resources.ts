// resources.ts — the shapes of GET /api/v1/kinds and of resource objects,
// the kind registry (fetched once per page load), and small helpers the
// generic pages share (printer-column paths, ages, phase colours).

import { useEffect, useState } from 'react';
import { api } from '../../api/client';
import type { KindInfo } from '../../api/types';
import type { JsonSchema } from './schema';

export type { CubeObject as Resource, ObjectList as ResourceList, KindInfo, PrinterColumn } from '../../api/types';

/** The spec schema of a kind, typed for the form generator. */
export function specSchema(k: KindInfo | undefined): JsonSchema {
  return ((k?.schema as JsonSchema | undefined) ?? { type: 'object' });
}

let kindsPromise: Promise<KindInfo[]> | null = null;

/** The registered kinds (one request per page load; retried after a failure). */
export function loadKinds(): Promise<KindInfo[]> {
  if (!kindsPromise)
    kindsPromise = api
      .get<{ items: KindInfo[] }>('/api/v1/kinds')
      .then((d) => d.items ?? [])
      .catch((e) => {
        kindsPromise = null;
        throw e;
      });
  return kindsPromise;
}

/** Test hook: forget the cached kinds. */
export function resetKindsCache(): void {
  kindsPromise = null;
}

export interface KindsState {
  kinds?: KindInfo[];
  error?: unknown;
}

export function useKinds(): KindsState {
  const [st, setSt] = useState<KindsState>({});
  useEffect(() => {
    let live = true;
    loadKinds().then(
      (kinds) => live && setSt({ kinds }),
      (error) => live && setSt({ error }),
    );
    return () => {
      live = false;
    };
  }, []);
  return st;
}

/** The kind of a plural, from the registry. */
export function useKind(plural: string | undefined): KindsState & { kind?: KindInfo } {
  const st = useKinds();
  return { ...st, kind: st.kinds?.find((k) => k.plural === plural) };
}

/** Evaluates a printer column's simple JSONPath (".status.phase", ".a[0].b"). */
export function evalJsonPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  const re = /\.([^.[\]]+)|\[(\d+)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path)) !== null) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[m[2] !== undefined ? Number(m[2]) : m[1]];
  }
  return cur;
}

/** "3m", "2h", "5d" since an RFC 3339 time. */
export function age(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '';
  const s = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (Number.isNaN(s)) return '';
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** Tag colour of a phase or condition word. */
export function phaseColor(phase: unknown): string {
  switch (String(phase)) {
    case 'Succeeded':
    case 'Ready':
    case 'Running':
    case 'Active':
      return phase === 'Running' ? 'processing' : 'success';
    case 'Failed':
    case 'Error':
      return 'error';
    case 'Pending':
    case 'Admitted':
    case 'Queued':
      return 'warning';
    case 'Cancelled':
    case 'Stopped':
      return 'default';
    default:
      return 'default';
  }
}

/** A label selector string from "a=b" rows (empty rows dropped). */
export function labelsToText(labels: Record<string, string> | undefined): string {
  return Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

