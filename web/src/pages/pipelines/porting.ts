// porting.ts — a pipeline as a YAML (or JSON) document and back.
//
// Export keeps what defines the pipeline (name, description in spec, labels,
// spec) and drops what the server owns (uid, versions, status), so a file
// exported here imports into any project. Import accepts YAML or JSON of
// that shape, or of a bare spec ({tasks: [...]}) with the name given apart.
import { parse, stringify } from 'yaml';
import type { Pipeline } from './types';

export function exportPipeline(p: Pipeline): string {
  const doc: Record<string, unknown> = {
    apiVersion: 'cube/v1',
    kind: 'Pipeline',
    metadata: { name: p.metadata.name, ...(p.metadata.labels ? { labels: p.metadata.labels } : {}) },
    spec: p.spec,
  };
  return stringify(doc);
}

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
