// types.ts — the pipeline plugin's kinds as the console sees them
// (Pipeline, PipelineRun, JobTemplate / ProjectJobTemplate).
import type { CubeObject } from '@cube/console-sdk';

/** One argument of a template's schema (Cube Studio's format). */
export interface ArgSpec {
  type: ArgType;
  item_type?: 'int' | 'str' | 'text' | 'float' | 'dict';
  label?: string;
  require?: 0 | 1;
  choice?: (string | number)[];
  /** "min,max" */
  range?: string;
  default?: unknown;
  placeholder?: string;
  describe?: string;
  editable?: 0 | 1;
  sub_args?: Record<string, ArgSpec>;
}

export type ArgType =
  | 'int' | 'bool' | 'str' | 'text' | 'enum' | 'float' | 'multiple' | 'dict' | 'list' | 'file' | 'json';

/** {group: {"--arg": spec}} */
export type ArgsSchema = Record<string, Record<string, ArgSpec>>;

export type TemplateSpec = {
  version?: string;
  description?: string;
  category?: string;
  image?: string;
  command: string[];
  workdir?: string;
  env?: Record<string, string>;
  resources?: Record<string, string | number>;
  args?: ArgsSchema;
  example?: Record<string, unknown>;
};

export type JobTemplate = CubeObject<TemplateSpec>;

export interface TaskLayout {
  x: number;
  y: number;
}

export interface PipelineTask {
  name: string;
  label?: string;
  template?: string;
  args?: Record<string, unknown>;
  command?: string[];
  workdir?: string;
  resources?: Record<string, string | number>;
  retries?: number;
  retryBackoffSeconds?: number;
  timeoutSeconds?: number;
  skip?: boolean;
  nodeSelector?: Record<string, string>;
  env?: Record<string, string>;
  upstream?: string[];
  layout?: TaskLayout;
  [extra: string]: unknown;
}

export type PipelineSpec = {
  description?: string;
  tasks: PipelineTask[];
  env?: Record<string, string>;
  parallelism?: number;
  /** "once" or a cron expression */
  schedule?: string;
  timezone?: string;
  startTime?: string;
  paused?: boolean;
  dependsOnPast?: boolean;
  maxActiveRuns?: number;
  expiredLimit?: number;
  alerts?: string[];
  alertUsers?: string[];
};

export type PipelineStatus = {
  tasks?: number;
  lastRun?: string;
  /** When lastRun was made. */
  lastRunCreated?: string;
  lastTick?: string;
  nextTick?: string;
  message?: string;
};

export type Pipeline = CubeObject<PipelineSpec, PipelineStatus>;

export type TaskPhase =
  | 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Skipped' | 'UpstreamFailed' | 'Stopped';
export type RunPhase = 'Queued' | 'Running' | 'Succeeded' | 'Failed' | 'Stopped';

export interface ResultFile {
  name: string;
  type: 'image' | 'csv' | 'json' | 'echarts' | 'markdown' | 'text' | 'html';
  size?: number;
  url: string;
}

export interface TaskStatus {
  phase?: TaskPhase;
  job?: string;
  started?: string;
  finished?: string;
  message?: string;
  attempts?: number;
  rerun?: number;
  outputs?: Record<string, unknown>;
  results?: ResultFile[];
}

export type RunSpec = {
  pipeline: string;
  executionDate?: string;
  trigger?: 'manual' | 'schedule' | 'backfill';
  creator?: string;
  parallelism?: number;
  tasks: PipelineTask[];
};

export type RunStatus = {
  phase?: RunPhase;
  progress?: string;
  started?: string;
  finished?: string;
  message?: string;
  reruns?: number;
  tasks?: Record<string, TaskStatus>;
};

export type PipelineRun = CubeObject<RunSpec, RunStatus>;
