import { App as AntApp } from 'antd';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider, registerMessages } from '../../i18n';
import { mockFetch } from '../../test/fetchMock';
import { Members } from './Members';
import messages from './messages';

registerMessages(messages);
afterEach(() => vi.unstubAllGlobals());

const base = '/api/v1/projects/demo/members';

describe('project members', () => {
  it('adds a member picked from the users, and shows the server message when removing the last creator', async () => {
    let items = [{ user: 'alice', role: 'creator' }];
    const { calls } = mockFetch({
      'GET /api/v1/users': {
        body: {
          items: [
            { metadata: { name: 'alice' }, spec: { displayName: 'Alice' } },
            { metadata: { name: 'bob' }, spec: { displayName: 'Bob Builder' } },
            { metadata: { name: 'gone' }, spec: { disabled: true } },
          ],
        },
      },
      [`GET ${base}`]: () => ({ body: { kind: 'MemberList', items } }),
      [`POST ${base}`]: (init) => {
        items = [...items, JSON.parse(String(init.body))];
        return { status: 201, body: { kind: 'MemberList', items } };
      },
      [`DELETE ${base}/alice`]: {
        status: 409,
        body: { error: { code: 'Conflict', message: 'alice is the project\'s last creator', field: 'role' } },
      },
    });
    render(<I18nProvider initial="en"><AntApp><Members project="demo" canManage /></AntApp></I18nProvider>);
    await screen.findByText('alice');
    await waitFor(() => expect(calls.some((c) => c.path === '/api/v1/users')).toBe(true));
    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Choose a user' }));
    fireEvent.click(await screen.findByText('Bob Builder (bob)'));
    // members and disabled users are not offered
    expect(screen.queryByText('Alice (alice)')).not.toBeInTheDocument();
    expect(screen.queryByText('gone')).not.toBeInTheDocument();
    fireEvent.click(screen.getByText('Add member').closest('button')!);
    await screen.findByRole('cell', { name: 'bob' });
    expect(JSON.parse(String(calls.find((c) => c.method === 'POST')!.init.body))).toEqual({ user: 'bob', role: 'dev' });

    const row = screen.getByText('alice').closest('tr')!;
    fireEvent.click(within(row).getByText('Remove').closest('button')!);
    await screen.findByText('Remove alice from the project?');
    const ok = screen.getAllByText('OK').map((e) => e.closest('button')!).pop()!;
    fireEvent.click(ok);
    expect(await screen.findByText("alice is the project's last creator")).toBeInTheDocument();
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE')).toBe(true));
    expect(screen.getByText('alice')).toBeInTheDocument();
  });

  it('shows roles read-only to a non-creator', async () => {
    mockFetch({ [`GET ${base}`]: { body: { items: [{ user: 'alice', role: 'creator' }] } } });
    render(<I18nProvider initial="en"><AntApp><Members project="demo" canManage={false} /></AntApp></I18nProvider>);
    expect(await screen.findByText('creator — members and settings')).toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: 'Choose a user' })).not.toBeInTheDocument();
    expect(screen.getByText('Remove').closest('button')).toBeDisabled();
  });
});
