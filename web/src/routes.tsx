// routes.tsx — every console route. The shell's own pages are listed here;
// each other area owns the paths under its prefixes and lists its pages in
// pages/<area>/routes.tsx (`export const routes: RouteObject[]` with
// absolute paths, and `export { default as messages } from './messages'`).
// An area's code and messages load when one of its paths is first opened.
// Paths no area owns may belong to a plugin's page (pages/plugin/RoutePage).
import { lazy, useMemo, type ComponentType, type LazyExoticComponent } from 'react';
import { matchPath, useLocation, useRoutes, type RouteObject } from 'react-router-dom';
import { registerMessages, type MessageBundle } from './i18n';
import { NotFound } from './pages/common/NotFound';

export interface AreaModule {
  routes: RouteObject[];
  messages?: MessageBundle;
}

export interface Area {
  name: string;
  /** Path patterns this area owns, with everything below them. */
  prefixes: string[];
  load(): Promise<AreaModule>;
}

export const areas: Area[] = [
  { name: 'kinds', prefixes: ['/k/:plural', '/p/:project/k/:plural'], load: () => import('./pages/kinds/routes') },
  { name: 'jobs', prefixes: ['/p/:project/jobs'], load: () => import('./pages/jobs/routes') },
  { name: 'infra', prefixes: ['/nodes', '/pools'], load: () => import('./pages/infra/routes') },
  { name: 'events', prefixes: ['/events'], load: () => import('./pages/events/routes') },
  { name: 'plugin', prefixes: ['/x/:plugin'], load: () => import('./pages/plugin/routes') },
];

/** The area owning `pathname`, if any. */
export function areaOf(pathname: string): Area | undefined {
  return areas.find((a) => a.prefixes.some((p) => matchPath({ path: p, end: false }, pathname)));
}

const loaded = new Map<string, LazyExoticComponent<ComponentType>>();

/** One lazy component per area: loads the module, registers its messages,
 *  and renders its routes. */
function areaComponent(area: Area): LazyExoticComponent<ComponentType> {
  let c = loaded.get(area.name);
  if (!c) {
    c = lazy(async () => {
      const m = await area.load();
      if (m.messages) registerMessages(m.messages);
      const routes = [...m.routes, { path: '*', element: <NotFound /> }];
      return { default: () => useRoutes(routes) };
    });
    loaded.set(area.name, c);
  }
  return c;
}

const PluginRoutePage = lazy(() => import('./pages/plugin/RoutePage'));

/** The catch-all route of the signed-in layout: hands the path to its
 *  area, else to the plugin page whose route owns it (GET /api/v1/ui/menu,
 *  read once), else 404. */
export function AreaRoutes() {
  const { pathname } = useLocation();
  const area = areaOf(pathname);
  const Component = useMemo(() => (area ? areaComponent(area) : null), [area]);
  return Component ? <Component /> : <PluginRoutePage />;
}

// The shell's own pages, each its own chunk.
export const LoginPage = lazy(() => import('./pages/auth/Login'));
export const HomePage = lazy(() => import('./pages/home/Home'));
export const ProjectsPage = lazy(() => import('./pages/projects/ProjectList'));
export const ProjectPage = lazy(() => import('./pages/projects/ProjectDetail'));
export const UsersPage = lazy(() => import('./pages/users/Users'));
export const TokensPage = lazy(() => import('./pages/tokens/Tokens'));
