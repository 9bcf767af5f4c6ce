// routes.tsx — the jobs area: a project's jobs and one job (logs, stop).
import type { RouteObject } from 'react-router-dom';
import { JobDetailPage, JobListPage } from './JobPages';
export { default as messages } from './messages';

export const routes: RouteObject[] = [
  { path: '/p/:project/jobs', element: <JobListPage /> },
  { path: '/p/:project/jobs/:name', element: <JobDetailPage /> },
];
