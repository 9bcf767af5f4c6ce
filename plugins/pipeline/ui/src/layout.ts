// layout.ts — a layered layout of a DAG, by depth, top to bottom.
//
// A node's layer is the length of the longest upstream path to it (roots
// are layer 0), so every edge points down. Within a layer, nodes are
// ordered by the mean position of their upstreams in the layer above
// (barycentre heuristic, one pass top-down) to keep edges short and
// crossings few; ties keep the input order. Layers are centred on x = 0.
// Upstream names that are not nodes are ignored; on a cycle, the nodes on
// it are placed after the last layer rather than looping.

export interface LayoutNode {
  id: string;
  upstream: string[];
}

export interface LayoutOptions {
  /** Horizontal distance between node centres. */
  xGap?: number;
  /** Vertical distance between layers. */
  yGap?: number;
}

export type Positions = Record<string, { x: number; y: number }>;

/** Each node's layer (longest path from a root). */
export function layers(nodes: LayoutNode[]): Record<string, number> {
  const ids = new Set(nodes.map((n) => n.id));
  const ups = new Map(nodes.map((n) => [n.id, n.upstream.filter((u) => ids.has(u) && u !== n.id)]));
  const depth: Record<string, number> = {};
  const state = new Map<string, 'visiting' | 'done'>();
  let cyclic = false;

  const visit = (id: string): number => {
    if (state.get(id) === 'done') return depth[id];
    if (state.get(id) === 'visiting') {
      cyclic = true;
      return -1;
    }
    state.set(id, 'visiting');
    let d = 0;
    for (const u of ups.get(id) ?? []) d = Math.max(d, visit(u) + 1);
    state.set(id, 'done');
    depth[id] = d;
    return d;
  };
  for (const n of nodes) visit(n.id);
  if (cyclic) {
    // Cycles cannot be layered; keep them visible below everything else.
    const last = Math.max(0, ...Object.values(depth)) + 1;
    for (const n of nodes) if (depth[n.id] === undefined) depth[n.id] = last;
  }
  return depth;
}

/** Positions (top-left corners are the caller's business: these are centres). */
export function layeredLayout(nodes: LayoutNode[], opts: LayoutOptions = {}): Positions {
  const xGap = opts.xGap ?? 240;
  const yGap = opts.yGap ?? 120;
  const depth = layers(nodes);
  const byLayer: LayoutNode[][] = [];
  nodes.forEach((n) => (byLayer[depth[n.id]] ??= []).push(n));
  const slot: Record<string, number> = {};
  const pos: Positions = {};
  byLayer.forEach((layer, d) => {
    if (!layer) return;
    const keyed = layer.map((n, i) => {
      const placed = n.upstream.filter((u) => u in slot).map((u) => slot[u]);
      const bary = placed.length ? placed.reduce((a, b) => a + b, 0) / placed.length : Number.POSITIVE_INFINITY;
      return { n, i, bary };
    });
    // Nodes without placed upstreams keep their input order, after the others.
    keyed.sort((a, b) => (a.bary === b.bary ? a.i - b.i : a.bary - b.bary));
    const width = keyed.length - 1;
    keyed.forEach(({ n }, i) => {
      slot[n.id] = i - width / 2;
      pos[n.id] = { x: slot[n.id] * xGap, y: d * yGap };
    });
  });
  return pos;
}
