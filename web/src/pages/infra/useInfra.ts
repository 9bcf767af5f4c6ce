// useInfra — loads what the nodes and pools pages need and reloads it every
// 10 s: Node and Pool objects (when those kinds exist), /metrics, and the
// Jobs of the projects the user can see (for who holds which device).

import { useEffect, useState } from 'react';
import { api, apiFetch, errorMessage } from '../../api/client';
import type { CubeObject, ObjectList } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { loadKinds } from '../../components/generic/resources';
import { buildInventory, buildPools, parseMetrics, type NodeRow, type PoolRow } from './inventory';

const REFRESH_MS = 10000;
const MAX_PROJECTS = 50;

export interface Infra {
  nodes: NodeRow[];
  pools: PoolRow[];
  /** Node kind registered: the node list is the platform's, not inferred. */
  nodeKind: boolean;
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
  const kinds = await loadKinds();
  const has = (k: string) => kinds.some((x) => x.kind === k && x.scope === 'cluster');
  const [nodes, pools, metricsText, names] = await Promise.all([
    has('Node') ? listOrEmpty(`/api/v1/${kinds.find((k) => k.kind === 'Node')!.plural}`) : Promise.resolve([]),
    has('Pool') ? listOrEmpty(`/api/v1/${kinds.find((k) => k.kind === 'Pool')!.plural}`) : Promise.resolve([]),
    apiFetch('/metrics', { headers: { Accept: 'text/plain' } }).then((r) => (r.ok ? r.text() : '')),
    projectNames(isAdmin, mine),
  ]);
  const shown = names.slice(0, MAX_PROJECTS);
  const jobLists = await Promise.all(
    shown.map((p) => listOrEmpty(`/api/v1/projects/${encodeURIComponent(p)}/jobs`).catch(() => [])),
  );
  const jobs = jobLists.flat();
  const rows = buildInventory(nodes, jobs, parseMetrics(metricsText));
  return { nodes: rows, pools: buildPools(rows, jobs, pools), nodeKind: has('Node'), projectsShown: shown.length };
}

export function useInfra(): { data?: Infra; error?: string } {
  const { isAdmin, me } = useAuth();
  const [st, setSt] = useState<{ data?: Infra; error?: string }>({});
  const mine = (me?.projects ?? []).map((p) => p.name).join(',');
  useEffect(() => {
    let live = true;
    const load = () =>
      loadInfra(isAdmin, mine ? mine.split(',') : []).then(
        (data) => live && setSt({ data }),
        (e) => live && setSt((s) => ({ ...s, error: errorMessage(e) })),
      );
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [isAdmin, mine]);
  return st;
}
