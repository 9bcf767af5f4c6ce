import { fireEvent, screen, waitFor } from '@testing-library/react';
import { mockFetch } from '../../../test/fetchMock';
import { EventsTable } from '../EventsTable';
import { renderEn } from './testUtil';

afterEach(() => vi.unstubAllGlobals());

const ev = (reason: string, type: string, user: string, name: string, result: number) => ({
  metadata: { created: '2026-11-29T21:52:18.465Z', project: 'demo' },
  kind: 'Event',
  involvedObject: { kind: 'Job', name, project: 'demo' },
  type,
  reason,
  message: `${reason} ${name}`,
  verb: reason === 'Created' ? 'create' : 'event',
  user,
  result,
});

describe('EventsTable', { timeout: 30000 }, () => {
  it('lists events, filters by text, and pages to older ones', async () => {
    const { calls } = mockFetch({
      'GET /api/v1/projects/demo/events': (_init, url) =>
        url.includes('before=41')
          ? { body: { kind: 'EventList', items: [ev('Refused', 'Warning', 'bob', 'old', 422)] } }
          : {
              body: {
                kind: 'EventList',
                items: [ev('Started', 'Normal', 'system:scheduler', 'train', 200), ev('Created', 'Normal', 'alice', 'train', 201)],
                metadata: { before: '41' },
              },
            },
    });
    renderEn(<EventsTable path="/api/v1/projects/demo/events" />);
    expect(await screen.findByText('Started train')).toBeInTheDocument();
    expect(screen.getAllByText('Job/train')).toHaveLength(2);
    fireEvent.change(screen.getByRole('textbox', { name: 'Search user, object, message' }), { target: { value: 'alice' } });
    await waitFor(() => expect(screen.queryByText('Started train')).toBeNull());
    expect(screen.getByText('Created train')).toBeInTheDocument();
    fireEvent.change(screen.getByRole('textbox', { name: 'Search user, object, message' }), { target: { value: '' } });
    fireEvent.click(screen.getByRole('button', { name: 'Older events' }));
    expect(await screen.findByText('Refused old')).toBeInTheDocument();
    expect(calls.at(-1)?.url).toContain('before=41');
    expect(screen.queryByRole('button', { name: 'Older events' })).toBeNull();
  });

  it('filters by type and verb through its selects', async () => {
    mockFetch({
      'GET /api/v1/events': {
        body: {
          kind: 'EventList',
          items: [ev('Started', 'Normal', 'system:scheduler', 'train', 200), ev('Created', 'Normal', 'alice', 'train', 201), ev('Refused', 'Warning', 'bob', 'old', 422)],
        },
      },
    });
    renderEn(<EventsTable path="/api/v1/events" />);
    expect(await screen.findByText('Refused old')).toBeInTheDocument();
    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Verb' }));
    fireEvent.click(await screen.findByTitle('create'));
    await waitFor(() => expect(screen.queryByText('Started train')).toBeNull());
    expect(screen.getByText('Created train')).toBeInTheDocument();
    expect(screen.queryByText('Refused old')).toBeNull();
    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Event type' }));
    fireEvent.click(await screen.findByTitle('Warning'));
    await waitFor(() => expect(screen.queryByText('Created train')).toBeNull());
  });
});
