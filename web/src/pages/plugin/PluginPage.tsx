// PluginPage — /x/:plugin/:id: finds the entry in GET /api/v1/ui/menu,
// loads its module_url with a dynamic import() and mounts it into an empty
// <div> (abi/cube/cube_ui.h); leaving the page calls the returned unmount.
// Load and mount failures are shown with the browser's or module's message.
// A page with a route of its own (RoutePage) is handed its entry and has
// no title here (it draws its own). Pages built with the SDK's definePage
// render through a portal into that <div> (sdk/pageHost.tsx), inside the
// console's providers.

import { useEffect, useRef, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { Alert, Typography } from 'antd';
import { useNavigate, useParams } from 'react-router-dom';
import { apiFetch, errorMessage } from '../../api/client';
import type { UiMenuEntry } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { useI18n } from '../../i18n';
import { useProject } from '../../shell/ProjectContext';
import { loadUiMenu } from '../../shell/useMenuData';
import { PageSkeleton } from '../../shell/PageSkeleton';
import { registerPageHost } from '../../sdk/pageHost';
import { importModule, mountPlugin, type ModuleLoader, type PluginContext } from './pluginHost';

type State = { phase: 'loading' } | { phase: 'mounted'; entry: UiMenuEntry } | { phase: 'error'; title: string; detail?: string };

export function PluginPage({ load = importModule, entry: given }: { load?: ModuleLoader; entry?: UiMenuEntry }) {
  const params = useParams();
  const plugin = given?.plugin ?? params.plugin ?? '';
  const id = given?.id ?? params.id ?? '';
  const { t, lang } = useI18n();
  const navigate = useNavigate();
  const { me } = useAuth();
  const { project } = useProject();
  const host = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<State>({ phase: 'loading' });
  const [portal, setPortal] = useState<{ node: ReactNode; box: HTMLElement } | null>(null);
  // The context reads the latest values without remounting the page.
  const live = useRef({ t, lang, navigate, me, project });
  live.current = { t, lang, navigate, me, project };

  useEffect(() => {
    let cancelled = false;
    let unmount: (() => void) | null = null;
    setState({ phase: 'loading' });
    (async () => {
      let entry: UiMenuEntry | undefined = given;
      try {
        entry ??= (await loadUiMenu()).find((e) => e.plugin === plugin && e.id === id);
      } catch (e) {
        if (!cancelled) setState({ phase: 'error', title: t('plugin.loadFailed', { plugin }), detail: errorMessage(e) });
        return;
      }
      if (cancelled) return;
      if (!entry) return setState({ phase: 'error', title: t('plugin.notFound', { plugin, id }) });
      if (!entry.module_url) return setState({ phase: 'error', title: t('plugin.noModule') });
      let mod;
      try {
        mod = await load(entry.module_url);
      } catch (e) {
        if (!cancelled) setState({ phase: 'error', title: t('plugin.loadFailed', { plugin }), detail: errorMessage(e) });
        return;
      }
      if (cancelled || !host.current) return;
      if (typeof mod?.mount !== 'function') return setState({ phase: 'error', title: t('plugin.noMount') });
      const ctx: PluginContext = {
        api: (path, init) => apiFetch(path, init),
        t: (key, vars) => live.current.t(key, vars),
        get lang() {
          return live.current.lang;
        },
        navigate: (path) => live.current.navigate(path),
        get user() {
          return live.current.me?.user ?? null;
        },
        get project() {
          return live.current.project;
        },
      };
      const unregister = registerPageHost(host.current, (node, box) =>
        setPortal(node && box ? { node, box } : null),
      );
      try {
        const un = await mountPlugin(mod, host.current, ctx);
        if (cancelled) un();
        else {
          unmount = un;
          setState({ phase: 'mounted', entry });
        }
      } catch (e) {
        if (!cancelled) setState({ phase: 'error', title: t('plugin.mountFailed', { plugin }), detail: errorMessage(e) });
      } finally {
        unregister();
      }
    })();
    return () => {
      cancelled = true;
      try {
        unmount?.();
      } catch (e) {
        console.warn(`plugin ${plugin}: unmount failed`, e);
      }
    };
  }, [plugin, id, load]); // eslint-disable-line react-hooks/exhaustive-deps

  const entry = state.phase === 'mounted' && !state.entry.route ? state.entry : undefined;
  return (
    <div>
      {entry && (
        <Typography.Title level={3} style={{ marginTop: 0 }}>
          {lang === 'zh' && entry.label_zh ? entry.label_zh : entry.label}
        </Typography.Title>
      )}
      {state.phase === 'loading' && <PageSkeleton />}
      {state.phase === 'error' && <Alert type="error" showIcon message={state.title} description={state.detail} />}
      <div ref={host} data-plugin={plugin} />
      {portal && createPortal(portal.node, portal.box)}
    </div>
  );
}
