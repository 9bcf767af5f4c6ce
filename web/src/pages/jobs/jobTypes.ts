// jobTypes.ts — a Job's spec and status as the core writes them (README, Jobs).
import type { CubeObject } from '../../api/types';

export const PHASES = ['Pending', 'Admitted', 'Running', 'Succeeded', 'Failed', 'Cancelled'] as const;
export const TERMINAL = new Set(['Succeeded', 'Failed', 'Cancelled']);

export interface ReplicaStatus {
  index: number;
  node?: string;
  devices?: { id: string; resource: string; share?: number }[];
  engineId?: string;
  phase?: string;
  exitCode?: number;
  reason?: string;
  message?: string;
  started?: string;
  finished?: string;
}

export interface JobSpec {
  replicas?: number;
  command?: string[];
  args?: string[];
  resources?: Record<string, string | number>;
  pool?: string;
  priority?: string;
}

export interface JobStatus {
  phase?: string;
  reason?: string;
  message?: string;
  attempts?: number;
  queued?: string;
  admitted?: string;
  started?: string;
  finished?: string;
  waiting?: string;
  queuePosition?: number;
  replicas?: ReplicaStatus[];
}

export type Job = CubeObject<JobSpec & Record<string, unknown>, JobStatus & Record<string, unknown>>;

/** "1h 2m", "3m 4s", "5s" between two times (now when end is absent). */
export function duration(start?: string, end?: string, now = Date.now()): string {
  if (!start) return '';
  const s = Math.max(0, Math.floor(((end ? Date.parse(end) : now) - Date.parse(start)) / 1000));
  if (Number.isNaN(s)) return '';
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/** Resources of one replica as "cpu=2 memory=4Gi nvidia.com/gpu=1". */
export function resourcesText(r?: Record<string, string | number>): string {
  return Object.entries(r ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}
