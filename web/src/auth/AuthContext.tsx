// AuthContext — who is signed in (GET /api/v1/auth/me), and the CSRF token
// the API client sends. Any 401 from the API clears the user, and the
// RequireAuth gate sends the browser to /login?next=<where it was>.

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

export function AuthProvider({ children }: { children: ReactNode }) {
  const [me, setMe] = useState<Me | null>(null);
  const [loading, setLoading] = useState(true);
  const [signedOut, setSignedOut] = useState(false);

  const refresh = useCallback(async () => {
    try {
      const m = await api.get<Me>('/api/v1/auth/me');
      if (m.csrf) setCsrfToken(m.csrf);
      setMe(m);
      setSignedOut(false);
      return m;
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 401)) console.warn('auth/me:', e);
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
      setSignedOut(true);
      setMe(null);
    }
  }, []);

  useEffect(() => {
    setUnauthorizedHandler(() => setMe(null));
    void refresh();
    return () => setUnauthorizedHandler(null);
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
