import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeEach } from 'vitest';

// lazily loaded pages and antd's first render take seconds on a busy machine
configure({ asyncUtilTimeout: 10000 });

// as after a sign-in: the console's hint that a session may exist, so it
// asks auth/me (auth/AuthContext.tsx); a test of a first visit removes it
beforeEach(() => {
  localStorage.setItem('cube.signedIn', '1');
});

afterEach(() => {
  cleanup();
  localStorage.clear();
});

// antd reads these; jsdom lacks them.
if (!window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    }) as MediaQueryList;
}
if (!('ResizeObserver' in window)) {
  (window as unknown as { ResizeObserver: unknown }).ResizeObserver = class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
}

// the shell's messages (common.*) are registered by App.tsx in the console
import { registerMessages } from '../i18n';
import shellMessages from '../shell/messages';
registerMessages(shellMessages);

// jsdom implements getComputedStyle without pseudo-elements (and logs an
// error each time antd asks for one)
const computed = window.getComputedStyle.bind(window);
window.getComputedStyle = ((elt: Element) => computed(elt)) as typeof window.getComputedStyle;
