import { act, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { AuthProvider } from '../../auth/AuthContext';
import { I18nProvider, registerMessages } from '../../i18n';
import { ProjectProvider } from '../../shell/ProjectContext';
import { mockFetch } from '../../test/fetchMock';
import messages from './messages';
import { PluginPage } from './PluginPage';
import type { PluginContext, PluginModule } from './pluginHost';

registerMessages(messages);
afterEach(() => vi.unstubAllGlobals());

const ME = { user: { name: 'alice', role: 'user' }, role: 'user', projects: [{ name: 'demo', role: 'dev' }], via: 'session' };
const MENU = {
  items: [{ plugin: 'hello', id: 'greet', group: 'Examples', label: 'Hello', label_zh: '你好', path: '/x/hello/greet', module_url: '/ui/plugins/hello/page.js' }],
};

function renderAt(path: string, load: (url: string) => Promise<PluginModule>) {
  return render(
    <I18nProvider initial="en">
      <MemoryRouter initialEntries={[path]}>
        <AuthProvider>
          <ProjectProvider>
            <Routes>
              <Route path="/x/:plugin/:id" element={<PluginPage load={load} />} />
              <Route path="/elsewhere" element={<p>elsewhere</p>} />
            </Routes>
          </ProjectProvider>
        </AuthProvider>
      </MemoryRouter>
    </I18nProvider>,
  );
}

describe('PluginPage', { timeout: 20000 }, () => {
  it('imports the module URL, mounts it with the context, unmounts on leave', async () => {
    mockFetch({ 'GET /api/v1/auth/me': { body: ME }, 'GET /api/v1/ui/menu': { body: MENU }, 'GET /api/v1/hello': { body: { hi: 1 } } });
    const unmount = vi.fn();
    let ctx: PluginContext | undefined;
    const load = vi.fn(async () => ({
      mount(el: HTMLElement, c: PluginContext) {
        ctx = c;
        el.innerHTML = '<p>hello from the plugin</p>';
        return unmount;
      },
    }));
    const view = renderAt('/x/hello/greet', load);
    expect(await screen.findByText('hello from the plugin')).toBeInTheDocument();
    expect(load).toHaveBeenCalledWith('/ui/plugins/hello/page.js');
    expect(screen.getByRole('heading', { name: 'Hello' })).toBeInTheDocument();
    await waitFor(() => expect(ctx?.user?.name).toBe('alice'));
    expect(ctx?.lang).toBe('en');
    expect(ctx?.project).toBe('demo');
    expect(await (await ctx!.api('/api/v1/hello')).json()).toEqual({ hi: 1 });
    act(() => ctx!.navigate('/elsewhere'));
    expect(await screen.findByText('elsewhere')).toBeInTheDocument();
    expect(unmount).toHaveBeenCalledTimes(1);
    view.unmount();
  });

  it('shows why a page cannot be shown', async () => {
    mockFetch({ 'GET /api/v1/auth/me': { body: ME }, 'GET /api/v1/ui/menu': { body: MENU } });
    renderAt('/x/hello/nope', vi.fn());
    expect(await screen.findByText('No console page "nope" of plugin "hello" is registered.')).toBeInTheDocument();
  });

  it('shows the import error and a module without mount', async () => {
    mockFetch({ 'GET /api/v1/auth/me': { body: ME }, 'GET /api/v1/ui/menu': { body: MENU } });
    const v = renderAt('/x/hello/greet', async () => {
      throw new TypeError('Failed to fetch dynamically imported module');
    });
    expect(await screen.findByText('Failed to fetch dynamically imported module')).toBeInTheDocument();
    v.unmount();
    renderAt('/x/hello/greet', async () => ({}));
    expect(await screen.findByText('The module does not export a mount(element, context) function.')).toBeInTheDocument();
  });
});
