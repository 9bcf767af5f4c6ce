// registry.ts — which kinds have a dedicated console page.
//
// The sidebar lists every kind of GET /api/v1/kinds; a kind named here opens
// its own page, any other the generic pages of the `kinds` area
// (/k/:plural for cluster kinds, /p/:project/k/:plural for project kinds).
// A path may contain :project (the current project). Detail pages are the
// path plus "/<name>". Add one line here when an area gets a kind page;
// a plugin's page for its kind (cube_ui.h `kind` and `route`) is added
// when the console reads GET /api/v1/ui/menu (shell/pluginPages.ts).
import type { KindInfo } from '../api/types';

export const kindPages: Record<string, string> = {
  User: '/users',
  Project: '/projects',
  Job: '/p/:project/jobs',
  Node: '/nodes',
  Pool: '/pools',
};

/** A plugin's page of `kind` at `route` (a console path pattern). The
 *  console's own pages win. */
export function registerKindPage(kind: string, route: string): void {
  if (!(kind in kindPages)) kindPages[kind] = route;
}

type KindRef = Pick<KindInfo, 'kind' | 'plural' | 'scope'>;

/** The console path of a kind's list, or null when it needs a project and
 *  none is chosen. */
export function kindListPath(k: KindRef, project?: string | null): string | null {
  const page = kindPages[k.kind];
  if (page) {
    if (!page.includes(':project')) return page;
    return project ? page.replace(':project', encodeURIComponent(project)) : null;
  }
  if (k.scope === 'cluster') return `/k/${k.plural}`;
  return project ? `/p/${encodeURIComponent(project)}/k/${k.plural}` : null;
}

/** The console path of one object of a kind. */
export function kindObjectPath(k: KindRef, name: string, project?: string | null): string | null {
  const list = kindListPath(k, project);
  return list ? `${list}/${encodeURIComponent(name)}` : null;
}
