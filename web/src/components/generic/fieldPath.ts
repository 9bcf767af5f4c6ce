// fieldPath.ts — the server names a bad field as a path such as
// "spec.tasks[2].retries" or "spec.resources.nvidia.com/gpu"; the form names
// its items as arrays (["spec", "tasks", 2, "retries"]). This walks the path
// along the schema so map keys containing dots stay one segment, and turns a
// map key into its row index in the form's values.

import { fieldKind, mapValueSchema, type JsonSchema, type MapRow } from './schema';

export type NamePath = (string | number)[];

/** Splits "a.b[2].c" into ["a", "b", 2, "c"] (no schema: every dot splits). */
export function parseFieldPath(path: string): NamePath {
  const out: NamePath = [];
  const re = /([^.[\]]+)|\[(\d+)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path)) !== null) out.push(m[2] !== undefined ? Number(m[2]) : m[1]);
  return out;
}

function get(v: unknown, key: string | number): unknown {
  return v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[key] : undefined;
}

/**
 * The form item name for a server field path, or undefined when the form
 * has no such item (the caller then shows the error above the form).
 * `root` is the schema of the whole object as the form sees it
 * ({properties: {metadata, spec}}); `values` the form's current values.
 */
export function formNameForField(path: string, root: JsonSchema, values: unknown): NamePath | undefined {
  return resolveField(path, root, values)?.name;
}

/** Like formNameForField, with the schema of the item the error lands on
 *  (the form shows errors of objects, arrays and maps beside their title). */
export function resolveField(
  path: string,
  root: JsonSchema,
  values: unknown,
): { name: NamePath; schema: JsonSchema | undefined } | undefined {
  const segs = parseFieldPath(path);
  const out: NamePath = [];
  let schema: JsonSchema | undefined = root;
  let value: unknown = values;
  let i = 0;
  while (i < segs.length) {
    const seg = segs[i];
    if (!schema) return out.length ? { name: out, schema } : undefined;
    const kind = fieldKind(schema);
    if (kind === 'map') {
      // The key may itself contain dots ("nvidia.com/gpu"): take the longest
      // run of name segments that is a row's key.
      const rows = (Array.isArray(value) ? value : []) as MapRow[];
      let j = segs.length;
      let idx = -1;
      for (; j > i; j--) {
        const key = segs.slice(i, j).filter((s) => typeof s === 'string').join('.');
        if (segs.slice(i, j).some((s) => typeof s === 'number')) continue;
        idx = rows.findIndex((r) => r && r.key === key);
        if (idx >= 0) break;
      }
      if (idx < 0) return out.length ? { name: out, schema } : undefined;
      out.push(idx, 'value');
      value = rows[idx]?.value;
      schema = mapValueSchema(schema);
      i = j;
      continue;
    }
    if (kind === 'array') {
      if (typeof seg !== 'number') return { name: out, schema };
      out.push(seg);
      value = get(value, seg);
      schema = schema.items;
      i++;
      continue;
    }
    if (kind === 'object' && typeof seg === 'string' && schema.properties?.[seg]) {
      out.push(seg);
      value = get(value, seg);
      schema = schema.properties[seg];
      i++;
      continue;
    }
    // A scalar, union or JSON field that the path goes below: the error
    // belongs to that field as a whole.
    return out.length ? { name: out, schema } : undefined;
  }
  return { name: out, schema };
}
