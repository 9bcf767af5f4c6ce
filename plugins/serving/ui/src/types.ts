// types.ts — the InferenceService kind (and the Model fields the pages
// read) as the API answers them.
import type { CubeObject } from '@cube/console-sdk';

export type Runtime = 'sklearn' | 'xgboost' | 'pytorch' | 'onnx' | 'custom';
export type Stage = 'debug' | 'test' | 'prod';
export const STAGES: Stage[] = ['debug', 'test', 'prod'];

export interface Predictor {
  name: string;
  model?: string | { name: string };
  runtime?: Runtime;
  resources?: Record<string, string | number>;
  replicas?: { min?: number; max?: number };
  batching?: { maxBatchSize?: number; maxLatencyMs?: number };
  [k: string]: unknown;
}
export interface Share { predictor: string; percent: number }

export type ServiceSpec = {
  predictors: Predictor[];
  traffic?: Share[];
  mirror?: Share;
  autoscale?: Record<string, unknown>;
  stage?: Stage;
  public?: boolean;
};

export interface PredictorStatus {
  name: string;
  model?: string;
  ready?: number;
  desired?: number;
  reason?: string;
  message?: string;
}
export interface Revision { revision: number; created?: string; spec: ServiceSpec }

export type ServiceStatus = {
  phase?: string;
  url?: string;
  message?: string;
  revision?: number;
  predictors?: PredictorStatus[];
  traffic?: Share[];
  revisions?: Revision[];
};
export type Service = CubeObject<ServiceSpec, ServiceStatus>;

export type ModelSpec = {
  name: string;
  version?: number;
  framework: Runtime;
  inference?: { exampleRequest?: unknown };
};
export type Model = CubeObject<ModelSpec, { phase?: string; stage?: string }>;

/** GET …/samples: columns of the charts' series, one entry per 5 s. */
export interface Samples {
  t: number[];
  rps: number[];
  errors: number[];
  p50: number[];
  p99: number[];
  inflight: number[];
  ready: number[];
}
