// api.ts — the serving plugin's API as the console calls it.
//   inferenceservices: a resource (/api/v1/projects/{p}/inferenceservices[/{name}])
//   POST …/{name}/rollback {revision}   GET …/{name}/samples   (actions.c)
//   models: the models plugin's resource, read for the create form and try-it
//   the service itself: status.url (/serving/{p}/{name}/), its v2 infer path
import { api, apiFetch, errorFromResponse, resourcePath } from '@cube/console-sdk';
import type { Model, Samples, Service, ServiceSpec } from './types';

export const servicesPath = (project: string, name?: string, sub?: string) =>
  resourcePath('inferenceservices', project, name, sub);
export const modelsPath = (project: string, name?: string) => resourcePath('models', project, name);

export const createService = (project: string, name: string, spec: ServiceSpec) =>
  api.post<Service>(servicesPath(project), {
    apiVersion: 'cube/v1', kind: 'InferenceService', metadata: { name, project }, spec });

export const patchSpec = (project: string, name: string, spec: Partial<ServiceSpec>) =>
  api.patch<Service>(servicesPath(project, name), { spec });

export const rollback = (project: string, name: string, revision: number) =>
  api.post<Service>(servicesPath(project, name, 'rollback'), { revision });

export const samples = (project: string, name: string) => api.get<Samples>(servicesPath(project, name, 'samples'));

export const getModel = (project: string, name: string) => api.get<Model>(modelsPath(project, name));

export const deleteService = (project: string, name: string) => api.del(servicesPath(project, name));

/** The service's Open Inference Protocol v2 infer URL (through cubed's proxy). */
export const inferUrl = (svc: Service) =>
  `${svc.status?.url ?? `/serving/${svc.metadata.project}/${svc.metadata.name}/`}v2/models/${encodeURIComponent(svc.metadata.name)}/infer`;

/** POSTs body to the service (the console's session): status, answer, ms. */
export async function infer(svc: Service, body: unknown): Promise<{ status: number; answer: unknown; ms: number }> {
  const t0 = performance.now();
  const res = await apiFetch(inferUrl(svc), {
    method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
  const ms = performance.now() - t0;
  if (res.status >= 500 && res.status !== 503) throw await errorFromResponse(res);
  const text = await res.text();
  let answer: unknown = text;
  try {
    answer = JSON.parse(text);
  } catch {
    /* not JSON: shown as text */
  }
  return { status: res.status, answer, ms };
}
