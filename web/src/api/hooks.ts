// hooks.ts — React hooks over the API helpers.
import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from './client';
import type { CubeObject } from './types';
import { watchList, type WatchOptions } from './watch';

export interface Loaded<T> {
  data: T | undefined;
  loading: boolean;
  error: Error | null;
  /** Loads again (keeps the old data on screen meanwhile). */
  reload(): void;
}

/** GETs `path` (null: nothing yet) and reloads when it changes. */
export function useApi<T>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ data?: T; loading: boolean; error: Error | null }>({
    loading: path !== null,
    error: null,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    const ctl = new AbortController();
    setState((s) => ({ ...s, loading: true, error: null }));
    api
      .get<T>(path, { signal: ctl.signal })
      .then((data) => setState({ data, loading: false, error: null }))
      .catch((e) => {
        if (!ctl.signal.aborted) setState((s) => ({ ...s, loading: false, error: e }));
      });
    return () => ctl.abort();
  }, [path, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data: state.data, loading: state.loading, error: state.error, reload };
}

/** A live list (watchList): items stay current while the component lives. */
export function useWatchedList<T extends CubeObject = CubeObject>(
  path: string | null,
  opts: WatchOptions = {},
): { items: T[]; loading: boolean; error: string | null } {
  const [items, setItems] = useState<T[]>([]);
  const [loading, setLoading] = useState(path !== null);
  const [error, setError] = useState<string | null>(null);
  const optsRef = useRef(opts);
  optsRef.current = opts;
  useEffect(() => {
    if (path === null) return;
    setLoading(true);
    setItems([]);
    return watchList<T>(
      path,
      {
        onItems: (l) => {
          setItems(l);
          setLoading(false);
          setError(null);
        },
        onError: (m) => {
          setError(m);
          setLoading(false);
        },
      },
      optsRef.current,
    );
  }, [path, opts.labelSelector]);
  return { items, loading, error };
}
