// api.ts — the serving plugin's API as the console calls it.
//   inferenceservices: a resource (/api/v1/projects/{p}/inferenceservices[/{name}])
//   POST …/{name}/rollback {revision}   GET …/{name}/samples   (actions.c)
//   models: the models plugin's resource, read for the create form and try-it
//   POST …/{name}/test  a body to a ready replica (try it)
import { api, resourcePath } from '@cube/console-sdk';
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

/** The console's "try it": POST …/{name}/test sends body to a ready
 *  replica's v2 infer path (the service's URL lives on the apps origin,
 *  which the console's session does not reach) and answers
 *  {status, predictor, body | text}; ms is the round trip seen here. */
export async function infer(svc: Service, body: unknown) {
  const t0 = performance.now();
  const r = await api.post<{ status: number; predictor: string; body?: unknown; text?: string }>(
    servicesPath(svc.metadata.project!, svc.metadata.name, 'test'), body);
  return { status: r.status, predictor: r.predictor, answer: r.body ?? r.text, ms: performance.now() - t0 };
}
