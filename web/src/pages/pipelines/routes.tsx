// routes.tsx — the pipelines area: list, editor (…/_new for a new one),
// runs, schedule; one run at …/:name/runs/:run. The editor and the run view
// load @xyflow/react (and echarts for charts) in their own chunks.
import { lazy } from 'react';
import type { RouteObject } from 'react-router-dom';
export { default as messages } from './messages';

const PipelineList = lazy(() => import('./PipelineList'));
const PipelineDetail = lazy(() => import('./PipelineDetail'));
const RunPage = lazy(() => import('./RunPage'));

export const routes: RouteObject[] = [
  { path: '/p/:project/pipelines', element: <PipelineList /> },
  { path: '/p/:project/pipelines/:name', element: <PipelineDetail /> },
  { path: '/p/:project/pipelines/:name/runs/:run', element: <RunPage /> },
];
