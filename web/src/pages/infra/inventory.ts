// inventory.ts — what the nodes and pools pages show, put together from
// what cubed exposes: Node and Pool objects when those kinds are registered,
// the device gauges of GET /metrics (cube_accel_utilization,
// cube_accel_memory_used_bytes), and the Jobs that hold devices (each
// replica's status names its node and devices).

import type { CubeObject } from '../../api/types';

/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses Prometheus text format (comments skipped, escapes in labels kept simple). */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  const line = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/;
  const label = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  for (const l of text.split('\n')) {
    if (!l || l.startsWith('#')) continue;
    const m = line.exec(l);
    if (!m) continue;
    const labels: Record<string, string> = {};
    let lm: RegExpExecArray | null;
    label.lastIndex = 0;
    while (m[3] && (lm = label.exec(m[3])) !== null) labels[lm[1]] = lm[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1], labels, value: Number(m[4]) });
  }
  return out;
}

const BIN: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50 };
const DEC: Record<string, number> = { m: 1e-3, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 };

/** "500m" -> 0.5, "4Gi" -> 4294967296, 2 -> 2; NaN when it does not parse. */
export function quantity(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return NaN;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$/.exec(v);
  if (!m) return NaN;
  const n = Number(m[1]);
  if (!m[2]) return n;
  const f = BIN[m[2]] ?? DEC[m[2]];
  return f === undefined ? NaN : n * f;
}

/** 4294967296 -> "4 GiB". */
export function bytes(n: number): string {
  if (!Number.isFinite(n)) return '';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${Number.isInteger(n) ? n : n.toFixed(1)} ${units[i]}`;
}

export interface DeviceRow {
  node: string;
  resource: string;
  id: string;
  model?: string;
  memory?: string;
  utilization?: number;
  memoryUsed?: number;
  healthy?: boolean;
  /** Jobs holding it: "project/job#replica" with the share held. */
  holders: { project: string; job: string; replica: number; share: number }[];
}

export interface NodeRow {
  name: string;
  pool: string;
  labels: Record<string, string>;
  capacity: Record<string, string | number>;
  /** Requested by the replicas placed on it: cpu (cores), memory (bytes), devices by resource. */
  allocated: Record<string, number>;
  devices: DeviceRow[];
  replicas: number;
}

interface NodeDoc {
  pool?: string;
  labels?: Record<string, string>;
  capacity?: Record<string, string | number>;
  devices?: { id: string; resource?: string; model?: string; memory?: string; healthy?: boolean }[];
}

/** The node document of a Node object (spec, with status filling gaps). */
function nodeDoc(o: CubeObject): NodeDoc {
  return { ...(o.status as NodeDoc), ...(o.spec as NodeDoc) };
}

const RUNNING = new Set(['Admitted', 'Running']);

/**
 * Nodes and their devices: from Node objects when there are any, else the
 * nodes running jobs name and the devices /metrics reports (node unknown:
 * shown as the node of the job holding it, or "—").
 */
export function buildInventory(nodes: CubeObject[], jobs: CubeObject[], samples: Sample[]): NodeRow[] {
  const rows = new Map<string, NodeRow>();
  const node = (name: string, pool = 'default'): NodeRow => {
    let r = rows.get(name);
    if (!r) rows.set(name, (r = { name, pool, labels: {}, capacity: {}, allocated: {}, devices: [], replicas: 0 }));
    return r;
  };
  const device = (n: NodeRow, resource: string, id: string): DeviceRow => {
    let d = n.devices.find((x) => x.resource === resource && x.id === id);
    if (!d) n.devices.push((d = { node: n.name, resource, id, holders: [] }));
    return d;
  };
  for (const o of nodes) {
    const d = nodeDoc(o);
    const r = node(o.metadata.name, d.pool);
    r.labels = d.labels ?? o.metadata.labels ?? {};
    r.capacity = d.capacity ?? {};
    for (const dev of d.devices ?? []) Object.assign(device(r, dev.resource ?? '', dev.id), { model: dev.model, memory: dev.memory, healthy: dev.healthy });
  }
  for (const j of jobs) {
    const st = (j.status ?? {}) as { phase?: string; replicas?: { index: number; node?: string; phase?: string; devices?: { id: string; resource: string; share?: number }[] }[] };
    if (!RUNNING.has(st.phase ?? '')) continue;
    const spec = (j.spec ?? {}) as { pool?: string; resources?: Record<string, string | number> };
    for (const rep of st.replicas ?? []) {
      if (!rep.node || (rep.phase && !RUNNING.has(rep.phase) && rep.phase !== 'Pending')) continue;
      const n = node(rep.node, spec.pool);
      n.replicas++;
      for (const [k, v] of Object.entries(spec.resources ?? {})) {
        const q = quantity(v);
        if (Number.isFinite(q)) n.allocated[k] = (n.allocated[k] ?? 0) + q;
      }
      for (const dv of rep.devices ?? [])
        device(n, dv.resource, dv.id).holders.push({
          project: j.metadata.project ?? '',
          job: j.metadata.name,
          replica: rep.index,
          share: dv.share ?? 1,
        });
    }
  }
  // Device gauges carry no node label: put each on the node that lists the
  // device, else on the only node there is, else on "—".
  const all = [...rows.values()];
  for (const s of samples) {
    if (s.name !== 'cube_accel_utilization' && s.name !== 'cube_accel_memory_used_bytes') continue;
    const { resource = '', device: id = '' } = s.labels;
    const owner = all.find((n) => n.devices.some((d) => d.resource === resource && d.id === id)) ?? (all.length === 1 ? all[0] : node('—'));
    if (!all.includes(owner)) all.push(owner);
    const d = device(owner, resource, id);
    if (s.name === 'cube_accel_utilization') d.utilization = s.value;
    else d.memoryUsed = s.value;
  }
  for (const n of rows.values()) n.devices.sort((a, b) => a.resource.localeCompare(b.resource) || a.id.localeCompare(b.id, undefined, { numeric: true }));
  return [...rows.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export interface PoolRow {
  name: string;
  nodes: number;
  capacity: Record<string, number>;
  allocated: Record<string, number>;
  devices: number;
  devicesHeld: number;
  pending: number;
  running: number;
}

/** Pools: their nodes' totals and the jobs queued and running in them. */
export function buildPools(nodes: NodeRow[], jobs: CubeObject[], pools: CubeObject[] = []): PoolRow[] {
  const rows = new Map<string, PoolRow>();
  const pool = (name: string) => {
    let r = rows.get(name);
    if (!r) rows.set(name, (r = { name, nodes: 0, capacity: {}, allocated: {}, devices: 0, devicesHeld: 0, pending: 0, running: 0 }));
    return r;
  };
  for (const p of pools) pool(p.metadata.name);
  for (const n of nodes) {
    const r = pool(n.pool);
    r.nodes++;
    for (const [k, v] of Object.entries(n.capacity)) r.capacity[k] = (r.capacity[k] ?? 0) + (quantity(v) || 0);
    for (const [k, v] of Object.entries(n.allocated)) r.allocated[k] = (r.allocated[k] ?? 0) + v;
    r.devices += n.devices.length;
    r.devicesHeld += n.devices.filter((d) => d.holders.length).length;
  }
  for (const j of jobs) {
    const phase = (j.status as { phase?: string } | undefined)?.phase ?? 'Pending';
    const r = pool(((j.spec as { pool?: string }) ?? {}).pool ?? 'default');
    if (phase === 'Pending') r.pending++;
    else if (RUNNING.has(phase)) r.running++;
  }
  return [...rows.values()].sort((a, b) => a.name.localeCompare(b.name));
}
