// outputRefs.ts — what a task may take from the tasks before it: the
// `{{ tasks.<name>.outputs.<key> }}` references the server renders into
// args, and the keys each upstream task is known to output (from the
// pipeline's last run, where they were recorded).
import type { PipelineRun } from './types';

export interface UpstreamOutputs {
  task: string;
  /** Keys seen in the last run; the user may type another. */
  keys: string[];
}

export function outputRef(task: string, key: string): string {
  return `{{ tasks.${task}.outputs.${key} }}`;
}

/** The keys every task output in `run` (none without a run). */
export function knownOutputs(run: PipelineRun | null | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [task, st] of Object.entries(run?.status?.tasks ?? {}))
    out[task] = Object.keys(st?.outputs ?? {}).sort();
  return out;
}

/** The upstream tasks of `task` (edges into it), with their known keys. */
export function upstreamOutputs(
  task: string,
  edges: { source: string; target: string }[],
  known: Record<string, string[]>,
): UpstreamOutputs[] {
  return edges
    .filter((e) => e.target === task)
    .map((e) => e.source)
    .sort()
    .map((up) => ({ task: up, keys: known[up] ?? [] }));
}

/** `value` with `ref` added: appended after a space, or alone. */
export function withRef(value: unknown, ref: string): string {
  const v = value === undefined || value === null ? '' : String(value);
  return v.trim() ? `${v.replace(/\s+$/, '')} ${ref}` : ref;
}
