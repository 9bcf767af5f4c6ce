// types.ts — the Model kind as the API answers it.
import type { CubeObject } from '@cube/console-sdk';

export type Framework = 'sklearn' | 'xgboost' | 'pytorch' | 'onnx' | 'custom';
export type Stage = 'none' | 'staging' | 'production' | 'archived';
export const FRAMEWORKS: Framework[] = ['sklearn', 'xgboost', 'pytorch', 'onnx', 'custom'];
export const STAGES: Stage[] = ['none', 'staging', 'production', 'archived'];

export interface ModelSource {
  kind: 'Job' | 'PipelineRun' | 'Experiment' | 'Notebook';
  name: string;
  pipeline?: string;
  task?: string;
  trial?: number;
  job?: string;
}

export type ModelSpec = {
  name: string;
  version?: number;
  framework: Framework;
  pytorch?: { format?: 'torchscript' | 'state_dict'; class?: string; init?: Record<string, unknown> };
  path?: string;
  describe?: string;
  metrics?: Record<string, number | string | boolean>;
  params?: Record<string, unknown>;
  source?: ModelSource;
  inference?: { inputSchema?: object; outputSchema?: object; exampleRequest?: unknown };
};

export interface ModelFile {
  path: string;
  size: number;
  sha256: string;
  md5: string;
  format?: string;
}

export type ModelStatus = {
  phase?: 'Pending' | 'AwaitingUpload' | 'Ready' | 'Failed';
  message?: string;
  field?: string;
  stage?: Stage;
  registered?: string;
  root?: string;
  entry?: string;
  format?: string;
  files?: ModelFile[];
  size?: number;
  sha256?: string;
  md5?: string;
  stageHistory?: { stage: Stage; from: Stage; by: string; at: string }[];
  deployments?: string[];
};

export type Model = CubeObject<ModelSpec, ModelStatus>;

/** A model family: its versions, newest first. */
export interface Family {
  name: string;
  versions: Model[];
  production?: Model;
  latest: Model;
}
