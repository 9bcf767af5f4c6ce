// Login — the local form (and any other password method, e.g. LDAP) plus one
// button per redirect method (SSO) from GET /api/v1/auth/providers. A refused
// sign-in shows the server's message as it is.
import { Alert, Button, Card, Divider, Form, Input, Select, Skeleton, Space } from 'antd';
import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { useEffect, useState } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router-dom';
import { api, errorMessage, setCsrfToken } from '../../api/client';
import type { AuthProvider } from '../../api/types';
import { useAuth, hintSession } from '../../auth/AuthContext';
import { registerMessages, useT } from '../../i18n';
import { LanguageSwitch } from '../../shell/Layout';
import messages from './messages';

registerMessages(messages);

interface LoginForm {
  username: string;
  password: string;
  provider?: string;
}

/** Only same-site paths: never send a user on to another origin. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export default function Login() {
  const t = useT();
  const { me, refresh } = useAuth();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const [providers, setProviders] = useState<AuthProvider[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api
      .get<{ providers: AuthProvider[] }>('/api/v1/auth/providers')
      .then((d) => setProviders(d.providers ?? []))
      .catch(() => setProviders([{ name: 'local', displayName: 'User name and password', kind: 'password' }]));
  }, []);

  if (me) return <Navigate to={next} replace />;

  const passwordMethods = (providers ?? []).filter((p) => p.kind === 'password');
  const redirects = (providers ?? []).filter((p) => p.kind !== 'password' && p.loginPath);

  async function submit(v: LoginForm) {
    setBusy(true);
    setError(null);
    try {
      const body: Record<string, string> = { username: v.username, password: v.password };
      if (v.provider && v.provider !== 'local') body.provider = v.provider;
      const r = await api.post<{ csrf: string }>('/api/v1/auth/login', body);
      setCsrfToken(r.csrf);
      await refresh();
      navigate(next, { replace: true });
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div style={{ minHeight: '100vh', display: 'flex', alignItems: 'center', justifyContent: 'center', background: '#f5f5f5' }}>
      <Card title={t('login.title')} extra={<LanguageSwitch />} style={{ width: 380 }}>
        {providers === null ? (
          <Skeleton active paragraph={{ rows: 4 }} />
        ) : (
          <>
            {error && <Alert type="error" showIcon message={error} role="alert" style={{ marginBottom: 16 }} />}
            {passwordMethods.length > 0 && (
              <Form<LoginForm>
                layout="vertical"
                onFinish={submit}
                initialValues={{ provider: passwordMethods[0]?.name }}
                requiredMark={false}
              >
                {passwordMethods.length > 1 && (
                  <Form.Item name="provider" label={t('login.method')}>
                    <Select options={passwordMethods.map((p) => ({ value: p.name, label: p.displayName }))} />
                  </Form.Item>
                )}
                <Form.Item name="username" label={t('login.username')} rules={[{ required: true, message: t('login.required') }]}>
                  <Input prefix={<UserOutlined />} autoComplete="username" autoFocus />
                </Form.Item>
                <Form.Item name="password" label={t('login.password')} rules={[{ required: true, message: t('login.required') }]}>
                  <Input.Password prefix={<LockOutlined />} autoComplete="current-password" />
                </Form.Item>
                <Button type="primary" htmlType="submit" block loading={busy}>
                  {t('login.submit')}
                </Button>
              </Form>
            )}
            {redirects.length > 0 && (
              <>
                {passwordMethods.length > 0 && <Divider plain>{t('login.or')}</Divider>}
                <Space direction="vertical" style={{ width: '100%' }}>
                  {redirects.map((p) => (
                    <Button key={p.name} block onClick={hintSession} href={`${p.loginPath}${p.loginPath!.includes('?') ? '&' : '?'}next=${encodeURIComponent(next)}`}>
                      {t('login.with', { name: p.displayName })}
                    </Button>
                  ))}
                </Space>
              </>
            )}
          </>
        )}
      </Card>
    </div>
  );
}
