import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryRouter } from 'react-router-dom';
import { AuthProvider } from '../../auth/AuthContext';
import { I18nProvider } from '../../i18n';
import { AppRoutes } from '../../App';
import { getCsrfToken, setCsrfToken } from '../../api/client';
import { mockFetch } from '../../test/fetchMock';

afterEach(() => {
  vi.unstubAllGlobals();
  setCsrfToken(null);
});

const unauth = { status: 401, body: { error: { code: 'Unauthorized', message: 'sign in first' } } };
const providers = {
  body: {
    providers: [
      { name: 'local', displayName: 'User name and password', kind: 'password' },
      { name: 'corp', displayName: 'Corp SSO', kind: 'redirect', loginPath: '/api/v1/auth/oidc/corp/login' },
    ],
  },
};

function renderAt(path: string) {
  return render(
    <I18nProvider initial="en">
      <MemoryRouter initialEntries={[path]}>
        <AuthProvider>
          <AppRoutes />
        </AuthProvider>
      </MemoryRouter>
    </I18nProvider>,
  );
}

describe('login page', () => {
  it('shows the server message for a wrong password and stays on the form', async () => {
    const { calls } = mockFetch({
      'GET /api/v1/auth/me': unauth,
      'GET /api/v1/auth/providers': providers,
      'POST /api/v1/auth/login': { status: 401, body: { error: { code: 'Unauthorized', message: 'wrong user name or password' } } },
    });
    renderAt('/');
    // an anonymous visit to / lands on the login form
    const user = await screen.findByLabelText('User name');
    fireEvent.change(user, { target: { value: 'alice' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'nope' } });
    fireEvent.click(screen.getByText('Sign in').closest('button')!);
    expect(await screen.findByRole('alert')).toHaveTextContent('wrong user name or password');
    const login = calls.find((c) => c.method === 'POST');
    expect(JSON.parse(String(login!.init.body))).toEqual({ username: 'alice', password: 'nope' });
    expect(screen.getByLabelText('User name')).toBeInTheDocument();
  });

  it('lists SSO buttons and, on success, keeps the CSRF token and leaves the form', async () => {
    let signedIn = false;
    mockFetch({
      'GET /api/v1/auth/me': () =>
        signedIn
          ? { body: { user: { name: 'alice', role: 'user' }, role: 'user', projects: [], via: 'session', csrf: 'c1' } }
          : unauth,
      'GET /api/v1/auth/providers': providers,
      'POST /api/v1/auth/login': () => {
        signedIn = true;
        return { body: { user: { name: 'alice' }, csrf: 'c1' } };
      },
      'GET /api/v1/kinds': { body: { items: [] } },
    });
    renderAt('/login?next=/tokens');
    const sso = await screen.findByText('Sign in with Corp SSO');
    expect(sso.closest('a')).toHaveAttribute('href', '/api/v1/auth/oidc/corp/login?next=%2Ftokens');
    fireEvent.change(screen.getByLabelText('User name'), { target: { value: 'alice' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'right' } });
    fireEvent.click(screen.getByText('Sign in').closest('button')!);
    await waitFor(() => expect(screen.queryByLabelText('Password')).not.toBeInTheDocument());
    expect(getCsrfToken()).toBe('c1');
  });
});
