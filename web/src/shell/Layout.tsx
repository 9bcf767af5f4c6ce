// Layout — the signed-in console: sidebar (menu.ts), header (project
// switcher, language, user menu) and the page area, where pages load lazily
// behind a skeleton so the frame never jumps.
import { Alert, Button, Dropdown, Layout as AntLayout, Menu, Select, Space, Typography } from 'antd';
import type { MenuProps } from 'antd';
import { GlobalOutlined, UserOutlined } from '@ant-design/icons';
import { lazy, Suspense, useMemo, useState } from 'react';
import { Outlet, useLocation, useNavigate } from 'react-router-dom';
import { useAuth } from '../auth/AuthContext';
import { useI18n, type Lang } from '../i18n';
import { buildMenu, selectedKey, type MenuNode } from './menu';
import { PageSkeleton } from './PageSkeleton';
import { useProject } from './ProjectContext';
import { useMenuData } from './useMenuData';
import { groupIcon, iconByName } from './icons';

type Item = Required<MenuProps>['items'][number];

const PasswordDialog = lazy(() => import('./PasswordDialog'));

function toItems(nodes: MenuNode[], t: (k: string) => string): Item[] {
  return nodes.map((n) =>
    n.children
      ? { key: n.key, label: n.label, icon: groupIcon(n.key.slice(6)), children: toItems(n.children, t) }
      : {
          key: n.key,
          label: n.label,
          icon: iconByName(n.icon),
          disabled: n.disabled,
          title: n.disabled ? t('menu.needsProject') : n.label,
        },
  );
}

function pathsByKey(nodes: MenuNode[], out = new Map<string, string>()): Map<string, string> {
  for (const n of nodes) {
    if (n.path) out.set(n.key, n.path);
    if (n.children) pathsByKey(n.children, out);
  }
  return out;
}

export function LanguageSwitch() {
  const { lang, setLang, t } = useI18n();
  return (
    <Select<Lang>
      aria-label={t('header.language')}
      size="small"
      value={lang}
      onChange={setLang}
      suffixIcon={<GlobalOutlined />}
      style={{ width: 104 }}
      options={[
        { value: 'en', label: 'English' },
        { value: 'zh', label: '中文' },
      ]}
    />
  );
}

function Header() {
  const { t } = useI18n();
  const { me, logout } = useAuth();
  const { project, projects, setProject } = useProject();
  const navigate = useNavigate();
  const [changingPassword, setChangingPassword] = useState(false);
  const local = (me?.user.provider ?? 'local') === 'local' && me?.via === 'session';
  const userMenu: MenuProps['items'] = [
    { key: 'tokens', label: t('header.tokens'), onClick: () => navigate('/tokens') },
    ...(local ? [{ key: 'password', label: t('header.password'), onClick: () => setChangingPassword(true) }] : []),
    { type: 'divider' },
    {
      key: 'logout',
      label: t('header.logout'),
      onClick: async () => {
        await logout().catch(() => undefined);
        navigate('/login');
      },
    },
  ];
  return (
    <AntLayout.Header
      style={{ background: '#fff', padding: '0 16px', display: 'flex', alignItems: 'center', gap: 16, borderBottom: '1px solid #f0f0f0' }}
    >
      <Space size={8}>
        <Typography.Text type="secondary">{t('header.project')}</Typography.Text>
        <Select
          aria-label={t('header.project')}
          showSearch
          style={{ width: 200 }}
          value={project ?? undefined}
          placeholder={t('header.noProject')}
          onChange={setProject}
          options={projects.map((p) => ({ value: p.name, label: p.role ? `${p.name} (${p.role})` : p.name }))}
        />
      </Space>
      <div style={{ flex: 1 }} />
      <LanguageSwitch />
      <Dropdown menu={{ items: userMenu }} trigger={['click']}>
        <Button type="text" icon={<UserOutlined />}>
          {me?.user.displayName || me?.user.name}
        </Button>
      </Dropdown>
      {changingPassword && (
        <Suspense fallback={null}>
          <PasswordDialog onClose={() => setChangingPassword(false)} />
        </Suspense>
      )}
    </AntLayout.Header>
  );
}

export function Layout() {
  const { t, lang } = useI18n();
  const { isAdmin } = useAuth();
  const { project } = useProject();
  const data = useMenuData();
  const loc = useLocation();
  const navigate = useNavigate();
  const [collapsed, setCollapsed] = useState(false);
  const nodes = useMemo(
    () => buildMenu({ kinds: data.kinds, entries: data.entries, project, isAdmin, lang, t }),
    [data.kinds, data.entries, project, isAdmin, lang, t],
  );
  const paths = useMemo(() => pathsByKey(nodes), [nodes]);
  const selected = selectedKey(nodes, loc.pathname);
  // the Menu remounts when groups appear, so every group starts open
  const groupKeys = nodes.filter((n) => n.children).map((n) => n.key);
  return (
    <AntLayout style={{ minHeight: '100vh' }}>
      <AntLayout.Sider data-testid="sidebar" collapsible collapsed={collapsed} onCollapse={setCollapsed} width={200} theme="dark">
        <div style={{ color: '#fff', fontWeight: 600, fontSize: 18, padding: '16px 24px', whiteSpace: 'nowrap' }}>
          {collapsed ? 'C' : t('app.name')}
        </div>
        {/* antd pins the collapse trigger to the bottom of the window: the
            padding lets the last entries scroll clear of it. */}
        <Menu
          theme="dark"
          mode="inline"
          style={{ paddingBottom: 48 }}
          selectedKeys={selected ? [selected] : []}
          key={groupKeys.join()}
          defaultOpenKeys={groupKeys}
          items={toItems(nodes, t)}
          onClick={({ key }) => {
            const p = paths.get(key);
            if (p) navigate(p);
          }}
        />
      </AntLayout.Sider>
      <AntLayout>
        <Header />
        <AntLayout.Content style={{ padding: 24, minWidth: 0 }}>
          {data.error && <Alert type="warning" showIcon message={data.error} style={{ marginBottom: 16 }} closable />}
          <Suspense fallback={<PageSkeleton />}>
            <Outlet />
          </Suspense>
        </AntLayout.Content>
      </AntLayout>
    </AntLayout>
  );
}
