// page.tsx — the hpsearch plugin's console pages, an ES module built against
// @cube/console-sdk (plugin.c registers it for the Experiment kind at
// /p/:project/experiments): the list, the create form (…/_new) and one
// experiment's page. The form and the experiment page load when first shown.
import { definePage, PageRoutes } from '@cube/console-sdk';
import { lazy } from 'react';
import messages from './messages';

const ExperimentList = lazy(() => import('./ExperimentList'));
const CreateExperiment = lazy(() => import('./CreateExperiment'));
const ExperimentPage = lazy(() => import('./ExperimentPage'));

const routes = [
  { path: '/p/:project/experiments', element: <ExperimentList /> },
  { path: '/p/:project/experiments/_new', element: <CreateExperiment /> },
  { path: '/p/:project/experiments/:name', element: <ExperimentPage /> },
];

function ExperimentPages() {
  return <PageRoutes routes={routes} />;
}

export const { mount } = definePage(ExperimentPages, { messages });
