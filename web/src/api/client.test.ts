import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, api, resourcePath, setCsrfToken, setUnauthorizedHandler } from './client';
import { mockFetch } from '../test/fetchMock';

afterEach(() => {
  vi.unstubAllGlobals();
  setCsrfToken(null);
  setUnauthorizedHandler(null);
});

describe('api client', () => {
  it('turns a JSON error into an ApiError with message, status, code and field', async () => {
    mockFetch({
      'POST /api/v1/projects/demo/jobs': {
        status: 422,
        body: { error: { code: 'Invalid', message: 'spec.tasks[2].retries: must be an integer', field: 'spec.tasks[2].retries' } },
      },
    });
    const err = (await api.post('/api/v1/projects/demo/jobs', { spec: {} }).catch((e) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe('spec.tasks[2].retries: must be an integer');
    expect(err.status).toBe(422);
    expect(err.code).toBe('Invalid');
    expect(err.field).toBe('spec.tasks[2].retries');
  });

  it('keeps a non-JSON error body as the message', async () => {
    mockFetch({ 'GET /api/v1/x': { status: 502, body: 'Bad gateway from proxy' } });
    const err = (await api.get('/api/v1/x').catch((e) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(502);
    expect(err.message).toBe('Bad gateway from proxy');
    expect(err.field).toBeUndefined();
  });

  it('sends same-origin credentials, and the CSRF header only on unsafe methods', async () => {
    const { calls } = mockFetch({
      'GET /api/v1/kinds': { body: { items: [] } },
      'DELETE /api/v1/auth/tokens/abc': { body: { status: 'revoked' } },
    });
    setCsrfToken('tok123');
    await api.get('/api/v1/kinds');
    await api.del('/api/v1/auth/tokens/abc');
    expect(calls[0].init.credentials).toBe('same-origin');
    expect(new Headers(calls[0].init.headers).get('X-CSRF-Token')).toBeNull();
    expect(new Headers(calls[1].init.headers).get('X-CSRF-Token')).toBe('tok123');
  });

  it('encodes the query and the JSON body', async () => {
    const { calls } = mockFetch({ 'PATCH /api/v1/users/bob': { body: { metadata: { name: 'bob' } } } });
    await api.patch('/api/v1/users/bob', { spec: { disabled: true } }, { query: { dryRun: 1, skip: undefined } });
    expect(calls[0].url).toBe('/api/v1/users/bob?dryRun=1');
    expect(calls[0].init.body).toBe('{"spec":{"disabled":true}}');
  });

  it('answers undefined for an empty body and calls the 401 handler', async () => {
    mockFetch({
      'POST /api/v1/empty': { status: 204 },
      'GET /api/v1/auth/me': { status: 401, body: { error: { code: 'Unauthorized', message: 'sign in first' } } },
    });
    expect(await api.post('/api/v1/empty')).toBeUndefined();
    const onUnauth = vi.fn();
    setUnauthorizedHandler(onUnauth);
    await expect(api.get('/api/v1/auth/me')).rejects.toThrow('sign in first');
    expect(onUnauth).toHaveBeenCalledTimes(1);
  });

  it('builds resource paths', () => {
    expect(resourcePath('jobs', 'my proj', 'a')).toBe('/api/v1/projects/my%20proj/jobs/a');
    expect(resourcePath('users', undefined, 'bob', 'password')).toBe('/api/v1/users/bob/password');
  });
});
