// api.ts — the models plugin's API as the console calls it.
//   models: a resource (/api/v1/projects/{p}/models[/{name}])
//   POST …/{name}/promote {stage}   POST …/{name}/deploy {service?}
//   POST …/{name}/files?path=       the file's bytes (streamed upload)
//   GET  …/{name}/files[/{path}]    the files, one file's bytes
import { api, apiUpload, resourcePath } from '@cube/console-sdk';
import type { Model, ModelSpec, Stage } from './types';

export const modelsPath = (project: string, name?: string, sub?: string) => resourcePath('models', project, name, sub);

export const filePath = (project: string, name: string, path: string) =>
  `${modelsPath(project, name, 'files')}/${path.split('/').map(encodeURIComponent).join('/')}`;

export const createModel = (project: string, name: string, spec: ModelSpec) =>
  api.post<Model>(modelsPath(project), { apiVersion: 'cube/v1', kind: 'Model', metadata: { name, project }, spec });

export const uploadFile = (project: string, name: string, file: Blob, path: string,
  onProgress?: (sent: number, total: number) => void, signal?: AbortSignal) =>
  apiUpload<Model>(modelsPath(project, name, 'files'), file, { query: { path }, onProgress, signal });

export const deleteFile = (project: string, name: string, path: string) => api.del<Model>(filePath(project, name, path));

export const promote = (project: string, name: string, stage: Stage) =>
  api.post<Model & { demoted?: string[] }>(modelsPath(project, name, 'promote'), { stage });

export const deploy = (project: string, name: string, service?: string) =>
  api.post<{ created: boolean; service: { metadata: { name: string } } }>(
    modelsPath(project, name, 'deploy'), service ? { service } : {});

export const deleteModel = (project: string, name: string) => api.del(modelsPath(project, name));
