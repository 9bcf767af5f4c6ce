// spaceRows.ts — the search-space editor's rows and NNI's JSON, both ways.
// A row is one parameter: its name, _type and the fields of its _value
// (low/high[/q], mu/sigma[/q], lower/upper, or a choice's options, one
// JSON value or bare word each, comma-separated). Nested choices (options
// that are spaces with _name) have no row form: the JSON mode edits them.
import type { SearchSpace } from './types';

export const TYPES = ['choice', 'randint', 'uniform', 'quniform', 'loguniform', 'qloguniform',
  'normal', 'qnormal', 'lognormal', 'qlognormal'] as const;
export type ParamType = (typeof TYPES)[number];

export interface Row {
  name: string;
  type: ParamType;
  /** the _value fields as typed (fieldsOf(type) names them) */
  values: string[];
}

/** The _value fields of a type, in order. */
export function fieldsOf(type: ParamType): string[] {
  if (type === 'choice') return ['options'];
  if (type === 'randint') return ['lower', 'upper'];
  const normal = type.includes('normal');
  const base = normal ? ['mu', 'sigma'] : ['low', 'high'];
  return type.startsWith('q') ? [...base, 'q'] : base;
}

/** A choice option as typed: a JSON value, else the word itself. */
export function parseOption(text: string): unknown {
  const s = text.trim();
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

/** An option as the row shows it: a plain word bare, anything else as JSON. */
export function optionText(o: unknown): string {
  if (typeof o === 'string' && o.trim() === o && o !== '' && !/[,"[\]{}]/.test(o) && parseOption(o) === o) return o;
  return JSON.stringify(o);
}

/** Splits options at commas outside quotes and brackets. */
export function splitOptions(text: string): string[] {
  const out: string[] = [];
  let depth = 0, quote = false, cur = '';
  for (const ch of text) {
    if (ch === '"' && !cur.endsWith('\\')) quote = !quote;
    if (!quote && (ch === '[' || ch === '{')) depth++;
    if (!quote && (ch === ']' || ch === '}')) depth--;
    if (ch === ',' && !quote && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur.trim() !== '' || out.length) out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

export interface RowError {
  row: number;
  /** message key under hpsearch.space.error. */
  key: string;
}

const num = (s: string) => (s.trim() === '' ? NaN : Number(s));

/** The NNI search space of rows, or the first problem of each bad row. */
export function rowsToSpace(rows: Row[]): { space: SearchSpace; errors: RowError[] } {
  const space: SearchSpace = {};
  const errors: RowError[] = [];
  const seen = new Set<string>();
  rows.forEach((r, i) => {
    const name = r.name.trim();
    const fail = (key: string) => errors.push({ row: i, key });
    if (!name) return fail('name');
    if (name.startsWith('_')) return fail('underscore');
    if (seen.has(name)) return fail('duplicate');
    seen.add(name);
    if (r.type === 'choice') {
      const options = splitOptions(r.values[0] ?? '').map(parseOption);
      if (!options.length) return fail('options');
      space[name] = { _type: 'choice', _value: options };
      return;
    }
    const v = fieldsOf(r.type).map((_, k) => num(r.values[k] ?? ''));
    if (v.some((x) => !Number.isFinite(x))) return fail('number');
    if (r.type === 'randint') {
      if (!Number.isInteger(v[0]) || !Number.isInteger(v[1])) return fail('integer');
      if (v[0] >= v[1]) return fail('order');
    } else if (r.type.includes('normal')) {
      if (v[1] <= 0) return fail('sigma');
    } else {
      if (v[0] >= v[1]) return fail('order');
      if (r.type.includes('log') && v[0] <= 0) return fail('positive');
    }
    if (r.type.startsWith('q') && v[2] <= 0) return fail('q');
    space[name] = { _type: r.type, _value: v };
  });
  return { space, errors };
}

/** The rows of a space, or null when it has no row form (nested choices,
 *  unknown types, values of another shape). */
export function spaceToRows(space: SearchSpace): Row[] | null {
  const rows: Row[] = [];
  for (const [name, p] of Object.entries(space ?? {})) {
    if (!p || !(TYPES as readonly string[]).includes(p._type) || !Array.isArray(p._value)) return null;
    const type = p._type as ParamType;
    if (type === 'choice') {
      if (p._value.some((o) => o !== null && typeof o === 'object' && !Array.isArray(o))) return null;
      rows.push({ name, type, values: [p._value.map(optionText).join(', ')] });
      continue;
    }
    if (p._value.length !== fieldsOf(type).length || p._value.some((x) => typeof x !== 'number')) return null;
    rows.push({ name, type, values: p._value.map((x) => String(x)) });
  }
  return rows;
}

/** A row to start from for a type (its fields empty but for q). */
export function emptyRow(type: ParamType = 'uniform'): Row {
  return { name: '', type, values: fieldsOf(type).map(() => '') };
}
