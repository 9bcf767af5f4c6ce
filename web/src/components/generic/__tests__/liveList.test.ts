import { mockFetch } from '../../../test/fetchMock';
import { listAll } from '../liveList';

afterEach(() => vi.unstubAllGlobals());

const obj = (name: string) => ({ metadata: { name } });

describe('listAll', () => {
  it('follows continue tokens and keeps the first resourceVersion', async () => {
    const { calls } = mockFetch({
      'GET /api/v1/projects/p/jobs': (_i, url) =>
        url.includes('continue=c2')
          ? { body: { items: [obj('c')], metadata: { resourceVersion: '9' } } }
          : { body: { items: [obj('a'), obj('b')], metadata: { resourceVersion: '7', continue: 'c2' } } },
    });
    const got = await listAll('/api/v1/projects/p/jobs', 'team=a');
    expect(got.items.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c']);
    expect(got.resourceVersion).toBe('7');
    expect(got.truncated).toBe(false);
    expect(calls[0].url).toBe('/api/v1/projects/p/jobs?labelSelector=team%3Da&limit=500');
    expect(calls[1].url).toContain('continue=c2');
  });

  it('stops at the maximum and says so', async () => {
    mockFetch({ 'GET /api/v1/x': { body: { items: [obj('a'), obj('b')], metadata: { resourceVersion: '1', continue: 'more' } } } });
    const got = await listAll('/api/v1/x', undefined, 3);
    expect(got.items).toHaveLength(4);
    expect(got.truncated).toBe(true);
  });
});
