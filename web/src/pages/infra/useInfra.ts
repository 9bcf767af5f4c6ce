// useInfra — loads what the nodes and pools pages need and reloads it every
// 10 s: GET /api/v1/nodes and /api/v1/pools (capacity and allocation from
// the scheduler), /metrics (device use), and the Jobs of the projects the
// user can see (for who holds which device). usePool adds a pool's queue.

import { useEffect, useState } from 'react';
import { api, apiFetch, errorMessage } from '../../api/client';
import type { CubeObject, ObjectList } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { buildInventory, buildPools, parseMetrics, type ApiNode, type ApiPool, type NodeRow, type PoolRow } from './inventory';

const REFRESH_MS = 10000;
const MAX_PROJECTS = 50;

export interface Infra {
  nodes: NodeRow[];
  pools: PoolRow[];
  projectsShown: number;
}

async function listOrEmpty(path: string): Promise<CubeObject[]> {
  return (await api.get<ObjectList>(path)).items ?? [];
}

async function projectNames(isAdmin: boolean, mine: string[]): Promise<string[]> {
  if (!isAdmin) return mine;
  try {
    return (await listOrEmpty('/api/v1/projects')).map((p) => p.metadata.name);
  } catch {
    return mine;
  }
}

export async function loadInfra(isAdmin: boolean, mine: string[]): Promise<Infra> {
  const [nodes, pools, metricsText, names] = await Promise.all([
    api.get<{ items: ApiNode[] }>('/api/v1/nodes'),
    api.get<{ items: ApiPool[] }>('/api/v1/pools'),
    apiFetch('/metrics', { headers: { Accept: 'text/plain' } }).then((r) => (r.ok ? r.text() : '')),
    projectNames(isAdmin, mine),
  ]);
  const shown = names.slice(0, MAX_PROJECTS);
  const jobLists = await Promise.all(
    shown.map((p) => listOrEmpty(`/api/v1/projects/${encodeURIComponent(p)}/jobs`).catch(() => [])),
  );
  const rows = buildInventory(nodes.items ?? [], jobLists.flat(), parseMetrics(metricsText));
  return { nodes: rows, pools: buildPools(pools.items ?? [], rows), projectsShown: shown.length };
}

/** Calls load now and every REFRESH_MS while mounted. */
function usePolled<T>(load: () => Promise<T>, deps: unknown[]): { data?: T; error?: string } {
  const [st, setSt] = useState<{ data?: T; error?: string }>({});
  useEffect(() => {
    let live = true;
    const run = () =>
      load().then(
        (data) => live && setSt({ data }),
        (e) => live && setSt((s) => ({ ...s, error: errorMessage(e) })),
      );
    void run();
    const timer = setInterval(run, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return st;
}

export function useInfra(): { data?: Infra; error?: string } {
  const { isAdmin, me } = useAuth();
  const mine = (me?.projects ?? []).map((p) => p.name).join(',');
  return usePolled(() => loadInfra(isAdmin, mine ? mine.split(',') : []), [isAdmin, mine]);
}

/** One pool with its queue (GET /api/v1/pools/{name}). */
export function usePool(name: string): { data?: ApiPool; error?: string } {
  return usePolled(() => api.get<ApiPool>(`/api/v1/pools/${encodeURIComponent(name)}`), [name]);
}
