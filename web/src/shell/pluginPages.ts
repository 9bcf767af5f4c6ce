// pluginPages — the console pages plugins register with a route of their
// own (cube_ui.h `route`, since ABI 1.5), e.g. the pipeline plugin's page
// at /p/:project/pipelines: the paths they own and the kinds whose pages
// they are. Read from GET /api/v1/ui/menu once per signed-in user.
import { matchPath } from 'react-router-dom';
import { useEffect, useState } from 'react';
import type { UiMenuEntry } from '../api/types';
import { registerKindPage } from '../pages/registry';
import { loadUiMenu } from './useMenuData';

let cache: { user: string; entries: Promise<UiMenuEntry[]> } | null = null;

/** Records the kind pages the entries name (registry.ts). */
export function notePluginPages(entries: UiMenuEntry[]): void {
  for (const e of entries) if (e.kind && e.route && e.module_url) registerKindPage(e.kind, e.route);
}

/** The menu entries for `user`, fetched once (again after a failure). */
export function uiMenuOf(user: string): Promise<UiMenuEntry[]> {
  if (!cache || cache.user !== user) {
    const entries = loadUiMenu().then((list) => {
      notePluginPages(list);
      return list;
    });
    entries.catch(() => {
      if (cache?.entries === entries) cache = null;
    });
    cache = { user, entries };
  }
  return cache.entries;
}

/** The entry whose route owns `pathname`, if any. */
export function pluginPageAt(entries: UiMenuEntry[], pathname: string): UiMenuEntry | undefined {
  return entries.find((e) => e.route && e.module_url && matchPath({ path: e.route, end: false }, pathname));
}

/** The menu entries (null while loading; [] when they cannot be read). */
export function usePluginEntries(user: string): UiMenuEntry[] | null {
  const [entries, setEntries] = useState<UiMenuEntry[] | null>(null);
  useEffect(() => {
    let live = true;
    uiMenuOf(user).then(
      (l) => live && setEntries(l),
      () => live && setEntries([]),
    );
    return () => {
      live = false;
    };
  }, [user]);
  return entries;
}
