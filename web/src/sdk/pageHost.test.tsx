import { render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { AuthProvider } from '../auth/AuthContext';
import { I18nProvider } from '../i18n';
import { PluginPage } from '../pages/plugin/PluginPage';
import { ProjectProvider } from '../shell/ProjectContext';
import { mockFetch } from '../test/fetchMock';
import { definePage, PageRoutes, useParams, useProject, useT, useUser, version } from './index';

afterEach(() => vi.unstubAllGlobals());

const ME = { user: { name: 'alice', role: 'user' }, role: 'user', projects: [{ name: 'demo', role: 'dev' }], via: 'session' };
const ENTRY = {
  plugin: 'widgets', id: 'widgets', group: 'Tools', label: 'Widgets', path: '/p/:project/widgets',
  route: '/p/:project/widgets', kind: 'Widget', module_url: '/ui/plugins/widgets/page.js',
};

function Widget() {
  const t = useT();
  const { name } = useParams();
  const { project } = useProject();
  return <p>{t('widgets.one', { name: name ?? '', project: project ?? '', user: useUser()?.name ?? '' })}</p>;
}

const page = definePage(
  () => <PageRoutes routes={[{ path: '/p/:project/widgets/:name', element: <Widget /> }]} />,
  { messages: { en: { 'widgets.one': 'widget {name} of {project} for {user}' } } },
);

describe('definePage', { timeout: 20000 }, () => {
  it('renders a page module inside the console: its router, project, user and strings', async () => {
    mockFetch({ 'GET /api/v1/auth/me': { body: ME } });
    const view = render(
      <I18nProvider initial="en">
        <MemoryRouter initialEntries={['/p/demo/widgets/w1']}>
          <AuthProvider>
            <ProjectProvider>
              <Routes>
                <Route path="*" element={<PluginPage entry={ENTRY} load={async () => page} />} />
              </Routes>
            </ProjectProvider>
          </AuthProvider>
        </MemoryRouter>
      </I18nProvider>,
    );
    expect(await screen.findByText('widget w1 of demo for alice')).toBeInTheDocument();
    // a page with a route of its own draws its own title
    expect(screen.queryByRole('heading', { name: 'Widgets' })).not.toBeInTheDocument();
    expect(version).toMatch(/^1\.\d+\.\d+$/);
    view.unmount();
  });

  it('refuses to mount outside a console page', () => {
    expect(() => page.mount(document.createElement('div'))).toThrow(/only into a Cube console page/);
  });

  it('shows the console 404 for a path the page does not know', async () => {
    mockFetch({ 'GET /api/v1/auth/me': { body: ME } });
    render(
      <I18nProvider initial="en">
        <MemoryRouter initialEntries={['/p/demo/widgets/w1/nope']}>
          <AuthProvider>
            <ProjectProvider>
              <PluginPage entry={ENTRY} load={async () => page} />
            </ProjectProvider>
          </AuthProvider>
        </MemoryRouter>
      </I18nProvider>,
    );
    await waitFor(() => expect(screen.getByText('404')).toBeInTheDocument());
  });
});
