// yamlText.ts — an object as YAML text for the editor's YAML mode, and back.
// Status and server-owned metadata stay out of the text: the editor sends
// metadata (name, labels, annotations, resourceVersion) and spec.

import { parse, stringify } from 'yaml';
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
