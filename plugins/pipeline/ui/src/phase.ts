// phase.ts — colours of task and run phases (Ant Design tag colours).
export const PHASE_COLOR: Record<string, string> = {
  Pending: 'default', Queued: 'default', Running: 'processing', Succeeded: 'success', Failed: 'error',
  UpstreamFailed: 'warning', Skipped: 'default', Stopped: 'warning',
};

/** Border colours of graph nodes by phase. */
export const PHASE_BORDER: Record<string, string> = {
  Pending: '#d9d9d9', Queued: '#d9d9d9', Running: '#1677ff', Succeeded: '#52c41a', Failed: '#ff4d4f',
  UpstreamFailed: '#faad14', Skipped: '#bfbfbf', Stopped: '#faad14',
};
