import { layeredLayout, layers } from './layout';

const n = (id: string, ...upstream: string[]) => ({ id, upstream });

describe('layers', () => {
  it('puts each node one below its deepest upstream', () => {
    const d = layers([n('a'), n('b', 'a'), n('c', 'a'), n('d', 'b', 'c'), n('e', 'a', 'd')]);
    expect(d).toEqual({ a: 0, b: 1, c: 1, d: 2, e: 3 });
  });

  it('ignores unknown upstreams and self-loops', () => {
    expect(layers([n('a', 'ghost'), n('b', 'b', 'a')])).toEqual({ a: 0, b: 1 });
  });

  it('places a cycle below the rest instead of looping', () => {
    const d = layers([n('root'), n('x', 'root', 'y'), n('y', 'x')]);
    expect(d.root).toBe(0);
    expect(Number.isFinite(d.x) && Number.isFinite(d.y)).toBe(true);
  });
});

describe('layeredLayout', () => {
  it('points every edge downwards and centres each layer', () => {
    const nodes = [n('import'), n('split', 'import'), n('lr', 'split'), n('rf', 'split'), n('eval', 'lr', 'rf')];
    const p = layeredLayout(nodes, { xGap: 200, yGap: 100 });
    for (const node of nodes) for (const u of node.upstream) expect(p[u].y).toBeLessThan(p[node.id].y);
    expect(p.import).toEqual({ x: 0, y: 0 });
    expect([p.lr.x, p.rf.x]).toEqual([-100, 100]);
    expect(p.eval).toEqual({ x: 0, y: 300 });
  });

  it('orders a layer by its upstreams so edges do not cross', () => {
    // b1 under a1 (left), b2 under a2 (right), although listed the other way round
    const p = layeredLayout([n('a1'), n('a2'), n('b2', 'a2'), n('b1', 'a1')]);
    expect(p.a1.x).toBeLessThan(p.a2.x);
    expect(p.b1.x).toBeLessThan(p.b2.x);
  });

  it('never puts two nodes on one spot', () => {
    const nodes = Array.from({ length: 30 }, (_, i) => n(`t${i}`, ...(i ? [`t${Math.floor((i - 1) / 3)}`] : [])));
    const p = layeredLayout(nodes);
    const spots = new Set(Object.values(p).map((q) => `${q.x},${q.y}`));
    expect(spots.size).toBe(30);
  });

  /** Edges (centre to centre, as straight lines) that pass through a node
   *  box other than their own ends: 200 x 60, as the editor draws them. */
  function hidden(nodes: { id: string; upstream: string[] }[], p: Record<string, { x: number; y: number }>): string[] {
    const out: string[] = [];
    for (const v of nodes) for (const u of v.upstream) {
      const a = p[u], b = p[v.id];
      for (const w of nodes) {
        if (w.id === u || w.id === v.id) continue;
        const c = p[w.id];
        for (const y of [c.y - 30, c.y, c.y + 30]) {
          if (y <= a.y || y >= b.y) continue;
          const x = a.x + ((b.x - a.x) * (y - a.y)) / (b.y - a.y);
          if (x > c.x - 100 && x < c.x + 100) out.push(`${u}->${v.id} behind ${w.id}`);
        }
      }
    }
    return [...new Set(out)];
  }

  it('keeps an edge that skips a layer clear of the nodes it passes', () => {
    // a -> b -> c and a -> c: Arrange used to put b right on a -> c
    const diamond = [n('a'), n('b', 'a'), n('c', 'b', 'a')];
    expect(hidden(diamond, layeredLayout(diamond))).toEqual([]);
    const long = [n('import'), n('clean', 'import'), n('split', 'clean'), n('train', 'split'),
      n('eval', 'train', 'split', 'import'), n('report', 'eval', 'import')];
    const p = layeredLayout(long);
    expect(hidden(long, p)).toEqual([]);
    // the stand-ins are not nodes
    expect(Object.keys(p).sort()).toEqual(long.map((x) => x.id).sort());
  });
});
