import type { CubeObject } from '../../api/types';
import { buildInventory, buildPools, bytes, deviceResources, parseMetrics, quantity } from './inventory';

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

  const VM = {
    name: 'vm',
    pool: 'default',
    executor: 'local',
    capacity: { cpu: 8, memory: 16 * 2 ** 30, 'sim.cube.dev/gpu': 2 },
    allocated: { cpu: 0.5, memory: 2 ** 30, 'sim.cube.dev/gpu': 1 },
    replicas: 1,
    devices: [
      { id: '1', resource: 'sim.cube.dev/gpu', allocated: 1 },
      { id: '0', resource: 'sim.cube.dev/gpu', allocated: 0, model: 'SIM', memory: 24 * 2 ** 30 },
    ],
  };

  it('shows the nodes the server lists, with utilisation and the job holding each device', () => {
    const jobs = [job('a', 'Running', 'vm', ['1']), job('b', 'Succeeded', 'vm', ['0']), job('c', 'Pending'), job('d', 'Running', 'elsewhere', ['0'])];
    const nodes = buildInventory([VM], jobs, parseMetrics(METRICS));
    expect(nodes.map((n) => n.name)).toEqual(['vm']);
    const vm = nodes[0];
    expect(vm.capacity).toEqual(VM.capacity);
    expect(vm.allocated).toEqual({ cpu: 0.5, memory: 2 ** 30, 'sim.cube.dev/gpu': 1 });
    expect(vm.devices.map((d) => [d.id, d.utilization, d.memoryUsed, d.holders.map((h) => h.job)])).toEqual([
      ['0', 0.5, 21474836480, []],
      ['1', 0, undefined, ['a']],
    ]);
    expect(deviceResources(vm.capacity)).toEqual(['sim.cube.dev/gpu']);
  });

  it('lists an idle node with its capacity (nothing running)', () => {
    const [n] = buildInventory([{ ...VM, allocated: {}, replicas: 0, devices: [] }], [], []);
    expect(n).toMatchObject({ name: 'vm', capacity: { cpu: 8 }, allocated: {}, replicas: 0 });
  });

  it('takes pools from the server and counts their devices', () => {
    const nodes = buildInventory([VM], [], []);
    const pools = buildPools(
      [
        { name: 'train', nodes: 0, pending: 2, running: 0 },
        { name: 'default', nodes: 1, capacity: VM.capacity, allocated: VM.allocated, pending: 1, running: 1 },
      ],
      nodes,
    );
    expect(pools.map((p) => p.name)).toEqual(['default', 'train']);
    expect(pools[0]).toMatchObject({ nodes: 1, devices: 2, devicesHeld: 1, running: 1, pending: 1, capacity: { cpu: 8 } });
    expect(pools[1]).toMatchObject({ nodes: 0, devices: 0, pending: 2, capacity: {} });
  });
});
