// liveList.ts — a kind's objects, all pages of them, kept current: lists
// with `limit` + `continue` (the server answers at most 500 a page) up to
// MAX_ITEMS, then watches from the first page's resourceVersion (events
// that happened while paging replay harmlessly: items are keyed by name).
// On 410 Gone or a broken stream it lists again after a pause.

import { useEffect, useState } from 'react';
import { api, errorMessage } from '../../api/client';
import type { CubeObject, ObjectList } from '../../api/types';

export const PAGE_SIZE = 500;
export const MAX_ITEMS = 5000;

/** Every page of a list (up to max items); the first page's resourceVersion. */
export async function listAll(
  path: string,
  labelSelector: string | undefined,
  max = MAX_ITEMS,
): Promise<{ items: CubeObject[]; resourceVersion?: string; truncated: boolean }> {
  const items: CubeObject[] = [];
  let rv: string | undefined;
  let cont: string | undefined;
  do {
    const page = await api.get<ObjectList>(path, { query: { labelSelector, limit: PAGE_SIZE, continue: cont } });
    items.push(...(page.items ?? []));
    rv ??= page.metadata?.resourceVersion;
    cont = page.metadata?.continue || undefined;
  } while (cont && items.length < max);
  return { items, resourceVersion: rv, truncated: !!cont };
}

export interface LiveList {
  items: CubeObject[] | null;
  error: string | null;
  /** More objects exist than MAX_ITEMS: only the first are shown. */
  truncated: boolean;
}

/** Items of a list path (null: nothing), live through the watch. */
export function useLiveList(path: string | null, labelSelector?: string, retryMs = 2000): LiveList {
  const [st, setSt] = useState<LiveList>({ items: null, error: null, truncated: false });
  useEffect(() => {
    if (!path) return;
    let stopped = false;
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const byName = new Map<string, CubeObject>();
    setSt({ items: null, error: null, truncated: false });

    const again = () => {
      source?.close();
      source = null;
      if (!stopped) timer = setTimeout(start, retryMs);
    };
    const onFrame = (e: MessageEvent) => {
      try {
        const ev = JSON.parse(e.data) as { type: string; object: CubeObject };
        const name = ev.object?.metadata?.name;
        if (!name) return;
        if (ev.type === 'DELETED') byName.delete(name);
        else byName.set(name, ev.object);
        setSt((s) => ({ ...s, items: [...byName.values()] }));
      } catch {
        /* a malformed frame: the next relist repairs the view */
      }
    };
    async function start() {
      let got;
      try {
        got = await listAll(path!, labelSelector || undefined);
      } catch (e) {
        if (stopped) return;
        setSt((s) => ({ ...s, items: s.items ?? [], error: errorMessage(e) }));
        again();
        return;
      }
      if (stopped) return;
      byName.clear();
      for (const o of got.items) byName.set(o.metadata.name, o);
      setSt({ items: [...byName.values()], error: null, truncated: got.truncated });
      if (typeof EventSource === 'undefined') return; // jsdom: list only
      const q = new URLSearchParams({ watch: '1' });
      if (got.resourceVersion) q.set('resourceVersion', got.resourceVersion);
      if (labelSelector) q.set('labelSelector', labelSelector);
      source = new EventSource(`${path}?${q}`, { withCredentials: true });
      for (const t of ['ADDED', 'MODIFIED', 'DELETED']) source.addEventListener(t, onFrame as EventListener);
      source.addEventListener('ERROR', again); // 410 Gone in the stream: relist
      source.onerror = () => {
        if (source?.readyState === EventSource.CLOSED) again();
      };
    }
    void start();
    return () => {
      stopped = true;
      clearTimeout(timer);
      source?.close();
    };
  }, [path, labelSelector, retryMs]);
  return st;
}
