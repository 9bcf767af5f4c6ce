import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import type { KindInfo } from '../../../api/types';
import { mockFetch } from '../../../test/fetchMock';
import { ResourceTable } from '../ResourceTable';
import { renderEn } from './testUtil';

afterEach(() => vi.unstubAllGlobals());

const WIDGET: KindInfo = {
  kind: 'Widget',
  plural: 'widgets',
  singular: 'widget',
  scope: 'project',
  group: 'Examples',
  printerColumns: [
    { name: 'Size', jsonPath: '.spec.size', type: 'integer' },
    { name: 'Phase', jsonPath: '.status.phase', type: 'string' },
  ],
};

const item = (name: string, size: number, phase: string) => ({
  metadata: { name, project: 'demo', created: new Date().toISOString() },
  spec: { size },
  status: { phase },
});

describe('ResourceTable', { timeout: 60000 }, () => {
  it('shows printer columns as headers, links names, filters by label selector', async () => {
    const { calls } = mockFetch({
      'GET /api/v1/projects/demo/widgets': (_init, url) => ({
        body: {
          kind: 'WidgetList',
          items: url.includes('labelSelector=tier%3Dweb') ? [item('sprocket', 3, 'Ready')] : [item('sprocket', 3, 'Ready'), item('cog', 5, 'Failed')],
          metadata: { resourceVersion: '7' },
        },
      }),
    });
    renderEn(
      <MemoryRouter>
        <ResourceTable kind={WIDGET} project="demo" />
      </MemoryRouter>,
    );
    for (const h of ['Name', 'Size', 'Phase', 'Age']) expect(screen.getByRole('columnheader', { name: h })).toBeInTheDocument();
    const link = await screen.findByRole('link', { name: 'cog' });
    expect(link).toHaveAttribute('href', '/p/demo/k/widgets/cog');
    const row = link.closest('tr') as HTMLElement;
    expect(within(row).getByText('5')).toBeInTheDocument();
    expect(within(row).getByText('Failed')).toBeInTheDocument();

    const selector = screen.getByRole('searchbox', { name: 'Label selector' });
    fireEvent.change(selector, { target: { value: 'tier=web' } });
    fireEvent.keyDown(selector, { key: 'Enter', keyCode: 13 });
    await waitFor(() => expect(screen.queryByRole('link', { name: 'cog' })).toBeNull());
    expect(screen.getByRole('link', { name: 'sprocket' })).toBeInTheDocument();
    expect(calls.at(-1)?.url).toContain('labelSelector=tier%3Dweb');
  });
});
