// porting.ts — reading a pipeline document before import.
//
// The server exports {apiVersion, kind, metadata: {name, labels}, spec} as
// YAML and imports the YAML it writes, or JSON. Documents are read here
// with a complete YAML parser (hand-edited files may use any YAML), checked
// for the parts import needs, and sent to the server as JSON. A bare spec
// ({tasks: [...]}) is accepted when the name is given apart.
import { parse } from 'yaml';
import type { Pipeline } from './types';

export class ImportError extends Error {}

/** The Pipeline a document describes; `name` replaces its name when given. */
export function importPipeline(text: string, name?: string): Pipeline {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new ImportError(e instanceof Error ? e.message : String(e));
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new ImportError('not an object');
  const o = doc as Record<string, unknown>;
  const spec = (o.spec ?? (Array.isArray(o.tasks) ? o : undefined)) as Pipeline['spec'];
  if (!spec || !Array.isArray(spec.tasks)) throw new ImportError('spec.tasks missing');
  const meta = (o.metadata ?? {}) as Record<string, unknown>;
  const finalName = name || (typeof meta.name === 'string' ? meta.name : '');
  if (!finalName) throw new ImportError('metadata.name missing');
  const labels = meta.labels && typeof meta.labels === 'object' ? (meta.labels as Record<string, string>) : undefined;
  return { kind: 'Pipeline', metadata: { name: finalName, ...(labels ? { labels } : {}) }, spec };
}

/** Offers text as a file download. */
export function download(name: string, text: string, type = 'application/yaml') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
