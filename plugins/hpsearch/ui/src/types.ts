// types.ts — the Experiment kind and its trials list, as the API answers them.
import type { CubeObject } from '@cube/console-sdk';

export type Direction = 'maximize' | 'minimize';

export interface ParamSpec {
  _type: string;
  _value: unknown[];
}
export type SearchSpace = Record<string, ParamSpec>;

export interface TrialTemplate {
  command: string[];
  args?: string[];
  resources?: Record<string, string | number>;
  env?: Record<string, string>;
  workdir?: string;
  pool?: string;
  timeoutSeconds?: number;
}

export type ExperimentSpec = {
  description?: string;
  searchSpace: SearchSpace;
  objective?: { metric?: string; direction?: Direction };
  tuner?: { name?: string; args?: Record<string, unknown> };
  assessor?: { name: string; args?: Record<string, unknown> };
  trial: TrialTemplate;
  trialConcurrency?: number;
  maxTrials?: number;
  maxDurationSeconds?: number;
  maxFailedTrials?: number;
};

export type ExperimentStatus = {
  phase?: string;
  message?: string;
  trials?: Record<string, number>;
  best?: { trial: number; job: string; parameters: Record<string, unknown>; value: number };
  started?: string;
  finished?: string;
  lastTrial?: number;
  stopRequested?: boolean;
};

export type Experiment = CubeObject<ExperimentSpec, ExperimentStatus>;

export interface Trial {
  trial: number;
  job: string;
  phase: string;
  parameters: Record<string, unknown>;
  value: number | null;
  intermediate?: [number, number][];
  lastStep: number;
  source: 'tuner' | 'user';
  started?: string;
  finished?: string;
  durationSeconds?: number | null;
  budget?: number;
  message?: string;
}

export interface TrialList {
  kind: 'TrialList';
  experiment: string;
  metric: string;
  direction: Direction;
  items: Trial[];
}
