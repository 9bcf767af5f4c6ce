import { App as AntApp } from 'antd';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from '@cube/console-test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider, registerMessages } from '@cube/console-test';
import { mockFetch } from '@cube/console-test';
import messages from './messages';
import { NotebookListPage, notebookBody } from './NotebookPages';
import { actionsFor, DEFAULT_OPTIONS, enabledIdes } from './notebookActions';

registerMessages(messages);
afterEach(() => vi.unstubAllGlobals());

const LIST = '/api/v1/projects/lab/notebooks';

function page() {
  return render(
    <I18nProvider initial="en">
      <AntApp>
        <MemoryRouter initialEntries={['/p/lab/notebooks']}>
          <Routes><Route path="/p/:project/notebooks" element={<NotebookListPage />} /></Routes>
        </MemoryRouter>
      </AntApp>
    </I18nProvider>,
  );
}

describe('notebooks page', { timeout: 30000 }, () => {
  it('lists notebooks with the actions their phase allows, links and stops one', async () => {
    let phase = 'Running';
    const { calls } = mockFetch({
      'GET /api/v1/notebook/options': { body: { ...DEFAULT_OPTIONS, ides: [{ name: 'jupyter', enabled: true }, { name: 'vscode', enabled: false }] } },
      [`GET ${LIST}`]: () => ({
        body: {
          kind: 'NotebookList',
          items: [
            { metadata: { name: 'lab1', owner: 'alice' }, spec: { ide: 'jupyter', resources: { cpu: '1' } },
              status: { phase, url: 'javascript:alert(1)', lastActivity: '2026-01-02T03:04:05Z' } },
            { metadata: { name: 'queued', owner: 'bob' }, spec: { ide: 'vscode' },
              status: { phase: 'Pending', message: 'quota: nvidia.com/gpu 4/4 used' } },
          ],
        },
      }),
      [`POST ${LIST}/lab1/stop`]: () => {
        phase = 'Stopped';
        return { body: {} };
      },
    });
    page();
    expect(await screen.findByText('lab1')).toBeInTheDocument();
    expect(screen.getByText('quota: nvidia.com/gpu 4/4 used')).toBeInTheDocument();
    const open = screen.getAllByText('Open')[0].closest('a')!;
    // never status.url itself: the server redirects to the notebook's own path
    expect(open).toHaveAttribute('href', `${LIST}/lab1/open`);
    // one Open (the running one), Stop on both, Restart only on the running one,
    // Delete on each, never the launcher's own action
    expect(screen.getAllByText('Open')).toHaveLength(1);
    expect(screen.getAllByText('Stop')).toHaveLength(2);
    expect(screen.getAllByText('Restart')).toHaveLength(1);
    expect(screen.getAllByText('Delete')).toHaveLength(2);
    expect(screen.queryByText(/launch/i)).toBeNull();
    expect(screen.getByText('lab1').closest('a')).toHaveAttribute('href', '/p/lab/notebooks/lab1');
    fireEvent.click(screen.getAllByText('Stop')[0]);
    fireEvent.click(await screen.findByText('OK'));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path === `${LIST}/lab1/stop`)).toBe(true));
    expect(await screen.findByText('Stopped')).toBeInTheDocument();
  });

  it('offers actions by phase and only the IDEs the server enables', () => {
    expect(actionsFor('Running', undefined, DEFAULT_OPTIONS)).toEqual(['open', 'stop', 'restart']);
    expect(actionsFor('Running', '2026-01-01T00:00:00Z', DEFAULT_OPTIONS)).toEqual(['open', 'stop', 'restart', 'renew']);
    expect(actionsFor('Stopped', undefined, DEFAULT_OPTIONS)).toEqual(['restart']);
    expect(actionsFor('Pending', undefined, DEFAULT_OPTIONS)).toEqual(['stop']);
    expect(actionsFor('Weird', undefined, DEFAULT_OPTIONS)).toEqual([]);
    expect(actionsFor('Running', undefined, { ...DEFAULT_OPTIONS, actions: { Running: ['launch', 'open'] } })).toEqual(['open']);
    expect(enabledIdes({ ...DEFAULT_OPTIONS, ides: [{ name: 'jupyter', enabled: true }, { name: 'vscode', enabled: false }] })).toEqual(['jupyter']);
    expect(enabledIdes({ ...DEFAULT_OPTIONS, ides: [{ name: 'jupyter', enabled: true }, { name: 'vscode', enabled: true }] })).toEqual(['jupyter', 'vscode']);
  });

  it('builds the create request from the form values', () => {
    expect(notebookBody({ name: 'gpu1', ide: 'jupyter', cpu: '2', memory: '8Gi', device: 'nvidia.com/gpu',
      deviceCount: 0.5, idleMinutes: 30 })).toEqual({
      metadata: { name: 'gpu1' },
      spec: { ide: 'jupyter', resources: { cpu: '2', memory: '8Gi', 'nvidia.com/gpu': 0.5 }, idleTimeoutSeconds: 1800 },
    });
    expect(notebookBody({ name: 'plain', ide: 'vscode' })).toEqual({
      metadata: { name: 'plain' }, spec: { ide: 'vscode', resources: {} },
    });
  });
});
