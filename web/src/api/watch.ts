// watch.ts — live lists over `?watch=1` Server-Sent Events.
//
// watchList lists once, then watches from the list's resourceVersion and
// keeps a name-keyed copy of the items up to date; on 410 Gone (the server
// no longer keeps that version) or a broken stream it relists and watches
// again. EventSource reconnects by itself with Last-Event-ID.

import { api, errorMessage } from './client';
import type { CubeObject, ObjectList } from './types';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface WatchEvent<T = CubeObject> {
  type: WatchEventType;
  object: T;
}

export interface WatchHandlers<T> {
  /** The whole current list, after the first list and after every event. */
  onItems(items: T[]): void;
  /** Each event as it arrives (after onItems was called for it). */
  onEvent?(ev: WatchEvent<T>): void;
  /** A list failed (the watch retries after a pause). */
  onError?(message: string): void;
}

export interface WatchOptions {
  labelSelector?: string;
  /** Pause before a relist after a failure (ms). */
  retryMs?: number;
}

const TYPES: WatchEventType[] = ['ADDED', 'MODIFIED', 'DELETED'];

/** Watches a list path such as /api/v1/projects/demo/jobs. Returns stop(). */
export function watchList<T extends CubeObject = CubeObject>(
  path: string,
  handlers: WatchHandlers<T>,
  opts: WatchOptions = {},
): () => void {
  let stopped = false;
  let source: EventSource | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const items = new Map<string, T>();
  const emit = () => handlers.onItems([...items.values()]);

  const restart = () => {
    source?.close();
    source = null;
    if (!stopped) timer = setTimeout(start, opts.retryMs ?? 2000);
  };

  const onFrame = (e: MessageEvent) => {
    let ev: WatchEvent<T>;
    try {
      ev = JSON.parse(e.data);
    } catch {
      return;
    }
    const name = ev.object?.metadata?.name;
    if (!name) return;
    if (ev.type === 'DELETED') items.delete(name);
    else items.set(name, ev.object);
    emit();
    handlers.onEvent?.(ev);
  };

  async function start() {
    if (stopped) return;
    let list: ObjectList<T>;
    try {
      list = await api.get<ObjectList<T>>(path, { query: { labelSelector: opts.labelSelector } });
    } catch (e) {
      handlers.onError?.(errorMessage(e));
      restart();
      return;
    }
    if (stopped) return;
    items.clear();
    for (const o of list.items ?? []) items.set(o.metadata.name, o);
    emit();
    if (typeof EventSource === 'undefined') return; // tests (jsdom): list only
    const q = new URLSearchParams({ watch: '1' });
    if (list.metadata?.resourceVersion) q.set('resourceVersion', list.metadata.resourceVersion);
    if (opts.labelSelector) q.set('labelSelector', opts.labelSelector);
    source = new EventSource(`${path}?${q}`, { withCredentials: true });
    for (const t of TYPES) source.addEventListener(t, onFrame as EventListener);
    source.addEventListener('ERROR', restart); // 410 Gone: relist
    source.onerror = () => {
      // CLOSED: the server refused (e.g. 401/410 as HTTP status); relist.
      if (source && source.readyState === EventSource.CLOSED) restart();
    };
  }

  void start();
  return () => {
    stopped = true;
    clearTimeout(timer);
    source?.close();
  };
}
