// schema.ts — the subset of JSON Schema that kinds use, and the translation
// between an object's JSON and the values of the generated form.
//
// The form keeps the object's own shape (metadata, spec ...) with one
// exception: maps (objects with additionalProperties and no properties) are
// edited as lists of {key, value} rows, because antd's Form cannot name a
// field whose key the user is still typing. toFormValues / fromFormValues
// convert between the two; everything else passes through unchanged.

export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
}

/** What the form renders for a schema node. */
export type FieldKind =
  | 'string'
  | 'text'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'enum'
  | 'object'
  | 'map'
  | 'array'
  | 'union'
  | 'json';

export interface MapRow {
  key: string;
  value: unknown;
}

function typeOf(s: JsonSchema): string | undefined {
  return Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
}

/** The branches of a oneOf/anyOf, or undefined when the node is no union. */
export function unionBranches(s: JsonSchema): JsonSchema[] | undefined {
  const b = s.oneOf ?? s.anyOf;
  return b && b.length > 0 ? b : undefined;
}

/** True when every branch is a scalar (string, number, integer, boolean, enum). */
export function isScalarUnion(s: JsonSchema): boolean {
  const b = unionBranches(s);
  return !!b && b.every((x) => ['string', 'number', 'integer', 'boolean'].includes(typeOf(x) ?? '') || !!x.enum);
}

/** Classifies a schema node into the widget the form draws for it. */
export function fieldKind(s: JsonSchema | undefined): FieldKind {
  if (!s) return 'json';
  if (s.enum) return 'enum';
  if (s.const !== undefined) return 'enum';
  if (unionBranches(s)) return isScalarUnion(s) ? 'union' : 'json';
  switch (typeOf(s)) {
    case 'string':
      return (s.maxLength ?? 0) > 1024 || s.format === 'textarea' ? 'text' : 'string';
    case 'integer':
      return 'integer';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'array';
    case 'object':
      if (s.properties) return 'object';
      if (s.additionalProperties && typeof s.additionalProperties === 'object') return 'map';
      return 'json';
    default:
      return s.properties ? 'object' : 'json';
  }
}

/** The schema of a map's values as the form edits them: string when the
 *  map does not say, JSON text when the values are objects or lists. */
export function mapValueSchema(s: JsonSchema): JsonSchema {
  const vs = typeof s.additionalProperties === 'object' ? s.additionalProperties : { type: 'string' };
  const k = fieldKind(vs);
  return k === 'object' || k === 'array' || k === 'map' ? { description: vs.description } : vs;
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** The value a new object starts with: defaults of the schema, nested
 *  objects filled in, required arrays with minItems empty items. */
export function defaultsFor(s: JsonSchema | undefined): unknown {
  if (!s) return undefined;
  if (s.default !== undefined) return clone(s.default);
  const k = fieldKind(s);
  if (k === 'object' && s.properties) {
    const out: Record<string, unknown> = {};
    for (const [name, sub] of Object.entries(s.properties)) {
      const v = defaultsFor(sub);
      if (v !== undefined) out[name] = v;
    }
    return Object.keys(out).length ? out : undefined;
  }
  if (k === 'array' && (s.minItems ?? 0) > 0) {
    const item = fieldKind(s.items) === 'string' ? '' : defaultsFor(s.items);
    return Array.from({ length: s.minItems ?? 0 }, () => clone(item));
  }
  return undefined;
}

/** Object JSON -> form values (maps become rows), following the schema. */
export function toFormValues(s: JsonSchema | undefined, v: unknown): unknown {
  if (v === undefined || v === null || !s) return v;
  const k = fieldKind(s);
  if (k === 'map' && typeof v === 'object' && !Array.isArray(v)) {
    const vs = mapValueSchema(s);
    return Object.entries(v as Record<string, unknown>).map(([key, value]) => ({
      key,
      value: toFormValues(vs, value),
    }));
  }
  if (k === 'object' && s.properties && typeof v === 'object' && !Array.isArray(v)) {
    const out: Record<string, unknown> = { ...(v as Record<string, unknown>) };
    for (const [name, sub] of Object.entries(s.properties))
      if (name in out) out[name] = toFormValues(sub, out[name]);
    return out;
  }
  if (k === 'array' && Array.isArray(v)) return v.map((x) => toFormValues(s.items, x));
  if (k === 'json') return JSON.stringify(v, null, 2);
  return v;
}

/** A scalar union's text back to the branch it fits: numbers when a number
 *  branch exists and the text is numeric, booleans likewise, else the text. */
export function coerceUnion(s: JsonSchema, v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const types = (unionBranches(s) ?? []).map(typeOf);
  const t = v.trim();
  if ((types.includes('number') || types.includes('integer')) && /^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (types.includes('boolean') && (t === 'true' || t === 'false')) return t === 'true';
  return v;
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

/** Form values -> object JSON: rows back into maps, empty inputs dropped,
 *  unions coerced, JSON text fields parsed (a bad one throws SyntaxError
 *  whose message names the field path). */
export function fromFormValues(s: JsonSchema | undefined, v: unknown, path = ''): unknown {
  if (isEmpty(v)) return undefined;
  const k = fieldKind(s);
  if (!s) return v;
  if (k === 'map' && Array.isArray(v)) {
    const vs = mapValueSchema(s);
    const out: Record<string, unknown> = {};
    for (const row of v as MapRow[]) {
      if (!row || isEmpty(row.key)) continue;
      const val = fromFormValues(vs, row.value, `${path}.${row.key}`);
      out[row.key] = val === undefined ? (fieldKind(vs) === 'string' ? '' : null) : val;
    }
    return out;
  }
  if (k === 'object' && typeof v === 'object' && !Array.isArray(v)) {
    const out: Record<string, unknown> = {};
    for (const [name, val] of Object.entries(v as Record<string, unknown>)) {
      const sub = s.properties?.[name];
      const conv = sub ? fromFormValues(sub, val, path ? `${path}.${name}` : name) : val;
      if (conv !== undefined) out[name] = conv;
    }
    return out;
  }
  if (k === 'array' && Array.isArray(v)) {
    const items = v.map((x, i) => fromFormValues(s.items, x, `${path}[${i}]`));
    return items.filter((x) => x !== undefined);
  }
  if (k === 'union') return coerceUnion(s, v);
  if (k === 'json' && typeof v === 'string') {
    try {
      return JSON.parse(v);
    } catch (e) {
      throw new SyntaxError(`${path}: ${(e as Error).message}`);
    }
  }
  return v;
}

/** A label for a property: its title, else the name split at capitals. */
export function labelOf(name: string, s?: JsonSchema): string {
  if (s?.title) return s.title;
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
