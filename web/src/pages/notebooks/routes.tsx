// routes.tsx — the notebooks area: the list of a project's notebooks (with
// Open, stop, restart, renew and the create form).
import type { RouteObject } from 'react-router-dom';
import { NotebookListPage } from './NotebookPages';
export { default as messages } from './messages';

export const routes: RouteObject[] = [
  { path: '/p/:project/notebooks', element: <NotebookListPage /> },
  { path: '/p/:project/notebooks/*', element: <NotebookListPage /> },
];
