// routes.tsx — the infra area: nodes, pools and their devices.
import type { RouteObject } from 'react-router-dom';
import { NodeDetailPage, NodesPage, PoolDetailPage, PoolsPage } from './InfraPages';
export { default as messages } from './messages';

export const routes: RouteObject[] = [
  { path: '/nodes', element: <NodesPage /> },
  { path: '/nodes/:name', element: <NodeDetailPage /> },
  { path: '/pools', element: <PoolsPage /> },
  { path: '/pools/:name', element: <PoolDetailPage /> },
];
