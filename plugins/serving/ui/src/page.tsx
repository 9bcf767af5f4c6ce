// page.tsx — the serving plugin's console pages, an ES module built against
// @cube/console-sdk (plugin.c registers it for the InferenceService kind at
// /p/:project/inferenceservices): the services (…/inferenceservices), the
// create form (…/_new) and one service (…/:name: traffic, mirror, charts,
// try it, revisions, events). Pages past the list load when first shown.
import { definePage, PageRoutes } from '@cube/console-sdk';
import { lazy } from 'react';
import messages from './messages';
import ServiceList from './ServiceList';

const CreateService = lazy(() => import('./CreateService'));
const ServicePage = lazy(() => import('./ServicePage'));

const routes = [
  { path: '/p/:project/inferenceservices', element: <ServiceList /> },
  { path: '/p/:project/inferenceservices/_new', element: <CreateService /> },
  { path: '/p/:project/inferenceservices/:name', element: <ServicePage /> },
];

function ServingPages() {
  return <PageRoutes routes={routes} />;
}

export const { mount } = definePage(ServingPages, { messages });
