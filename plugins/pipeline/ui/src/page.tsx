// page.tsx — the pipeline plugin's console page, an ES module built
// against @cube/console-sdk (plugin.c registers it for the Pipeline kind
// at /p/:project/pipelines): the list, the editor (…/_new for a new one),
// runs and schedule of one pipeline, and one run at …/:name/runs/:run.
// The editor and the run view are loaded when first shown.
import { definePage, PageRoutes } from '@cube/console-sdk';
import flowCss from '@xyflow/react/dist/style.css?inline';
import { lazy } from 'react';
import messages from './messages';

const PipelineList = lazy(() => import('./PipelineList'));
const PipelineDetail = lazy(() => import('./PipelineDetail'));
const RunPage = lazy(() => import('./RunPage'));

const routes = [
  { path: '/p/:project/pipelines', element: <PipelineList /> },
  { path: '/p/:project/pipelines/:name', element: <PipelineDetail /> },
  { path: '/p/:project/pipelines/:name/runs/:run', element: <RunPage /> },
];

/** The DAG views' stylesheet, added to the document once. */
function addFlowStyle() {
  if (!flowCss || document.getElementById('cube-pipeline-flow-css')) return;
  const style = document.createElement('style');
  style.id = 'cube-pipeline-flow-css';
  style.textContent = flowCss;
  document.head.append(style);
}

function PipelinePages() {
  addFlowStyle();
  return <PageRoutes routes={routes} />;
}

export const { mount } = definePage(PipelinePages, { messages });
