import { render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryRouter } from 'react-router-dom';
import type { KindInfo } from '../api/types';
import { AuthProvider } from '../auth/AuthContext';
import { AppRoutes } from '../App';
import { I18nProvider, translate } from '../i18n';
import { mockFetch } from '../test/fetchMock';
import { kindObjectPath } from '../pages/registry';
import { buildMenu, selectedKey, type MenuNode } from './menu';
import { notePluginPages } from './pluginPages';
import './messages';

afterEach(() => vi.unstubAllGlobals());

// the shape of GET /api/v1/kinds (core kinds plus a plugin's)
const kinds: KindInfo[] = [
  { kind: 'User', plural: 'users', singular: 'user', scope: 'cluster', group: 'Platform' },
  { kind: 'Project', plural: 'projects', singular: 'project', scope: 'cluster', group: 'Platform' },
  { kind: 'Job', plural: 'jobs', singular: 'job', scope: 'project', group: 'Training' },
  { kind: 'Widget', plural: 'widgets', singular: 'widget', scope: 'project', group: 'Examples' },
  { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', scope: 'cluster', group: 'Examples' },
];

const t = (k: string, v?: Record<string, string | number>) => translate('en', k, v);

function flat(nodes: MenuNode[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  const visit = (ns: MenuNode[], g: string) =>
    ns.forEach((n) => (n.children ? visit(n.children, n.label) : (out[`${g}/${n.label}`] = n.path)));
  visit(nodes, '');
  return out;
}

describe('sidebar menu', () => {
  it('lists every kind under its group, dedicated pages through the registry', () => {
    const nodes = buildMenu({ kinds, entries: [], project: 'demo', isAdmin: true, lang: 'en', t });
    const m = flat(nodes);
    expect(m['/Home']).toBe('/');
    expect(m['Training/Jobs']).toBe('/p/demo/jobs');
    expect(m['Examples/Widgets']).toBe('/p/demo/k/widgets');
    expect(m['Examples/Gadgets']).toBe('/k/gadgets');
    expect(m['Platform/Users']).toBe('/users');
    // User and Project are fixed entries too: listed once
    expect(Object.values(m).filter((p) => p === '/users')).toHaveLength(1);
    expect(Object.values(m).filter((p) => p === '/projects')).toHaveLength(1);
    // work first, the operator's groups last
    expect(nodes.filter((n) => n.children).map((n) => n.label)).toEqual(['Training', 'Examples', 'Infrastructure', 'Platform']);
  });

  it('disables project kinds without a project and hides admin entries from users', () => {
    const nodes = buildMenu({ kinds, entries: [], project: null, isAdmin: false, lang: 'en', t });
    const training = nodes.find((n) => n.label === 'Training')!;
    expect(training.children![0]).toMatchObject({ label: 'Jobs', disabled: true });
    expect(training.children![0].path).toBeUndefined();
    expect(flat(nodes)['Platform/Users']).toBeUndefined();
  });

  it('adds plugin entries of /api/v1/ui/menu in the chosen language', () => {
    const entries = [
      { plugin: 'hello', id: 'greet', group: 'Examples', label: 'Greetings', label_zh: '问候', order: 1 },
      { plugin: 'board', id: 'main', group: 'Monitoring', label: 'Board', path: '/x/board/main' },
    ];
    const en = flat(buildMenu({ kinds, entries, project: 'demo', isAdmin: false, lang: 'en', t }));
    expect(en['Examples/Greetings']).toBe('/x/hello/greet');
    expect(en['Monitoring/Board']).toBe('/x/board/main');
    const zh = flat(buildMenu({ kinds, entries, project: 'demo', isAdmin: false, lang: 'zh', t }));
    expect(zh['Examples/问候']).toBe('/x/hello/greet');
  });

  it("opens a kind's plugin page from the kind's entry, and fills a route's project", () => {
    const sprocket: KindInfo = { kind: 'Sprocket', plural: 'sprockets', singular: 'sprocket', scope: 'project', group: 'Examples' };
    const entries = [
      { plugin: 'sp', id: 'sprockets', group: 'Examples', label: 'Sprocket page', route: '/p/:project/sprockets', kind: 'Sprocket', module_url: '/ui/plugins/sp/page.js' },
      { plugin: 'sp', id: 'board', group: 'Examples', label: 'Board', route: '/p/:project/board', module_url: '/ui/plugins/sp/page.js' },
    ];
    notePluginPages(entries);
    const m = flat(buildMenu({ kinds: [...kinds, sprocket], entries, project: 'my proj', isAdmin: false, lang: 'en', t }));
    expect(m['Examples/Sprockets']).toBe('/p/my%20proj/sprockets');
    expect(m['Examples/Sprocket page']).toBeUndefined();
    expect(m['Examples/Board']).toBe('/p/my%20proj/board');
    expect(kindObjectPath(sprocket, 's1', 'demo')).toBe('/p/demo/sprockets/s1');
    const none = buildMenu({ kinds: [...kinds, sprocket], entries, project: null, isAdmin: false, lang: 'en', t });
    expect(none.flatMap((n) => n.children ?? []).find((n) => n.label === 'Board')?.disabled).toBe(true);
  });

  it('selects the longest matching entry', () => {
    const nodes = buildMenu({ kinds, entries: [], project: 'demo', isAdmin: true, lang: 'en', t });
    expect(selectedKey(nodes, '/p/demo/jobs/train-1')).toBe('/p/demo/jobs');
    expect(selectedKey(nodes, '/')).toBe('/');
    expect(selectedKey(nodes, '/projects/demo')).toBe('/projects');
  });

  it('renders the kinds of the server in the sidebar, with /ui/menu missing (404)', async () => {
    mockFetch({
      'GET /api/v1/auth/me': {
        body: { user: { name: 'alice', role: 'user' }, role: 'user', projects: [{ name: 'demo', role: 'dev' }], via: 'session', csrf: 'x' },
      },
      'GET /api/v1/kinds': { body: { kind: 'KindList', items: kinds } },
      'GET /api/v1/projects/demo/jobs': { body: { kind: 'JobList', items: [] } },
    });
    render(
      <I18nProvider initial="en">
        <MemoryRouter initialEntries={['/p/demo/k/widgets']}>
          <AuthProvider>
            <AppRoutes />
          </AuthProvider>
        </MemoryRouter>
      </I18nProvider>,
    );
    const menu = await screen.findByTestId('sidebar');
    expect(await within(menu).findByText('Widgets')).toBeInTheDocument();
    expect(within(menu).getByText('Gadgets')).toBeInTheDocument();
    expect(within(menu).getByText('Examples')).toBeInTheDocument();
    expect(within(menu).queryByText('Users')).not.toBeInTheDocument(); // not an admin
    // the generic page answers from its lazily loaded area
    expect(await screen.findByRole('button', { name: 'Create Widget' }, { timeout: 10000 })).toBeInTheDocument();
  });
});
