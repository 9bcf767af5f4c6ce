// dagSpec.ts — a Pipeline's tasks <-> the editor's graph. Pure: no React.
//
// The spec is the truth: a task's upstream list is the set of edges into
// it and its layout the node's position. specToGraph keeps every field of
// a task in the node's data (so nothing the editor does not show is lost);
// graphToSpec writes back tasks in node order with upstream from the edges
// (each upstream once, in edge order) and positions rounded to whole pixels.
import { layeredLayout } from './layout';
import type { PipelineTask } from './types';

export interface TaskNode {
  id: string;
  position: { x: number; y: number };
  data: { task: PipelineTask };
  type?: string;
}

export interface TaskEdge {
  id: string;
  source: string;
  target: string;
}

export function edgeId(source: string, target: string): string {
  return `${source}->${target}`;
}

/** Nodes and edges of the tasks; tasks without a layout are laid out in layers. */
export function specToGraph(tasks: PipelineTask[]): { nodes: TaskNode[]; edges: TaskEdge[] } {
  const names = new Set(tasks.map((t) => t.name));
  const auto = tasks.some((t) => !t.layout) ? layeredLayout(tasks.map((t) => ({ id: t.name, upstream: t.upstream ?? [] }))) : {};
  const nodes = tasks.map((task) => ({
    id: task.name,
    type: 'task',
    position: task.layout ? { x: task.layout.x, y: task.layout.y } : auto[task.name],
    data: { task },
  }));
  const edges: TaskEdge[] = [];
  for (const t of tasks)
    for (const u of t.upstream ?? [])
      if (names.has(u)) edges.push({ id: edgeId(u, t.name), source: u, target: t.name });
  return { nodes, edges };
}

/** The tasks of the graph, as the Pipeline's spec.tasks. */
export function graphToSpec(nodes: TaskNode[], edges: TaskEdge[]): PipelineTask[] {
  const ids = new Set(nodes.map((n) => n.id));
  const ups = new Map<string, string[]>();
  for (const e of edges) {
    if (!ids.has(e.source) || !ids.has(e.target)) continue;
    const list = ups.get(e.target) ?? [];
    if (!list.includes(e.source)) list.push(e.source);
    ups.set(e.target, list);
  }
  return nodes.map((n) => {
    const task: PipelineTask = { ...n.data.task, name: n.id };
    const up = ups.get(n.id) ?? [];
    if (up.length) task.upstream = up;
    else delete task.upstream;
    task.layout = { x: Math.round(n.position.x), y: Math.round(n.position.y) };
    return task;
  });
}

/** Whether adding source -> target would close a cycle (or is a self-loop). */
export function wouldCreateCycle(edges: TaskEdge[], source: string, target: string): boolean {
  if (source === target) return true;
  const down = new Map<string, string[]>();
  for (const e of edges) down.set(e.source, [...(down.get(e.source) ?? []), e.target]);
  const seen = new Set<string>();
  const stack = [target];
  while (stack.length) {
    const id = stack.pop()!;
    if (id === source) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(down.get(id) ?? []));
  }
  return false;
}

const NAME_MAX = 40;

/** A task name (DNS label, at most 40 characters) from a template name,
 *  unique among `taken`: "sklearn-lr", "sklearn-lr-2" ... */
export function uniqueTaskName(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  let stem = base.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'task';
  stem = stem.slice(0, NAME_MAX).replace(/-+$/, '');
  if (!used.has(stem)) return stem;
  for (let i = 2; ; i++) {
    const suffix = `-${i}`;
    const name = stem.slice(0, NAME_MAX - suffix.length).replace(/-+$/, '') + suffix;
    if (!used.has(name)) return name;
  }
}

export const TASK_NAME_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Where a server error's field points: a task (by index) and, inside it,
 *  an argument flag or a task field. "spec.tasks[2].args.--C" gives
 *  {task: 2, arg: "--C"}; "spec.schedule" gives {field: "schedule"}. */
export function locateField(field: string | undefined): { task?: number; arg?: string; field?: string } | null {
  if (!field) return null;
  const m = field.match(/^spec\.tasks\[(\d+)\](?:\.(.*))?$/);
  if (m) {
    const rest = m[2] ?? '';
    const arg = rest.match(/^args(?:\.|\[")(.+?)(?:"\])?$/);
    return arg ? { task: Number(m[1]), arg: arg[1] } : { task: Number(m[1]), field: rest || undefined };
  }
  const s = field.match(/^spec\.(.+)$/);
  return s ? { field: s[1] } : { field };
}

/** A server error located: locateField's answer, the argument also taken
 *  from a message such as "--x is required" when the field is a task's
 *  args, and the message without the "<field>: " prefix the server adds. */
export function locateError(field: string | undefined, message: string) {
  const text = field && message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message;
  const where = locateField(field) ?? {};
  const arg = where.arg ?? (where.task !== undefined && where.field === 'args' ? text.match(/^(--[\w-]+)[\s:]/)?.[1] : undefined);
  return { ...where, ...(arg ? { arg, field: undefined } : {}), message: text };
}
