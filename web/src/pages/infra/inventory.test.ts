import type { CubeObject } from '../../api/types';
import { buildInventory, buildPools, bytes, parseMetrics, quantity } from './inventory';

const METRICS = `# HELP cube_accel_utilization Device utilisation
# TYPE cube_accel_utilization gauge
cube_accel_utilization{resource="sim.cube.dev/gpu",device="0"} 0.5
cube_accel_utilization{resource="sim.cube.dev/gpu",device="1"} 0
cube_accel_memory_used_bytes{resource="sim.cube.dev/gpu",device="0"} 21474836480
cube_sched_jobs{state="pending"} 1
`;

function job(name: string, phase: string, node?: string, devices: string[] = []): CubeObject {
  return {
    metadata: { name, project: 'demo' },
    spec: { pool: 'default', resources: { cpu: '500m', memory: '1Gi', 'sim.cube.dev/gpu': devices.length } },
    status: {
      phase,
      replicas: node ? [{ index: 0, node, phase, devices: devices.map((id) => ({ id, resource: 'sim.cube.dev/gpu', share: 1 })) }] : [],
    },
  };
}

describe('inventory', () => {
  it('parses Prometheus text and quantities', () => {
    const s = parseMetrics(METRICS);
    expect(s).toHaveLength(4);
    expect(s[0]).toEqual({ name: 'cube_accel_utilization', labels: { resource: 'sim.cube.dev/gpu', device: '0' }, value: 0.5 });
    expect(quantity('500m')).toBe(0.5);
    expect(quantity('4Gi')).toBe(4 * 2 ** 30);
    expect(quantity('1x')).toBeNaN();
    expect(bytes(20 * 2 ** 30)).toBe('20 GiB');
  });

  it('puts devices on nodes with utilisation and the job holding them', () => {
    const jobs = [job('a', 'Running', 'vm', ['1']), job('b', 'Succeeded', 'vm', ['0']), job('c', 'Pending')];
    const nodes = buildInventory([], jobs, parseMetrics(METRICS));
    expect(nodes.map((n) => n.name)).toEqual(['vm']);
    const vm = nodes[0];
    expect(vm.allocated).toEqual({ cpu: 0.5, memory: 2 ** 30, 'sim.cube.dev/gpu': 1 });
    expect(vm.devices.map((d) => [d.id, d.utilization, d.memoryUsed, d.holders.map((h) => h.job)])).toEqual([
      ['0', 0.5, 21474836480, []],
      ['1', 0, undefined, ['a']],
    ]);
    const pools = buildPools(nodes, jobs);
    expect(pools).toEqual([
      expect.objectContaining({ name: 'default', nodes: 1, devices: 2, devicesHeld: 1, running: 1, pending: 1 }),
    ]);
  });

  it('takes nodes and devices from Node objects when the kind exists', () => {
    const node: CubeObject = {
      metadata: { name: 'gpu-01' },
      spec: { pool: 'train', capacity: { cpu: '16', memory: '64Gi' }, devices: [{ id: '0', resource: 'nvidia.com/gpu', model: 'H200', memory: '141Gi' }] },
    };
    const [n] = buildInventory([node], [], []);
    expect(n).toMatchObject({ name: 'gpu-01', pool: 'train', capacity: { cpu: '16' } });
    expect(n.devices[0]).toMatchObject({ model: 'H200', memory: '141Gi', holders: [] });
  });
});
