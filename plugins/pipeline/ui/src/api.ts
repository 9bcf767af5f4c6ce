// api.ts — the pipeline plugin's routes, as the console calls them.
//
// Pipelines and runs are resources (/api/v1/projects/{p}/pipelines …);
// actions are sub-resources the plugin registers:
//   POST pipelines/{name}/run {executionDate?}   POST pipelines/{name}/backfill {start, end}
//   POST pipelines/{name}/copy {name}            POST pipelineruns/{name}/stop
//   POST pipelineruns/{name}/rerun {from?}       GET  pipelineruns/{run}/tasks/{task}/logs
//   GET  pipelines/{name}/export (YAML)          POST pipelines/import[?name=] (YAML or JSON)
// Templates: the catalog (cluster JobTemplates) and the project's own
// (ProjectJobTemplates, listed first, as the server resolves them).
import { api, apiFetch, ApiError, errorFromResponse, resourcePath } from '@cube/console-sdk';
import type { ObjectList } from '@cube/console-sdk';
import type { JobTemplate, Pipeline, PipelineRun, PipelineSpec } from './types';

export const pipelinesPath = (project: string, name?: string, sub?: string) =>
  resourcePath('pipelines', project, name, sub);
export const runsPath = (project: string, name?: string, sub?: string) =>
  resourcePath('pipelineruns', project, name, sub);
export const taskLogsPath = (project: string, run: string, task: string) =>
  `${runsPath(project, run)}/tasks/${encodeURIComponent(task)}/logs`;

export interface TemplateEntry {
  template: JobTemplate;
  /** true for a ProjectJobTemplate */
  custom: boolean;
}

/** Project templates first, then the catalog's not shadowed by them. */
export async function loadTemplates(project: string): Promise<TemplateEntry[]> {
  const [catalog, own] = await Promise.all([
    api.get<ObjectList<JobTemplate>>(resourcePath('jobtemplates')),
    api.get<ObjectList<JobTemplate>>(resourcePath('projectjobtemplates', project)).catch((e) => {
      if (e instanceof ApiError && e.status === 404) return { kind: 'List', items: [] };
      throw e;
    }),
  ]);
  const mine = new Set(own.items.map((t) => t.metadata.name));
  return [
    ...own.items.map((template) => ({ template, custom: true })),
    ...catalog.items.filter((t) => !mine.has(t.metadata.name)).map((template) => ({ template, custom: false })),
  ];
}

/** Creates (no resourceVersion) or replaces the pipeline. */
export function savePipeline(project: string, p: Pipeline, isNew: boolean): Promise<Pipeline> {
  const body = { apiVersion: 'cube/v1', kind: 'Pipeline', ...p, metadata: { ...p.metadata, project } };
  return isNew
    ? api.post<Pipeline>(pipelinesPath(project), body)
    : api.put<Pipeline>(pipelinesPath(project, p.metadata.name), body);
}

/** A JSON merge patch of the spec (null removes a member). */
export const patchPipelineSpec = (project: string, name: string, spec: { [K in keyof PipelineSpec]?: PipelineSpec[K] | null }) =>
  api.patch<Pipeline>(pipelinesPath(project, name), { spec });

export const runPipeline = (project: string, name: string, executionDate?: string) =>
  api.post<PipelineRun>(pipelinesPath(project, name, 'run'), executionDate ? { executionDate } : {});

/** The runs a backfill created, how many of its ticks had one already. */
export interface BackfillAnswer {
  created?: string[];
  existing?: number;
  ticks?: number;
}

export const backfillPipeline = (project: string, name: string, start: string, end: string) =>
  api.post<BackfillAnswer>(pipelinesPath(project, name, 'backfill'), { start, end });

export const copyPipeline = (project: string, name: string, to: string) =>
  api.post<Pipeline>(pipelinesPath(project, name, 'copy'), { name: to });

export const deletePipeline = (project: string, name: string) => api.del(pipelinesPath(project, name));

export const stopRun = (project: string, run: string) => api.post(runsPath(project, run, 'stop'), {});

export const rerunRun = (project: string, run: string, from?: string) =>
  api.post<PipelineRun>(runsPath(project, run, 'rerun'), from ? { from } : {});

/** The pipeline as the server exports it (YAML text). */
export async function exportPipelineText(project: string, name: string): Promise<string> {
  const res = await apiFetch(pipelinesPath(project, name, 'export'), { headers: { Accept: 'application/yaml' } });
  if (!res.ok) throw await errorFromResponse(res);
  return res.text();
}

/** Creates a pipeline from an exported document (sent as JSON); `name` renames it. */
export const importPipelineDoc = (project: string, doc: unknown, name?: string) =>
  api.post<Pipeline>(`${pipelinesPath(project)}/import`, JSON.stringify(doc), { query: { name } });
