// api.ts — the hpsearch plugin's API as the console calls it.
//   experiments: a resource (/api/v1/projects/{p}/experiments[/{name}])
//   POST …/{name}/stop, POST …/{name}/resume
//   GET  …/{name}/trials[?curves=0]   POST …/{name}/trials {parameters}
//   a trial's log: its Job's (…/jobs/{job}/logs)
import { api, resourcePath } from '@cube/console-sdk';
import type { Experiment, ExperimentSpec, TrialList } from './types';

export const experimentsPath = (project: string, name?: string, sub?: string) =>
  resourcePath('experiments', project, name, sub);
export const jobLogsPath = (project: string, job: string) => resourcePath('jobs', project, job, 'logs');

export const createExperiment = (project: string, name: string, spec: ExperimentSpec) =>
  api.post<Experiment>(experimentsPath(project), {
    apiVersion: 'cube/v1', kind: 'Experiment', metadata: { name, project }, spec,
  });

export const stopExperiment = (project: string, name: string) => api.post(experimentsPath(project, name, 'stop'), {});
export const resumeExperiment = (project: string, name: string) => api.post(experimentsPath(project, name, 'resume'), {});
export const deleteExperiment = (project: string, name: string) => api.del(experimentsPath(project, name));
export const listTrials = (project: string, name: string) => api.get<TrialList>(experimentsPath(project, name, 'trials'));
export const addTrial = (project: string, name: string, parameters: Record<string, unknown>) =>
  api.post(experimentsPath(project, name, 'trials'), { parameters });

/** The phases an experiment does not leave by itself. */
export const ended = (phase?: string) => phase === 'Succeeded' || phase === 'Failed' || phase === 'Stopped';
