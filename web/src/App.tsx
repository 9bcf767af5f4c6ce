// App — providers (language, antd locale, auth, project) and the route table.
import { App as AntApp, ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import { Suspense, type ReactNode } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router-dom';
import { AuthProvider, RequireAuth, useAuth } from './auth/AuthContext';
import { I18nProvider, registerMessages, useI18n } from './i18n';
import {
  AreaRoutes,
  HomePage,
  LoginPage,
  ProjectPage,
  ProjectsPage,
  TokensPage,
  UsersPage,
} from './routes';
import { Layout } from './shell/Layout';
import shellMessages from './shell/messages';
import { PageSkeleton } from './shell/PageSkeleton';
import { ProjectProvider } from './shell/ProjectContext';

registerMessages(shellMessages);

function Themed({ children }: { children: ReactNode }) {
  const { lang } = useI18n();
  return (
    <ConfigProvider locale={lang === 'zh' ? zhCN : enUS} theme={{ token: { colorPrimary: '#1677ff' } }}>
      <AntApp>{children}</AntApp>
    </ConfigProvider>
  );
}

function AdminOnly({ children }: { children: ReactNode }) {
  const { isAdmin } = useAuth();
  return isAdmin ? <>{children}</> : <Navigate to="/" replace />;
}

export function AppRoutes() {
  return (
    <Routes>
      <Route
        path="/login"
        element={
          <Suspense fallback={<PageSkeleton />}>
            <LoginPage />
          </Suspense>
        }
      />
      <Route
        element={
          <RequireAuth>
            <ProjectProvider>
              <Layout />
            </ProjectProvider>
          </RequireAuth>
        }
      >
        <Route path="/" element={<HomePage />} />
        <Route path="/projects" element={<ProjectsPage />} />
        <Route path="/projects/:project" element={<ProjectPage />} />
        <Route path="/users" element={<AdminOnly><UsersPage /></AdminOnly>} />
        <Route path="/tokens" element={<TokensPage />} />
        <Route path="*" element={<AreaRoutes />} />
      </Route>
    </Routes>
  );
}

export default function App() {
  return (
    <I18nProvider>
      <Themed>
        <BrowserRouter>
          <AuthProvider>
            <AppRoutes />
          </AuthProvider>
        </BrowserRouter>
      </Themed>
    </I18nProvider>
  );
}
