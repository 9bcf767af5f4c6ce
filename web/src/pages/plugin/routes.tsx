// routes.tsx — the plugin area: pages that plugins ship as ES modules.
import type { RouteObject } from 'react-router-dom';
import { PluginPage } from './PluginPage';
export { default as messages } from './messages';

export const routes: RouteObject[] = [{ path: '/x/:plugin/:id', element: <PluginPage /> }];
