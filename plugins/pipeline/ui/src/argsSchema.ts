// argsSchema.ts — a template's args schema (Cube Studio's format) as form
// fields, and form values back to a task's args. Pure: no React.
//
// Contract: the form holds strings for numbers and JSON (so a "{{ … }}"
// template can stand in any field), booleans for bool, arrays for multiple.
// argsFromForm() turns them back into typed args, leaving out empty values
// and values equal to the schema's default (the server fills defaults), and
// answers per-flag errors as i18n keys with their variables.
import type { ArgSpec, ArgsSchema } from './types';

export type FieldKind = 'number' | 'switch' | 'select' | 'multiselect' | 'input' | 'textarea' | 'json';

export interface ArgField {
  group: string;
  flag: string;
  spec: ArgSpec;
  kind: FieldKind;
  required: boolean;
}

export interface ArgError {
  key: string;
  vars?: Record<string, string | number>;
}

const KIND: Record<string, FieldKind> = {
  int: 'number', float: 'number', bool: 'switch', enum: 'select', multiple: 'multiselect',
  str: 'input', file: 'input', text: 'textarea', dict: 'json', list: 'json', json: 'json',
};

/** Every argument of the schema, group by group, in declaration order. */
export function argFields(schema: ArgsSchema | undefined): ArgField[] {
  const out: ArgField[] = [];
  for (const [group, args] of Object.entries(schema ?? {}))
    for (const [flag, spec] of Object.entries(args ?? {}))
      out.push({ group, flag, spec, kind: KIND[spec.type] ?? 'input', required: spec.require === 1 });
  return out;
}

/** A value that the server renders per run ("{{ tasks.a.outputs.b }}"). */
export function isTemplated(v: unknown): boolean {
  return typeof v === 'string' && v.includes('{{');
}

export function parseRange(range: string | undefined): [number, number] | null {
  if (!range) return null;
  const parts = range.split(',').map((s) => Number(s.trim()));
  if (parts.length !== 2 || parts.some((n) => Number.isNaN(n))) return null;
  return [parts[0], parts[1]];
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

/** The form value of one argument (what the form edits). */
export function toFormValue(field: ArgField, value: unknown): unknown {
  if (field.kind === 'switch') return value === true || value === 'true';
  if (field.kind === 'multiselect') {
    if (Array.isArray(value)) return value;
    return typeof value === 'string' && value ? value.split(',') : [];
  }
  if (field.kind === 'json') {
    if (isEmpty(value)) return '';
    return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  }
  return isEmpty(value) ? '' : String(value);
}

/** The form's initial values: the task's args, else the schema's defaults. */
export function formValues(schema: ArgsSchema | undefined, args: Record<string, unknown> = {}) {
  const values: Record<string, unknown> = {};
  for (const f of argFields(schema)) values[f.flag] = toFormValue(f, f.flag in args ? args[f.flag] : f.spec.default);
  return values;
}

/** One form value as an arg: [value, error]; value undefined means "leave out". */
export function parseValue(field: ArgField, raw: unknown): [unknown, ArgError | null] {
  const { spec } = field;
  if (field.kind === 'switch') return [raw === true, null];
  if (isEmpty(raw) || (typeof raw === 'string' && raw.trim() === '' && field.kind !== 'textarea'))
    return [undefined, field.required ? { key: 'pipelines.args.required' } : null];
  if (isTemplated(raw)) return [raw, null];
  switch (field.kind) {
    case 'number': {
      const text = String(raw).trim();
      const ok = spec.type === 'int' ? /^[-+]?\d+$/.test(text) : /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text);
      if (!ok) return [undefined, { key: spec.type === 'int' ? 'pipelines.args.notInt' : 'pipelines.args.notNumber' }];
      const n = Number(text);
      const r = parseRange(spec.range);
      if (r && (n < r[0] || n > r[1])) return [undefined, { key: 'pipelines.args.range', vars: { min: r[0], max: r[1] } }];
      return [n, null];
    }
    case 'select':
      if (spec.choice && !spec.choice.map(String).includes(String(raw)))
        return [undefined, { key: 'pipelines.args.choice' }];
      return [spec.choice?.find((c) => String(c) === String(raw)) ?? raw, null];
    case 'multiselect':
      return [raw, null];
    case 'json': {
      let v: unknown;
      try {
        v = JSON.parse(String(raw));
      } catch {
        return [undefined, { key: 'pipelines.args.json' }];
      }
      if (spec.type === 'dict' && (typeof v !== 'object' || v === null || Array.isArray(v)))
        return [undefined, { key: 'pipelines.args.object' }];
      if (spec.type === 'list' && !Array.isArray(v)) return [undefined, { key: 'pipelines.args.array' }];
      return [v, null];
    }
    default:
      return [raw, null];
  }
}

function sameAsDefault(spec: ArgSpec, v: unknown): boolean {
  if (spec.default === undefined) return false;
  if (typeof v === 'object' && v !== null) return JSON.stringify(v) === JSON.stringify(spec.default);
  return v === spec.default;
}

/** Form values back to args: {args, errors by flag}. */
export function argsFromForm(schema: ArgsSchema | undefined, values: Record<string, unknown>) {
  const args: Record<string, unknown> = {};
  const errors: Record<string, ArgError> = {};
  for (const f of argFields(schema)) {
    const [v, err] = parseValue(f, values[f.flag]);
    if (err) errors[f.flag] = err;
    else if (v !== undefined && !sameAsDefault(f.spec, v)) {
      if (f.kind === 'switch' && v === false && f.spec.default === undefined) continue;
      args[f.flag] = v;
    }
  }
  return { args, errors };
}
