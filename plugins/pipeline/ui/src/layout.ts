// layout.ts — a layered layout of a DAG, by depth, top to bottom.
//
// A node's layer is the length of the longest upstream path to it (roots
// are layer 0), so every edge points down. Within a layer, nodes are
// ordered by the mean position of their upstreams in the layer above
// (barycentre heuristic, one pass top-down) to keep edges short and
// crossings few; ties keep the input order. Layers are centred on x = 0.
// Upstream names that are not nodes are ignored; on a cycle, the nodes on
// it are placed after the last layer rather than looping. An edge that
// skips layers holds a slot in each layer it crosses (a stand-in node
// that is not drawn), so it never runs behind a node.

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

/** A layer's entry: a node, or a stand-in for an edge that crosses the
 *  layer (from a layer above the one before to one below), so that the
 *  edge gets a free slot of its own and never runs behind a node. */
interface Slotted {
  id: string;
  upstream: string[];
  dummy: boolean;
}

/** Layers of nodes and edge stand-ins, top to bottom, in input order. */
function slotted(nodes: LayoutNode[], depth: Record<string, number>): Slotted[][] {
  const ids = new Set(nodes.map((n) => n.id));
  const byLayer: Slotted[][] = [];
  const put = (d: number, e: Slotted) => (byLayer[d] ??= []).push(e);
  for (const n of nodes) put(depth[n.id], { id: n.id, upstream: [], dummy: false });
  const entry = new Map(byLayer.flat().map((e) => [e.id, e]));
  for (const n of nodes) {
    for (const u of n.upstream) {
      if (!ids.has(u) || u === n.id || depth[u] >= depth[n.id]) continue;
      // a chain of stand-ins through the layers the edge crosses
      let prev = u;
      for (let d = depth[u] + 1; d < depth[n.id]; d++) {
        const id = `\u0000${u}\u0000${n.id}\u0000${d}`;
        put(d, { id, upstream: [prev], dummy: true });
        prev = id;
      }
      entry.get(n.id)!.upstream.push(prev);
    }
  }
  return byLayer;
}

/** Positions (top-left corners are the caller's business: these are centres).
 *  An edge that spans several layers is given a slot in each layer it
 *  crosses, so nodes there stand aside and the edge stays in view. */
export function layeredLayout(nodes: LayoutNode[], opts: LayoutOptions = {}): Positions {
  const xGap = opts.xGap ?? 240;
  const yGap = opts.yGap ?? 120;
  const depth = layers(nodes);
  const byLayer = slotted(nodes, depth);
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
      if (!n.dummy) pos[n.id] = { x: slot[n.id] * xGap, y: d * yGap };
    });
  });
  return pos;
}
