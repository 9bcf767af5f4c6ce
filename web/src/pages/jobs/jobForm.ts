// jobForm.ts — the Job form's logic, kept apart from its React so it is
// tested alone: a command line split as a POSIX shell splits words, the form's
// values to a Job (and back, for YAML round trips), client-side checks
// with messages people read, and the form field a server error names.

/** Thrown by shellSplit for a line a shell would not accept; code says why. */
export class SplitError extends Error {
  constructor(readonly code: 'single' | 'double' | 'backslash', message: string) {
    super(message);
  }
}

/**
 * Splits a command line into words as sh does, without expanding anything:
 * blanks separate words; '…' keeps everything literally; "…" keeps all but
 * \" \\ \$ \` (backslash-escaped); a backslash outside quotes escapes the
 * next character. An unterminated quote or a trailing backslash throws.
 */
export function shellSplit(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new SplitError('single', 'unterminated single quote');
      cur += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length && '"\\$`'.includes(line[j + 1])) j++;
        cur += line[j];
      }
      if (j >= line.length) throw new SplitError('double', 'unterminated double quote');
      i = j;
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new SplitError('backslash', 'a backslash at the end of the line');
      if (line[i + 1] !== '\n') cur += line[i + 1];
      i++;
      inWord = true;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** Quotes words so that shellSplit gives them back (for editing a Job). */
export function shellJoin(words: string[]): string {
  return words.map((w) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}

export const MEMORY_UNITS = ['Mi', 'Gi'] as const;
export type MemoryUnit = (typeof MEMORY_UNITS)[number];

export interface DeviceRequest {
  resource?: string;
  count?: number | null;
}

export interface EnvRow {
  name?: string;
  value?: string;
}

/** What the form holds (every field a user sees). */
export interface JobFormValues {
  name: string;
  commandMode: 'line' | 'script';
  commandLine?: string;
  script?: string;
  replicas?: number | null;
  cpu?: number | null;
  memory?: number | null;
  memoryUnit?: MemoryUnit;
  devices?: DeviceRequest[];
  env?: EnvRow[];
  pool?: string;
  priority?: 'high' | 'normal' | 'low';
  timeoutMinutes?: number | null;
  retries?: number | null;
  workdir?: string;
  image?: string;
  distributed?: string;
}

export const JOB_DEFAULTS: JobFormValues = {
  name: '',
  commandMode: 'line',
  commandLine: '',
  script: '',
  replicas: 1,
  cpu: 1,
  memory: 2,
  memoryUnit: 'Gi',
  devices: [],
  env: [],
  pool: 'default',
  priority: 'normal',
  timeoutMinutes: 0,
  retries: 0,
  distributed: 'none',
};

/** The interpreter a script runs under. */
export const SCRIPT_SHELL = ['/bin/sh', '-c'];

/** A problem with one field: its form path and a message key with values. */
export interface FieldProblem {
  field: (string | number)[];
  key: string;
  values?: Record<string, string | number>;
}

const NAME_RE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const ENV_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The command the form describes (throws SplitError on a bad line). */
export function commandOf(v: JobFormValues): string[] {
  if (v.commandMode === 'script') return (v.script ?? '').trim() ? [...SCRIPT_SHELL, v.script!] : [];
  return shellSplit(v.commandLine ?? '');
}

/** Everything wrong with the values, in the order the fields are shown. */
export function checkJobForm(v: JobFormValues): FieldProblem[] {
  const out: FieldProblem[] = [];
  if (!v.name) out.push({ field: ['name'], key: 'jobs.form.err.nameRequired' });
  else if (!NAME_RE.test(v.name)) out.push({ field: ['name'], key: 'jobs.form.err.name' });
  const cmdField = v.commandMode === 'script' ? 'script' : 'commandLine';
  try {
    if (commandOf(v).length === 0) out.push({ field: [cmdField], key: 'jobs.form.err.commandRequired' });
  } catch (e) {
    out.push({ field: [cmdField], key: `jobs.form.err.split.${e instanceof SplitError ? e.code : 'single'}` });
  }
  if (v.cpu !== undefined && v.cpu !== null && !(v.cpu > 0)) out.push({ field: ['cpu'], key: 'jobs.form.err.cpu' });
  if (v.memory !== undefined && v.memory !== null && !(v.memory > 0)) out.push({ field: ['memory'], key: 'jobs.form.err.memory' });
  (v.devices ?? []).forEach((d, i) => {
    if (!d?.resource) out.push({ field: ['devices', i, 'resource'], key: 'jobs.form.err.deviceResource' });
    if (!(typeof d?.count === 'number' && d.count > 0)) out.push({ field: ['devices', i, 'count'], key: 'jobs.form.err.deviceCount' });
    else if (d.count > 1 && !Number.isInteger(d.count)) out.push({ field: ['devices', i, 'count'], key: 'jobs.form.err.deviceShare' });
  });
  const seen = new Set<string>();
  (v.env ?? []).forEach((e, i) => {
    const n = e?.name ?? '';
    if (!ENV_RE.test(n)) out.push({ field: ['env', i, 'name'], key: 'jobs.form.err.envName' });
    else if (seen.has(n)) out.push({ field: ['env', i, 'name'], key: 'jobs.form.err.envDuplicate', values: { name: n } });
    seen.add(n);
  });
  return out;
}

/** A memory amount as the API takes it ("2Gi", "512Mi"). */
function memoryText(n: number, unit: MemoryUnit): string {
  return Number.isInteger(n) ? `${n}${unit}` : unit === 'Gi' ? `${Math.round(n * 1024)}Mi` : `${Math.round(n)}Mi`;
}

/** The Job the values describe (call checkJobForm first). */
export function jobFromForm(v: JobFormValues) {
  const resources: Record<string, string | number> = {};
  if (v.cpu) resources.cpu = String(v.cpu);
  if (v.memory) resources.memory = memoryText(v.memory, v.memoryUnit ?? 'Gi');
  for (const d of v.devices ?? []) if (d.resource && d.count) resources[d.resource] = d.count;
  const spec: Record<string, unknown> = { command: commandOf(v), resources };
  if (v.replicas && v.replicas !== 1) spec.replicas = v.replicas;
  const env = Object.fromEntries((v.env ?? []).filter((e) => e?.name).map((e) => [e.name!, e.value ?? '']));
  if (Object.keys(env).length) spec.env = env;
  if (v.pool && v.pool !== 'default') spec.pool = v.pool;
  if (v.priority && v.priority !== 'normal') spec.priority = v.priority;
  if (v.timeoutMinutes) spec.timeoutSeconds = Math.round(v.timeoutMinutes * 60);
  if (v.retries) spec.retries = { limit: v.retries };
  if (v.workdir) spec.workdir = v.workdir;
  if (v.image) spec.image = v.image;
  if (v.distributed && v.distributed !== 'none') spec.distributed = v.distributed;
  return { apiVersion: 'cube/v1', kind: 'Job', metadata: { name: v.name }, spec };
}

/** "4Gi" -> [4, 'Gi'], "512Mi" -> [512, 'Mi'], "1G" -> [0.93..., 'Gi']. */
function memoryOf(q: unknown): [number, MemoryUnit] | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(Ki|Mi|Gi|Ti|k|M|G|T)?\s*$/.exec(String(q ?? ''));
  if (!m) return null;
  const n = Number(m[1]);
  const f: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  const bytes = n * (m[2] ? f[m[2]] : 1);
  return bytes >= 2 ** 30 && bytes % 2 ** 30 === 0 ? [bytes / 2 ** 30, 'Gi'] : [Math.round(bytes / 2 ** 20), 'Mi'];
}

