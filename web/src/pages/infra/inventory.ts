// inventory.ts — what the nodes and pools pages show, put together from
// what cubed exposes: GET /api/v1/nodes and /api/v1/pools (every node and
// pool the executors registered, with capacity and what the scheduler
// allocated), the device gauges of GET /metrics (cube_accel_utilization,
// cube_accel_memory_used_bytes: use, once monitoring reports it), and the
// Jobs that hold devices (each replica's status names its node and devices).

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
  memory?: string | number;
  /** The share the scheduler placed on it (0..1). */
  allocated?: number;
  utilization?: number;
  memoryUsed?: number;
  healthy?: boolean;
  /** Jobs holding it: "project/job#replica" with the share held. */
  holders: { project: string; job: string; replica: number; share: number }[];
}

/** Capacity or allocation: cpu in cores, memory in bytes, devices by resource. */
export type Amounts = Record<string, number>;

export interface NodeRow {
  name: string;
  pool: string;
  executor?: string;
  labels: Record<string, string>;
  capacity: Amounts;
  allocated: Amounts;
  devices: DeviceRow[];
  replicas: number;
}

/** A node as GET /api/v1/nodes answers it. */
export interface ApiNode {
  name: string;
  pool: string;
  executor?: string;
  labels?: Record<string, string>;
  capacity?: Amounts;
  allocated?: Amounts;
  replicas?: number;
  devices?: { id: string; resource: string; model?: string; memory?: string | number; healthy?: boolean; allocated?: number }[];
}

/** A pool as GET /api/v1/pools[/name] answers it. */
export interface ApiPool {
  name: string;
  nodes: number;
  capacity?: Amounts;
  allocated?: Amounts;
  pending: number;
  running: number;
  queue?: { project: string; name: string; position?: number; reason?: string }[];
  hiddenPending?: number;
}

const RUNNING = new Set(['Admitted', 'Running']);

/**
 * Nodes and their devices as the server lists them, with who holds each
 * device (from the Jobs the user may see) and the device gauges of
 * /metrics (they carry no node label: each goes to the node that lists the
 * device, else to the only node there is).
 */
export function buildInventory(nodes: ApiNode[], jobs: CubeObject[], samples: Sample[]): NodeRow[] {
  const rows = new Map<string, NodeRow>();
  for (const n of nodes)
    rows.set(n.name, {
      name: n.name,
      pool: n.pool,
      executor: n.executor,
      labels: n.labels ?? {},
      capacity: n.capacity ?? {},
      allocated: n.allocated ?? {},
      replicas: n.replicas ?? 0,
      devices: (n.devices ?? []).map((d) => ({ node: n.name, ...d, holders: [] })),
    });
  const device = (n: NodeRow, resource: string, id: string): DeviceRow => {
    let d = n.devices.find((x) => x.resource === resource && x.id === id);
    if (!d) n.devices.push((d = { node: n.name, resource, id, holders: [] }));
    return d;
  };
  for (const j of jobs) {
    const st = (j.status ?? {}) as { phase?: string; replicas?: { index: number; node?: string; phase?: string; devices?: { id: string; resource: string; share?: number }[] }[] };
    if (!RUNNING.has(st.phase ?? '')) continue;
    for (const rep of st.replicas ?? []) {
      const n = rep.node ? rows.get(rep.node) : undefined;
      if (!n) continue;
      for (const dv of rep.devices ?? [])
        device(n, dv.resource, dv.id).holders.push({
          project: j.metadata.project ?? '',
          job: j.metadata.name,
          replica: rep.index,
          share: dv.share ?? 1,
        });
    }
  }
  const all = [...rows.values()];
  for (const s of samples) {
    if (s.name !== 'cube_accel_utilization' && s.name !== 'cube_accel_memory_used_bytes') continue;
    const { resource = '', device: id = '' } = s.labels;
    const owner = all.find((n) => n.devices.some((d) => d.resource === resource && d.id === id)) ?? (all.length === 1 ? all[0] : undefined);
    if (!owner) continue;
    const d = device(owner, resource, id);
    if (s.name === 'cube_accel_utilization') d.utilization = s.value;
    else d.memoryUsed = s.value;
  }
  for (const n of all) n.devices.sort((a, b) => a.resource.localeCompare(b.resource) || a.id.localeCompare(b.id, undefined, { numeric: true }));
  return all.sort((a, b) => a.name.localeCompare(b.name));
}

export interface PoolRow {
  name: string;
  nodes: number;
  capacity: Amounts;
  allocated: Amounts;
  devices: number;
  devicesHeld: number;
  pending: number;
  running: number;
}

/** Pools as the server lists them, with their nodes' device counts. */
export function buildPools(pools: ApiPool[], nodes: NodeRow[]): PoolRow[] {
  return pools
    .map((p) => {
      const mine = nodes.filter((n) => n.pool === p.name);
      return {
        name: p.name,
        nodes: p.nodes,
        capacity: p.capacity ?? {},
        allocated: p.allocated ?? {},
        pending: p.pending,
        running: p.running,
        devices: mine.reduce((k, n) => k + n.devices.length, 0),
        devicesHeld: mine.reduce((k, n) => k + n.devices.filter((d) => (d.allocated ?? 0) > 0 || d.holders.length).length, 0),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The device resources of some amounts (everything but cpu and memory). */
export function deviceResources(a: Amounts): string[] {
  return Object.keys(a).filter((k) => k !== 'cpu' && k !== 'memory').sort();
}
