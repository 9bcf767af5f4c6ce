// AuthContext — who is signed in (GET /api/v1/auth/me), and the CSRF token
// the API client sends. Any 401 from the API clears the user, and the
// RequireAuth gate sends the browser to /login?next=<where it was>.
// auth/me is asked only when a session may exist: the console keeps a hint
// in its origin's localStorage (set when auth/me answered or a sign-in
// through a provider's redirect began, dropped on a 401 and on sign-out),
// or the server signs people in by a trusted proxy header (auth/providers
// says trustedHeader). A first visit thus goes to the sign-in page without
// a 401 that the browser would log as an error. The hint is no cookie:
// cookies are shared across ports, so one would be readable by the pages
// of the apps origin (user content, another port of the same host).

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { ApiError, api, setCsrfToken, setUnauthorizedHandler } from '../api/client';
import type { Me } from '../api/types';
import { PageSkeleton } from '../shell/PageSkeleton';

interface AuthState {
  me: Me | null;
  loading: boolean;
  /** Re-reads /auth/me (after login, or when projects changed). */
  refresh(): Promise<Me | null>;
  logout(): Promise<void>;
  isAdmin: boolean;
  /** True after logout(): the next sign-in starts at home, not where the
   *  previous user was. */
  signedOut: boolean;
}

const AuthContext = createContext<AuthState | null>(null);

const HINT = 'cube.signedIn';

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;   // storage disabled: every visit asks auth/me
  }
}

/** Whether a session may exist (this console saw one, or a sign-in began). */
export function sessionHinted(): boolean {
  const s = storage();
  return !s || s.getItem(HINT) === '1';
}

/** Notes that a session may exist from now on (a sign-in, a provider's
 *  redirect about to start). */
export function hintSession() {
  storage()?.setItem(HINT, '1');
}

function dropHint() {
  storage()?.removeItem(HINT);
}

/** Whether this server signs people in by a proxy's header (then there is
 *  no cookie to hint at a session). */
async function trustedHeader(): Promise<boolean> {
  try {
    const p = await api.get<{ trustedHeader?: boolean }>('/api/v1/auth/providers');
    return !!p.trustedHeader;
  } catch {
    return false;
  }
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [me, setMe] = useState<Me | null>(null);
  const [loading, setLoading] = useState(true);
  const [signedOut, setSignedOut] = useState(false);

  const refresh = useCallback(async () => {
    try {
      const m = await api.get<Me>('/api/v1/auth/me');
      if (m.csrf) setCsrfToken(m.csrf);
      hintSession();
      setMe(m);
      setSignedOut(false);
      return m;
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) dropHint();
      else console.warn('auth/me:', e);
      setMe(null);
      return null;
    } finally {
      setLoading(false);
    }
  }, []);

  const logout = useCallback(async () => {
    try {
      await api.post('/api/v1/auth/logout');
    } finally {
      setCsrfToken(null);
      dropHint();
      setSignedOut(true);
      setMe(null);
    }
  }, []);

  useEffect(() => {
    let live = true;
    setUnauthorizedHandler(() => {
      dropHint();
      setMe(null);
    });
    if (sessionHinted()) void refresh();
    else
      void trustedHeader().then((yes) => {
        if (!live) return;
        if (yes) void refresh();
        else setLoading(false);
      });
    return () => {
      live = false;
      setUnauthorizedHandler(null);
    };
  }, [refresh]);

  const value = useMemo(
    () => ({ me, loading, refresh, logout, isAdmin: me?.role === 'admin', signedOut }),
    [me, loading, refresh, logout, signedOut],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const s = useContext(AuthContext);
  if (!s) throw new Error('useAuth outside AuthProvider');
  return s;
}

/** Renders children only for a signed-in user; otherwise goes to /login. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { me, loading, signedOut } = useAuth();
  const loc = useLocation();
  if (loading) return <PageSkeleton />;
  if (!me && signedOut) return <Navigate to="/login" replace />;
  if (!me) {
    const next = loc.pathname + loc.search;
    return <Navigate to={next && next !== '/' ? `/login?next=${encodeURIComponent(next)}` : '/login'} replace />;
  }
  return <>{children}</>;
}
