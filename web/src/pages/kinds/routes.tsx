// routes.tsx — the kinds area: generic list, detail, create and edit pages
// of every kind (cluster kinds under /k, project kinds under /p/:project/k).
import type { RouteObject } from 'react-router-dom';
import { KindDetailPage, KindEditPage, KindListPage, KindNewPage } from './KindPages';
export { default as messages } from './messages';

export const routes: RouteObject[] = ['/k/:plural', '/p/:project/k/:plural'].flatMap((base) => [
  { path: base, element: <KindListPage /> },
  { path: `${base}/new`, element: <KindNewPage /> },
  { path: `${base}/:name`, element: <KindDetailPage /> },
  { path: `${base}/:name/edit`, element: <KindEditPage /> },
]);
