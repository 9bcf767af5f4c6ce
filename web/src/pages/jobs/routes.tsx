// routes.tsx — the jobs area: a project's jobs, the Job form and one job
// (logs, stop). The generic create page of Jobs goes to the form.
import type { RouteObject } from 'react-router-dom';
import { JobFormPage, JobNewRedirect } from './JobForm';
import { JobDetailPage, JobListPage } from './JobPages';
export { default as messages } from './messages';

export const routes: RouteObject[] = [
  { path: '/p/:project/jobs', element: <JobListPage /> },
  { path: '/p/:project/jobs/new', element: <JobFormPage /> },
  { path: '/p/:project/k/jobs/new', element: <JobNewRedirect /> },
  { path: '/p/:project/jobs/:name', element: <JobDetailPage /> },
];
