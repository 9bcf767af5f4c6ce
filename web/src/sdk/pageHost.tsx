// pageHost — how a page module built against @cube/console-sdk renders
// inside the console's own React tree.
//
// The console's PluginPage registers each empty <div> it hands to a
// module's mount() (abi/cube/cube_ui.h) before calling it. A page made
// with definePage() looks its element up here and asks the console to
// render its component there through a portal: the page shares the
// console's React, router, language, project and Ant Design theme instead
// of starting a second React root. Plain ES modules (no SDK) never touch
// this and keep the DOM contract.
import { Alert } from 'antd';
import { Component, Suspense, type ComponentType, type ReactNode } from 'react';
import { registerMessages, type MessageBundle } from '../i18n';
import { PageSkeleton } from '../shell/PageSkeleton';

/** Renders `node` into `container` (null: nothing). Owned by PluginPage. */
export type PortalRender = (node: ReactNode | null, container: HTMLElement | null) => void;

const hosts = new WeakMap<Element, PortalRender>();

/** PluginPage: `element` is about to be mounted; returns the unregister. */
export function registerPageHost(element: HTMLElement, render: PortalRender): () => void {
  hosts.set(element, render);
  return () => hosts.delete(element);
}

/** A page's render error, shown where the page would be. */
class PageBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  render() {
    if (this.state.error) return <Alert type="error" showIcon role="alert" message={this.state.error.message} />;
    return this.props.children;
  }
}

export interface PageOptions {
  /** The page's own strings, registered before it first renders. */
  messages?: MessageBundle;
}

export interface PageModule {
  mount(element: HTMLElement, context?: unknown): () => void;
}

/**
 * Makes the `mount` export of a page module from a React component. The
 * component renders within the console: SDK hooks (useT, useParams,
 * useProject ...) and Ant Design components work as in the console's own
 * pages; lazy parts suspend inside the page, not the shell.
 */
export function definePage(Page: ComponentType, options: PageOptions = {}): PageModule {
  return {
    mount(element: HTMLElement) {
      const render = hosts.get(element);
      if (!render) throw new Error('@cube/console-sdk: this page mounts only into a Cube console page');
      if (options.messages) registerMessages(options.messages);
      // A box of our own: the console clears `element` after unmount, and
      // React must still find the portal's children where it put them.
      const box = document.createElement('div');
      element.append(box);
      render(
        <PageBoundary>
          <Suspense fallback={<PageSkeleton />}>
            <Page />
          </Suspense>
        </PageBoundary>,
        box,
      );
      return () => render(null, null);
    },
  };
}
