// @cube/console-test — what the tests of the plugins' console pages
// (plugins/*/ui/src/*.test.tsx, run by the console's vitest) use to render
// a page as the console would: the console's providers, a memory router,
// the fetch stand-in. Only for this tree's tests; not part of the SDK.
export { mockFetch } from './fetchMock';
export { I18nProvider, registerMessages } from '../i18n';
export { AuthProvider } from '../auth/AuthContext';
export { ProjectProvider } from '../shell/ProjectContext';
export { MemoryRouter, Route, Routes } from 'react-router-dom';
export { default } from '../shell/messages';
