// fetchMock — a fetch stand-in answering by "METHOD path" (query ignored),
// recording every call. Unknown routes answer 404 in cubed's error shape.
import { vi } from 'vitest';

export type Reply = { status?: number; body?: unknown; headers?: Record<string, string> };
export type Routes = Record<string, Reply | ((init: RequestInit, url: string) => Reply)>;

export interface Call {
  method: string;
  path: string;
  url: string;
  init: RequestInit;
}

export function mockFetch(routes: Routes) {
  const calls: Call[] = [];
  const fn = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = String(input);
    const path = url.split('?')[0];
    const method = (init.method ?? 'GET').toUpperCase();
    calls.push({ method, path, url, init });
    const r = routes[`${method} ${path}`];
    const reply: Reply = typeof r === 'function' ? r(init, url) : r ?? {
      status: 404,
      body: { error: { code: 'NotFound', message: `no route ${method} ${path}` } },
    };
    const text = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    return new Response(text === '' ? null : text, {
      status: reply.status ?? 200,
      headers: { 'Content-Type': 'application/json', ...reply.headers },
    });
  });
  vi.stubGlobal('fetch', fn);
  return { fn, calls };
}
