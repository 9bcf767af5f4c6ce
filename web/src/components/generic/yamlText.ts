// yamlText.ts — an object as YAML text for the editor's YAML mode, and back.
// Status and server-owned metadata stay out of the text: the editor sends
// metadata (name, labels, annotations, resourceVersion) and spec.

import { parse, parseDocument, stringify } from 'yaml';
import { parseFieldPath } from './fieldPath';
import type { CubeObject } from '../../api/types';

const SERVER_META = ['uid', 'created', 'updated', 'generation', 'owner', 'project'];

/** The editable part of an object, as YAML. */
export function objectToYaml(obj: Partial<CubeObject>): string {
  const meta = { ...(obj.metadata ?? {}) } as Record<string, unknown>;
  for (const k of SERVER_META) delete meta[k];
  const doc: Record<string, unknown> = {};
  if (obj.apiVersion) doc.apiVersion = obj.apiVersion;
  if (obj.kind) doc.kind = obj.kind;
  doc.metadata = meta;
  doc.spec = obj.spec ?? {};
  return stringify(doc, { lineWidth: 0 });
}

/** Parses the editor's YAML; throws Error naming the line on bad YAML or
 *  when the document is not an object. */
export function yamlToObject(text: string): Partial<CubeObject> {
  const doc = parse(text, { prettyErrors: true });
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('not an object');
  return doc as Partial<CubeObject>;
}

/** The 1-based line of a field path ("spec.tasks[2].retries") in YAML
 *  text, or the line of its nearest parent present; undefined if none. */
export function lineOfField(text: string, field: string): number | undefined {
  let doc;
  try {
    doc = parseDocument(text);
  } catch {
    return undefined;
  }
  const path = parseFieldPath(field);
  for (let n = path.length; n > 0; n--) {
    const node = doc.getIn(path.slice(0, n), true) as { range?: [number, number, number] } | undefined;
    // A scalar's range is its value; a map's or list's starts at its first entry.
    if (node && typeof node === 'object' && node.range) {
      return text.slice(0, node.range[0]).split('\n').length;
    }
  }
  return undefined;
}
