// page.tsx — the notebook plugin's console page, an ES module built
// against @cube/console-sdk (plugin.c registers it for the Notebook kind
// at /p/:project/notebooks): a project's notebooks with the actions their
// phase allows, Delete and the create form, and one notebook's page.
import { definePage, PageRoutes } from '@cube/console-sdk';
import messages from './messages';
import { NotebookDetailPage } from './NotebookDetail';
import { NotebookListPage } from './NotebookPages';

const routes = [
  { path: '/p/:project/notebooks', element: <NotebookListPage /> },
  { path: '/p/:project/notebooks/:name', element: <NotebookDetailPage /> },
];

function NotebookPages() {
  return <PageRoutes routes={routes} />;
}

export const { mount } = definePage(NotebookPages, { messages });
