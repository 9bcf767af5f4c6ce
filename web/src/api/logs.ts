// logs.ts — follows an object's log stream (GET …/{name}/logs?follow=1).
//
// The server answers plain text and keeps the response open while the
// stream is open; followLog hands each decoded piece to onText, resumes
// from the byte offset it reached when the connection breaks, and calls
// onEnd once the stream is closed (the job finished).

import { apiFetch, errorFromResponse, errorMessage } from './client';

export interface FollowOptions {
  /** e.g. {replica: 0} or {stream: 'stdout'} */
  query?: Record<string, string | number>;
  /** Start at this byte offset (default 0: the whole log). */
  offset?: number;
  /** Pause before resuming after a broken connection (ms). */
  retryMs?: number;
}

export interface FollowHandlers {
  onText(text: string): void;
  onEnd?(): void;
  onError?(message: string): void;
}

/** Follows `path` (a …/logs URL). Returns stop(). */
export function followLog(path: string, handlers: FollowHandlers, opts: FollowOptions = {}): () => void {
  const ctl = new AbortController();
  let offset = opts.offset ?? 0;
  let stopped = false;

  async function once(): Promise<'end' | 'retry'> {
    const q = new URLSearchParams({ follow: '1', offset: String(offset) });
    for (const [k, v] of Object.entries(opts.query ?? {})) q.set(k, String(v));
    const res = await apiFetch(`${path}?${q}`, { signal: ctl.signal, headers: { Accept: 'text/plain' } });
    if (!res.ok) {
      const err = await errorFromResponse(res);
      handlers.onError?.(err.message);
      return res.status >= 500 ? 'retry' : 'end';
    }
    if (!res.body) {
      const text = await res.text();
      offset += new TextEncoder().encode(text).length;
      if (text) handlers.onText(text);
      return 'end';
    }
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      offset += value.byteLength;
      const text = dec.decode(value, { stream: true });
      if (text) handlers.onText(text);
    }
    const rest = dec.decode();
    if (rest) handlers.onText(rest);
    return 'end';
  }

  (async () => {
    while (!stopped) {
      let how: 'end' | 'retry';
      try {
        how = await once();
      } catch (e) {
        if (stopped) return;
        handlers.onError?.(errorMessage(e));
        how = 'retry';
      }
      if (how === 'end') {
        if (!stopped) handlers.onEnd?.();
        return;
      }
      await new Promise((r) => setTimeout(r, opts.retryMs ?? 2000));
    }
  })();

  return () => {
    stopped = true;
    ctl.abort();
  };
}
