// page.tsx — the models plugin's console pages, an ES module built against
// @cube/console-sdk (plugin.c registers it for the Model kind at
// /p/:project/models): the families (…/models), the register form
// (…/_new), one family with its metrics chart (…/_family/:family) and one
// version (…/:name). Pages past the list load when first shown.
import { definePage, PageRoutes } from '@cube/console-sdk';
import { lazy } from 'react';
import messages from './messages';

const ModelList = lazy(() => import('./ModelList'));
const RegisterModel = lazy(() => import('./RegisterModel'));
const FamilyPage = lazy(() => import('./FamilyPage'));
const VersionPage = lazy(() => import('./VersionPage'));

const routes = [
  { path: '/p/:project/models', element: <ModelList /> },
  { path: '/p/:project/models/_new', element: <RegisterModel /> },
  { path: '/p/:project/models/_family/:family', element: <FamilyPage /> },
  { path: '/p/:project/models/:name', element: <VersionPage /> },
];

function ModelPages() {
  return <PageRoutes routes={routes} />;
}

export const { mount } = definePage(ModelPages, { messages });
