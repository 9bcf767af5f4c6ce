// Layout — the signed-in console: sidebar (menu.ts), header (project
// switcher, language, user menu) and the page area, where pages load lazily
// behind a skeleton so the frame never jumps. On a phone (useIsPhone) the
// sidebar is a drawer opened from the header's menu button, the header
// keeps to one line, and shell.css keeps pages within the viewport.
import { Alert, Button, Drawer, Dropdown, Layout as AntLayout, Menu, Select, Space, Typography } from 'antd';
import type { MenuProps } from 'antd';
import { GlobalOutlined, MenuOutlined, UserOutlined } from '@ant-design/icons';
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { Outlet, useLocation, useNavigate } from 'react-router-dom';
import { useAuth } from '../auth/AuthContext';
import { useI18n, type Lang } from '../i18n';
import { buildMenu, selectedKey, type MenuNode } from './menu';
import { PageSkeleton } from './PageSkeleton';
import { useProject } from './ProjectContext';
import { useMenuData } from './useMenuData';
import { groupIcon, iconByName } from './icons';
import { useIsPhone } from './useIsPhone';
import './shell.css';

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

export function LanguageSwitch({ compact = false }: { compact?: boolean }) {
  const { lang, setLang, t } = useI18n();
  return (
    <Select<Lang>
      aria-label={t('header.language')}
      size="small"
      value={lang}
      onChange={setLang}
      suffixIcon={<GlobalOutlined />}
      style={{ width: compact ? 76 : 104 }}
      popupMatchSelectWidth={false}
      options={[
        { value: 'en', label: compact ? 'EN' : 'English' },
        { value: 'zh', label: compact ? '中' : '中文' },
      ]}
      optionRender={(o) => (o.value === 'en' ? 'English' : '中文')}
    />
  );
}

function Header({ phone, onMenu }: { phone: boolean; onMenu(): void }) {
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
  const userName = me?.user.displayName || me?.user.name;
  return (
    <AntLayout.Header
      className="cube-header"
      style={{
        background: '#fff',
        padding: phone ? '0 8px' : '0 16px',
        display: 'flex',
        alignItems: 'center',
        gap: phone ? 8 : 16,
        borderBottom: '1px solid #f0f0f0',
        whiteSpace: 'nowrap',
      }}
    >
      {phone && (
        <Button type="text" icon={<MenuOutlined />} aria-label={t('header.menu')} data-testid="sidebar-open" onClick={onMenu} />
      )}
      <Space size={8} style={{ minWidth: 0, flex: phone ? '1 1 auto' : undefined }}>
        {!phone && <Typography.Text type="secondary">{t('header.project')}</Typography.Text>}
        <Select
          aria-label={t('header.project')}
          showSearch
          style={{ width: phone ? '100%' : 200, minWidth: phone ? 96 : undefined, maxWidth: phone ? 150 : undefined }}
          popupMatchSelectWidth={phone ? 220 : true}
          value={project ?? undefined}
          placeholder={t('header.noProject')}
          onChange={setProject}
          options={projects.map((p) => ({ value: p.name, label: p.role ? `${p.name} (${t(`role.${p.role}`)})` : p.name }))}
        />
      </Space>
      <div style={{ flex: 1 }} />
      <LanguageSwitch compact={phone} />
      <Dropdown menu={{ items: userMenu }} trigger={['click']}>
        <Button type="text" icon={<UserOutlined />} aria-label={userName} title={userName}>
          {phone ? null : userName}
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
  const phone = useIsPhone();
  const [collapsed, setCollapsed] = useState(false);
  const [drawer, setDrawer] = useState(false);
  const nodes = useMemo(
    () => buildMenu({ kinds: data.kinds, entries: data.entries, project, isAdmin, lang, t }),
    [data.kinds, data.entries, project, isAdmin, lang, t],
  );
  const paths = useMemo(() => pathsByKey(nodes), [nodes]);
  const selected = selectedKey(nodes, loc.pathname);
  // a page opened from the drawer closes it; so does growing to a desktop
  useEffect(() => setDrawer(false), [loc.pathname, phone]);
  // the Menu remounts when groups appear, so every group starts open
  const groupKeys = nodes.filter((n) => n.children).map((n) => n.key);
  const menu = (
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
  );
  return (
    <AntLayout style={{ minHeight: '100vh' }}>
      {phone ? (
        <Drawer
          open={drawer}
          onClose={() => setDrawer(false)}
          placement="left"
          width={260}
          closable={false}
          styles={{ body: { padding: 0, background: '#001529' } }}
          rootClassName="cube-sidebar-drawer"
        >
          <div data-testid="sidebar" className="cube-sidebar">
            <div style={{ color: '#fff', fontWeight: 600, fontSize: 18, padding: '16px 24px' }}>{t('app.name')}</div>
            {menu}
          </div>
        </Drawer>
      ) : (
        <AntLayout.Sider data-testid="sidebar" collapsible collapsed={collapsed} onCollapse={setCollapsed} width={200} theme="dark">
          <div style={{ color: '#fff', fontWeight: 600, fontSize: 18, padding: '16px 24px', whiteSpace: 'nowrap' }}>
            {collapsed ? 'C' : t('app.name')}
          </div>
          {/* antd pins the collapse trigger to the bottom of the window: the
              padding lets the last entries scroll clear of it. */}
          {menu}
        </AntLayout.Sider>
      )}
      <AntLayout style={{ minWidth: 0 }}>
        <Header phone={phone} onMenu={() => setDrawer(true)} />
        <AntLayout.Content className="cube-content" style={{ padding: phone ? 12 : 24, minWidth: 0 }}>
          {data.error && <Alert type="warning" showIcon message={data.error} style={{ marginBottom: 16 }} closable />}
          <Suspense fallback={<PageSkeleton />}>
            <Outlet />
          </Suspense>
        </AntLayout.Content>
      </AntLayout>
    </AntLayout>
  );
}
