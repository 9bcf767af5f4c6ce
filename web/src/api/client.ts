// client.ts — the console's one way to call cubed's API.
//
// Every call goes through apiFetch: same-origin credentials (the session
// cookie), the CSRF header on unsafe methods once login or /auth/me told us
// the token, and JSON errors ({"error":{code,message,field}}) turned into an
// ApiError that carries the server's message, status and field path.

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field?: string;
  constructor(status: number, code: string, message: string, field?: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

let csrfToken: string | null = null;
type UnauthorizedHandler = () => void;
let onUnauthorized: UnauthorizedHandler | null = null;

/** Remembers the CSRF token login or /api/v1/auth/me answered. */
export function setCsrfToken(token: string | null | undefined): void {
  csrfToken = token ?? null;
}

export function getCsrfToken(): string | null {
  return csrfToken;
}

/** Called on any 401 (the auth context sends the user to /login). */
export function setUnauthorizedHandler(fn: UnauthorizedHandler | null): void {
  onUnauthorized = fn;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** fetch() with the console's credentials and headers; never throws on
 *  HTTP status (use api()/apiJson for that). Plugin pages get this one. */
export function apiFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const method = (init.method ?? 'GET').toUpperCase();
  const headers = new Headers(init.headers);
  if (!headers.has('Accept')) headers.set('Accept', 'application/json');
  if (!SAFE.has(method) && csrfToken) headers.set('X-CSRF-Token', csrfToken);
  return fetch(path, { ...init, method, headers, credentials: 'same-origin' });
}

/** Builds an ApiError from a failed response (JSON error body or text). */
export async function errorFromResponse(res: Response): Promise<ApiError> {
  let text = '';
  try {
    text = await res.text();
  } catch {
    /* body unreadable: fall back to the status line */
  }
  try {
    const doc = JSON.parse(text);
    const e = doc?.error;
    if (e && typeof e.message === 'string')
      return new ApiError(res.status, e.code ?? String(res.status), e.message, e.field);
  } catch {
    /* not JSON */
  }
  const msg = text.trim() || res.statusText || `HTTP ${res.status}`;
  return new ApiError(res.status, String(res.status), msg.slice(0, 500));
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

function withQuery(path: string, query?: RequestOptions['query']): string {
  if (!query) return path;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}${path.includes('?') ? '&' : '?'}${s}` : path;
}

/** Calls the API and answers the parsed JSON body (undefined when empty);
 *  throws ApiError on any status >= 400. */
export async function apiJson<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  opts: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { ...opts.headers };
  let payload: BodyInit | undefined;
  if (body !== undefined) {
    headers['Content-Type'] ??= method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    payload = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const res = await apiFetch(withQuery(path, opts.query), {
    method,
    headers,
    body: payload,
    signal: opts.signal,
  });
  if (!res.ok) {
    const err = await errorFromResponse(res);
    if (res.status === 401 && onUnauthorized) onUnauthorized();
    throw err;
  }
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export interface UploadOptions {
  query?: RequestOptions['query'];
  /** Called as bytes go out: (sent, total). */
  onProgress?: (sent: number, total: number) => void;
  signal?: AbortSignal;
  method?: string;
  contentType?: string;
}

/** Sends a file (or any Blob) as the raw request body, as streamed upload
 *  routes take it, with the console's credentials and CSRF header, and
 *  reports progress (fetch cannot); answers the parsed JSON body and throws
 *  ApiError on any status >= 400, as apiJson does. */
export function apiUpload<T = unknown>(path: string, body: Blob, opts: UploadOptions = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(opts.method ?? 'POST', withQuery(path, opts.query));
    xhr.withCredentials = true;
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('Content-Type', opts.contentType ?? 'application/octet-stream');
    if (csrfToken) xhr.setRequestHeader('X-CSRF-Token', csrfToken);
    xhr.upload.onprogress = (e) => opts.onProgress?.(e.loaded, e.lengthComputable ? e.total : body.size);
    xhr.onerror = () => reject(new ApiError(0, 'NetworkError', 'the upload failed (the connection broke)'));
    xhr.onabort = () => reject(new ApiError(0, 'Aborted', 'the upload was cancelled'));
    xhr.onload = () => {
      const text = xhr.responseText;
      if (xhr.status >= 400) {
        let err = new ApiError(xhr.status, String(xhr.status), (text || xhr.statusText).slice(0, 500));
        try {
          const e = JSON.parse(text)?.error;
          if (e && typeof e.message === 'string') err = new ApiError(xhr.status, e.code ?? String(xhr.status), e.message, e.field);
        } catch {
          /* not JSON */
        }
        if (xhr.status === 401 && onUnauthorized) onUnauthorized();
        reject(err);
        return;
      }
      try {
        resolve((text ? JSON.parse(text) : undefined) as T);
      } catch {
        reject(new ApiError(xhr.status, 'BadResponse', 'the answer is not JSON'));
      }
    };
    opts.signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(body);
  });
}

/** Shorthands: api.get('/api/v1/kinds'), api.post(path, body) ... */
export const api = {
  get: <T = unknown>(path: string, opts?: RequestOptions) => apiJson<T>('GET', path, undefined, opts),
  post: <T = unknown>(path: string, body?: unknown, opts?: RequestOptions) =>
    apiJson<T>('POST', path, body ?? {}, opts),
  put: <T = unknown>(path: string, body: unknown, opts?: RequestOptions) => apiJson<T>('PUT', path, body, opts),
  patch: <T = unknown>(path: string, body: unknown, opts?: RequestOptions) =>
    apiJson<T>('PATCH', path, body, opts),
  del: <T = unknown>(path: string, opts?: RequestOptions) => apiJson<T>('DELETE', path, undefined, opts),
};

/** The REST path of a kind's objects: project-scoped when project is given. */
export function resourcePath(plural: string, project?: string, name?: string, sub?: string): string {
  let p = project
    ? `/api/v1/projects/${encodeURIComponent(project)}/${plural}`
    : `/api/v1/${plural}`;
  if (name) p += `/${encodeURIComponent(name)}`;
  if (sub) p += `/${sub}`;
  return p;
}

/** A message for any thrown value: the server's message when it is an ApiError. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
