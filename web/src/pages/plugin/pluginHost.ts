// pluginHost.ts — the contract of abi/cube/cube_ui.h on the console side:
// a plugin page is an ES module exporting
//     mount(element, context) -> optional unmount function
// with context {api(path, init) -> Promise<Response>, t(key), lang,
// navigate(path), user, project}. The module brings its own code.

import type { UserInfo } from '../../api/types';

export interface PluginContext {
  api(path: string, init?: RequestInit): Promise<Response>;
  t(key: string, vars?: Record<string, string | number>): string;
  lang: 'en' | 'zh';
  navigate(path: string): void;
  user: UserInfo | null;
  project: string | null;
}

export type Unmount = () => void;

export interface PluginModule {
  mount?: (element: HTMLElement, context: PluginContext) => Unmount | void | Promise<Unmount | void>;
}

/** Loads a module by URL (a seam for tests: import() of a URL jsdom cannot do). */
export type ModuleLoader = (url: string) => Promise<PluginModule>;

export const importModule: ModuleLoader = (url) => import(/* @vite-ignore */ url);

/**
 * Mounts the module into element; resolves with the function that undoes
 * it (the module's unmount, or clearing the element). Throws when the
 * module has no mount export or mount throws.
 */
export async function mountPlugin(mod: PluginModule, element: HTMLElement, ctx: PluginContext): Promise<Unmount> {
  if (typeof mod.mount !== 'function') throw new TypeError('no mount export');
  const un = await mod.mount(element, ctx);
  return () => {
    try {
      if (typeof un === 'function') un();
    } finally {
      element.replaceChildren();
    }
  };
}
