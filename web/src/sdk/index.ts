// @cube/console-sdk — what the console shares with plugin page modules
// (README "Writing a console page"). Built into the console as its own
// chunk and reached through the import map in index.html, so a page
// imports it (and react, antd, echarts ...) without bundling a copy.
//
// Its public surface is ../../sdk/index.d.ts: sdkCheck.ts makes the build
// fail when this implementation stops satisfying that declaration.
// Everything here is a promise to page authors: add freely, change or
// remove only with a new major version.
import { useMemo } from 'react';
import {
  Link as RouterLink,
  useLocation as useRouterLocation,
  useNavigate as useRouterNavigate,
  useParams as useRouterParams,
  useRoutes,
  useSearchParams as useRouterSearchParams,
} from 'react-router-dom';
import { createElement, type ReactElement, type ReactNode } from 'react';
import { useAuth } from '../auth/AuthContext';
import { useI18n as useConsoleI18n } from '../i18n';
import { NotFound } from '../pages/common/NotFound';
import { useProject as useConsoleProject } from '../shell/ProjectContext';

/** The SDK's version (semver). Pages may check it; 1.x stays compatible. */
export const version = '1.2.0';

// the API client
export { api, apiFetch, ApiError, apiUpload, errorFromResponse, errorMessage, resourcePath } from '../api/client';
export { useApi, useWatchedList } from '../api/hooks';
export { followLog } from '../api/logs';
export { watchList } from '../api/watch';

// i18n
export { registerMessages, tOr, translate, useT } from '../i18n';

/** The language and the translate function. */
export function useI18n() {
  const { lang, t } = useConsoleI18n();
  return { lang, t };
}

// the signed-in user and the current project
export function useUser() {
  return useAuth().me?.user ?? null;
}

export function useProject() {
  const { project, projects } = useConsoleProject();
  return { project, projects };
}

// navigation
export const Link = RouterLink;
export const useNavigate = useRouterNavigate;
export const useParams = useRouterParams;
export const useSearchParams = useRouterSearchParams;
export const useLocation = useRouterLocation;

export interface PageRoute {
  /** Absolute console path pattern, e.g. "/p/:project/pipelines/:name". */
  path: string;
  element: ReactNode;
}

/** The first route matching the location, else the console's 404. */
export function PageRoutes({ routes }: { routes: PageRoute[] }): ReactElement | null {
  const all = useMemo(() => [...routes, { path: '*', element: createElement(NotFound) }], [routes]);
  return useRoutes(all);
}

// generic resource components
export { ResourceTable } from '../components/generic/ResourceTable';
export { ObjectDetail } from '../components/generic/ObjectDetail';
export { ResourceEditor } from '../components/generic/ResourceEditor';
export { LogFollow } from '../components/generic/LogFollow';
export { EventsTable } from '../components/generic/EventsTable';
export { useLiveList } from '../components/generic/liveList';
export { useKind, useKinds } from '../components/generic/resources';
export { ErrorAlert } from '../pages/common/ErrorAlert';
export { formatInZone, formatTime, formatUtc } from '../pages/common/format';
export { Time } from '../components/generic/Time';
export { PhaseTag, phaseLabel } from '../components/generic/PhaseTag';
export { EChart } from '../components/generic/EChart';
export { PageSkeleton } from '../shell/PageSkeleton';
export { NotFound };

// pages
export { definePage } from './pageHost';
