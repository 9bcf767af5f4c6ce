// useMenuData — the kinds and plugin menu entries the sidebar is built from.
// GET /api/v1/ui/menu answering 404 (a cubed without it) means no entries.
import { useEffect, useState } from 'react';
import { ApiError, api } from '../api/client';
import type { KindInfo, UiMenuEntry } from '../api/types';
import { notePluginPages } from './pluginPages';

export interface MenuData {
  kinds: KindInfo[];
  entries: UiMenuEntry[];
  loading: boolean;
  error: string | null;
}

export async function loadKinds(): Promise<KindInfo[]> {
  const doc = await api.get<{ items: KindInfo[] }>('/api/v1/kinds');
  return doc.items ?? [];
}

export async function loadUiMenu(): Promise<UiMenuEntry[]> {
  try {
    const doc = await api.get<{ items?: UiMenuEntry[] } | UiMenuEntry[]>('/api/v1/ui/menu');
    return Array.isArray(doc) ? doc : doc?.items ?? [];
  } catch (e) {
    if (e instanceof ApiError && (e.status === 404 || e.status === 405)) return [];
    throw e;
  }
}

export function useMenuData(): MenuData {
  const [state, setState] = useState<MenuData>({ kinds: [], entries: [], loading: true, error: null });
  useEffect(() => {
    let live = true;
    Promise.allSettled([loadKinds(), loadUiMenu()]).then(([k, m]) => {
      if (!live) return;
      if (m.status === 'fulfilled') notePluginPages(m.value);
      const err = [k, m].find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
      setState({
        kinds: k.status === 'fulfilled' ? k.value : [],
        entries: m.status === 'fulfilled' ? m.value : [],
        loading: false,
        error: err ? String(err.reason?.message ?? err.reason) : null,
      });
    });
    return () => {
      live = false;
    };
  }, []);
  return state;
}
