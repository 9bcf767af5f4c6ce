import { App as AntApp } from 'antd';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider } from '../../i18n';
import { mockFetch } from '../../test/fetchMock';
import Tokens from './Tokens';

afterEach(() => vi.unstubAllGlobals());

/** The last visible button with this text (modals render on top). */
function button(text: string): HTMLElement {
  const all = screen.getAllByText(text).map((e) => e.closest('button')).filter(Boolean) as HTMLElement[];
  if (!all.length) throw new Error(`no button ${text}`);
  return all[all.length - 1];
}

describe('API tokens page', () => {
  it('creates a token and shows it once, with a copy button', async () => {
    const now = Math.floor(Date.now() / 1000);
    let items = [{ id: 'aa11', name: 'laptop', created: now - 100, expires: now + 86400 }];
    const { calls } = mockFetch({
      'GET /api/v1/auth/tokens': () => ({ body: { kind: 'TokenList', items } }),
      'POST /api/v1/auth/tokens': (init) => {
        const b = JSON.parse(String(init.body));
        items = [...items, { id: 'bb22', name: b.name, created: now, expires: now + b.expires_in }];
        return { status: 201, body: { ...items[1], token: 'cube_secret123' } };
      },
      'DELETE /api/v1/auth/tokens/aa11': () => {
        items = items.filter((x) => x.id !== 'aa11');
        return { body: { status: 'revoked' } };
      },
    });
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    render(<I18nProvider initial="en"><AntApp><Tokens /></AntApp></I18nProvider>);
    expect(await screen.findByText('laptop')).toBeInTheDocument();

    fireEvent.click(screen.getByText('New token'));
    fireEvent.change(await screen.findByLabelText('Name'), { target: { value: 'ci' } });
    fireEvent.change(screen.getByLabelText('Valid for (days)'), { target: { value: '7' } });
    fireEvent.click(button('Create'));
    const shown = await screen.findByTestId('new-token');
    expect(shown).toHaveValue('cube_secret123');
    const post = calls.find((c) => c.method === 'POST')!;
    expect(JSON.parse(String(post.init.body))).toEqual({ name: 'ci', expires_in: 7 * 86400 });
    fireEvent.click(button('Copy'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('cube_secret123'));
    // the list never shows a secret
    expect(await screen.findByText('ci')).toBeInTheDocument();
    fireEvent.click(button('OK'));
    await waitFor(() => expect(screen.queryByTestId('new-token')).not.toBeInTheDocument());
    expect(screen.queryByText('cube_secret123')).not.toBeInTheDocument();
  });

  it('revokes a token after confirmation', async () => {
    let items = [{ id: 'aa11', name: 'laptop', created: 1, expires: 4102444800 }];
    const { calls } = mockFetch({
      'GET /api/v1/auth/tokens': () => ({ body: { kind: 'TokenList', items } }),
      'DELETE /api/v1/auth/tokens/aa11': () => {
        items = [];
        return { body: { status: 'revoked' } };
      },
    });
    render(<I18nProvider initial="en"><AntApp><Tokens /></AntApp></I18nProvider>);
    await screen.findByText('laptop');
    const row = screen.getByText('laptop').closest('tr')!;
    fireEvent.click(within(row).getByText('Revoke'));
    fireEvent.click(await screen.findByText('Revoke token laptop? Clients using it stop working.').then(() => button('OK')));
    await waitFor(() => expect(screen.queryByText('laptop')).not.toBeInTheDocument());
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/v1/auth/tokens/aa11')).toBe(true);
  });

  it('shows the server message when creation is refused', async () => {
    mockFetch({
      'GET /api/v1/auth/tokens': { body: { items: [] } },
      'POST /api/v1/auth/tokens': {
        status: 422,
        body: { error: { code: 'Invalid', message: 'expires_in: seconds, from 60 up to auth.max_token_days', field: 'expires_in' } },
      },
    });
    render(<I18nProvider initial="en"><AntApp><Tokens /></AntApp></I18nProvider>);
    fireEvent.click(await screen.findByText('New token'));
    fireEvent.change(await screen.findByLabelText('Name'), { target: { value: 'x' } });
    fireEvent.click(button('Create'));
    expect(await screen.findByRole('alert')).toHaveTextContent('expires_in: seconds, from 60 up to auth.max_token_days');
  });
});