/** The form values of a Job (from YAML); fields the form lacks are dropped. */
export function formFromJob(obj: { metadata?: { name?: string }; spec?: Record<string, unknown> }): JobFormValues {
  const s = (obj.spec ?? {}) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const cmd: string[] = [...((s.command as string[]) ?? []), ...((s.args as string[]) ?? [])];
  const script = cmd.length === 3 && cmd[0] === SCRIPT_SHELL[0] && cmd[1] === SCRIPT_SHELL[1] && cmd[2].includes('\n');
  const res = (s.resources ?? {}) as Record<string, string | number>;
  const mem = memoryOf(res.memory);
  const cpu = res.cpu === undefined ? null : /m$/.test(String(res.cpu)) ? parseFloat(String(res.cpu)) / 1000 : Number(res.cpu);
  return {
    ...JOB_DEFAULTS,
    name: obj.metadata?.name ?? '',
    commandMode: script ? 'script' : 'line',
    commandLine: script ? '' : shellJoin(cmd),
    script: script ? cmd[2] : '',
    replicas: s.replicas ?? 1,
    cpu,
    memory: mem ? mem[0] : null,
    memoryUnit: mem ? mem[1] : 'Gi',
    devices: Object.entries(res)
      .filter(([k]) => k !== 'cpu' && k !== 'memory')
      .map(([resource, count]) => ({ resource, count: Number(count) })),
    env: Object.entries((s.env ?? {}) as Record<string, string>).map(([name, value]) => ({ name, value })),
    pool: s.pool ?? 'default',
    priority: s.priority ?? 'normal',
    timeoutMinutes: s.timeoutSeconds ? s.timeoutSeconds / 60 : 0,
    retries: s.retries?.limit ?? 0,
    workdir: s.workdir ?? '',
    image: s.image ?? '',
    distributed: s.distributed ?? 'none',
  };
}

/**
 * The form field a server error names ("spec.resources.memory",
 * "spec.env.FOO", "metadata.name"), or null when the form has none for it.
 */
export function formFieldOf(serverField: string | undefined, v: JobFormValues): (string | number)[] | null {
  if (!serverField) return null;
  const p = serverField.replace(/\[(\d+)\]/g, '.$1').split('.');
  if (p[0] === 'metadata') return p[1] === 'name' ? ['name'] : null;
  if (p[0] !== 'spec') return null;
  switch (p[1]) {
    case 'command':
    case 'args':
      return [v.commandMode === 'script' ? 'script' : 'commandLine'];
    case 'resources': {
      if (p[2] === 'cpu') return ['cpu'];
      if (p[2] === 'memory') return ['memory'];
      const i = (v.devices ?? []).findIndex((d) => d.resource === p.slice(2).join('.'));
      return i >= 0 ? ['devices', i, 'count'] : ['cpu'];
    }
    case 'env': {
      const i = (v.env ?? []).findIndex((e) => e.name === p.slice(2).join('.'));
      return i >= 0 ? ['env', i, 'name'] : null;
    }
    case 'replicas':
      return ['replicas'];
    case 'pool':
      return ['pool'];
    case 'priority':
      return ['priority'];
    case 'timeoutSeconds':
      return ['timeoutMinutes'];
    case 'retries':
      return ['retries'];
    case 'workdir':
      return ['workdir'];
    case 'image':
      return ['image'];
    case 'distributed':
      return ['distributed'];
    default:
      return null;
  }
}

/** The server's message without its "spec.x: " prefix, first letter up. */
export function humanMessage(field: string | undefined, message: string): string {
  let m = message;
  if (field && m.startsWith(`${field}: `)) m = m.slice(field.length + 2);
  return m ? m[0].toUpperCase() + m.slice(1) : m;
}
