// @cube/console-sdk 1.1 — the Cube console's runtime SDK for plugin pages.
//
// A console page is an ES module a plugin ships in its asset directory
// (abi/cube/cube_ui.h). Built against this SDK, it imports
//     @cube/console-sdk, react, react/jsx-runtime, react-dom,
//     react-dom/client, antd, echarts
// without bundling them: the console's import map resolves each of these
// bare specifiers to the console's own copy (React 18, Ant Design 5,
// ECharts 5), so a page shares the console's React tree, theme, language
// and router. Mark them external in the page's build. Icons
// (@ant-design/icons) a page bundles: only those it uses.
//
// Compatibility: every name below keeps working with every console of the
// same SDK major (1.x); minors only add. The shared libraries keep their
// major versions within an SDK major. See README "Writing a console page".
import type { ComponentType, ReactElement, ReactNode } from 'react';
import type { TableColumnsType } from 'antd';

/** The SDK version the console serves (semver), e.g. "1.2.0". */
export declare const version: string;

// ---------------------------------------------------------------- objects

export interface ObjectMeta {
  name: string;
  project?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  owner?: string;
  ownerReferences?: unknown[];
  created?: string;
  updated?: string;
  resourceVersion?: string;
  generation?: number;
}

/** Any object of the resource API. */
export interface CubeObject<Spec = Record<string, unknown>, Status = Record<string, unknown>> {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: Spec;
  status?: Status;
}

export interface ObjectList<T = CubeObject> {
  kind: string;
  items: T[];
  metadata?: { resourceVersion?: string; continue?: string };
}

/** One entry of GET /api/v1/kinds. */
export interface KindInfo {
  kind: string;
  plural: string;
  singular: string;
  scope: 'project' | 'cluster';
  group: string;
  description?: string;
  schema?: Record<string, unknown>;
  statusSchema?: Record<string, unknown>;
  printerColumns?: { name: string; jsonPath: string; type?: string; description?: string }[];
  actions?: { name: string; method: string; summary?: string }[];
}

export interface UserInfo {
  name: string;
  displayName?: string;
  email?: string;
  role: 'admin' | 'user';
  provider?: string;
  disabled?: boolean;
}

// ------------------------------------------------------------- API client

/** A failed call: the server's status, error code, message and the field
 *  it names (e.g. "spec.schedule"). */
export declare class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field?: string;
  constructor(status: number, code: string, message: string, field?: string);
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** The console's authenticated fetch (session cookie, CSRF header). */
export declare function apiFetch(path: string, init?: RequestInit): Promise<Response>;
/** JSON calls; each throws ApiError on a status >= 400 (a 401 also sends
 *  the user to sign in). PATCH sends a JSON merge patch. */
export declare const api: {
  get<T = unknown>(path: string, opts?: RequestOptions): Promise<T>;
  post<T = unknown>(path: string, body?: unknown, opts?: RequestOptions): Promise<T>;
  put<T = unknown>(path: string, body: unknown, opts?: RequestOptions): Promise<T>;
  patch<T = unknown>(path: string, body: unknown, opts?: RequestOptions): Promise<T>;
  del<T = unknown>(path: string, opts?: RequestOptions): Promise<T>;
};
/** The ApiError of a failed Response. */
export declare function errorFromResponse(res: Response): Promise<ApiError>;
/** Options of apiUpload. */
export interface UploadOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  /** Called as bytes go out: (sent, total). */
  onProgress?: (sent: number, total: number) => void;
  signal?: AbortSignal;
  /** Default POST. */
  method?: string;
  /** Default application/octet-stream. */
  contentType?: string;
}
/** Sends a file (or any Blob) as the raw request body (streamed upload
 *  routes), with the console's credentials, reporting progress; the parsed
 *  JSON answer, or an ApiError for any status >= 400. */
export declare function apiUpload<T = unknown>(path: string, body: Blob, opts?: UploadOptions): Promise<T>;
/** A message for anything thrown. */
export declare function errorMessage(e: unknown): string;
/** /api/v1[/projects/<project>]/<plural>[/<name>[/<sub>]] */
export declare function resourcePath(plural: string, project?: string, name?: string, sub?: string): string;

export interface Loaded<T> {
  data: T | undefined;
  loading: boolean;
  error: Error | null;
  reload(): void;
}
/** GETs `path` (null: nothing yet), again when it changes or on reload(). */
export declare function useApi<T>(path: string | null): Loaded<T>;

export interface WatchOptions {
  labelSelector?: string;
  retryMs?: number;
}
/** A list kept current through the watch stream. */
export declare function useWatchedList<T extends CubeObject = CubeObject>(
  path: string | null,
  opts?: WatchOptions,
): { items: T[]; loading: boolean; error: string | null };
/** Lists `path` and follows its watch stream; returns stop(). */
export declare function watchList<T extends CubeObject = CubeObject>(
  path: string,
  handlers: { onItems(items: T[]): void; onError?(message: string): void },
  opts?: WatchOptions,
): () => void;
/** Follows a …/logs URL (resuming after breaks); returns stop(). */
export declare function followLog(
  path: string,
  handlers: { onText(text: string): void; onEnd?(): void; onError?(message: string): void },
  opts?: { query?: Record<string, string | number>; offset?: number; retryMs?: number },
): () => void;

// ------------------------------------------------------------------- i18n

export type Lang = 'en' | 'zh';
export type TFunction = (key: string, vars?: Record<string, string | number>) => string;
/** A page's strings: flat keys starting with the plugin's name. */
export interface MessageBundle {
  en: Record<string, string>;
  zh?: Record<string, string>;
}
/** Adds strings (a later bundle overrides keys). A missing 中文 string
 *  falls back to English, a missing key shows the key. */
export declare function registerMessages(bundle: MessageBundle): void;
/** The translate function of the current language ({name} placeholders). */
export declare function useT(): TFunction;
export declare function useI18n(): { lang: Lang; t: TFunction };
/** t(key) when registered, else fallback. */
export declare function tOr(t: TFunction, key: string, fallback: string): string;
/** Translates outside React. */
export declare function translate(lang: Lang, key: string, vars?: Record<string, string | number>): string;

// ------------------------------------------------------- user and project

/** The signed-in user (null while signing in). */
export declare function useUser(): UserInfo | null;
/** The current project (from the URL /p/:project/…, else the last chosen)
 *  and the projects the user may choose. */
export declare function useProject(): { project: string | null; projects: { name: string; role?: string }[] };

// ------------------------------------------------------------- navigation

export declare const Link: (props: {
  to: string;
  replace?: boolean;
  children?: ReactNode;
  className?: string;
  style?: Record<string, string | number>;
  title?: string;
}) => ReactNode;
/** Goes to a console path, or back and forth in the history. */
export interface NavigateFunction {
  (to: string, opts?: { replace?: boolean; state?: unknown }): void;
  (delta: number): void;
}
export declare function useNavigate(): NavigateFunction;
/** The :params of the console route the page was opened at. */
export declare function useParams(): Readonly<Record<string, string | undefined>>;
export declare function useSearchParams(): [
  URLSearchParams,
  (next: URLSearchParams | Record<string, string>, opts?: { replace?: boolean }) => void,
];
export declare function useLocation(): { pathname: string; search: string; hash: string };

export interface PageRoute {
  /** Absolute console path pattern, e.g. "/p/:project/pipelines/:name". */
  path: string;
  element: ReactNode;
}
/** Renders the first route that matches the location, else a 404. */
export declare function PageRoutes(props: { routes: PageRoute[] }): ReactElement | null;

// ---------------------------------------------- generic resource components

/** The live list of a kind's objects (printer columns, filters, watch). */
export declare function ResourceTable(props: {
  kind: KindInfo;
  project?: string;
  filter?: (o: CubeObject) => boolean;
  columns?: TableColumnsType<CubeObject>;
  toolbar?: ReactNode;
}): ReactElement;
/** One object live: overview, YAML, events, actions, delete. */
export declare function ObjectDetail(props: {
  kind: KindInfo;
  project?: string;
  name: string;
  listPath: string;
  editPath?: string;
  summary?: (obj: CubeObject) => ReactNode;
  tabs?: (obj: CubeObject) => { key: string; label: string; children: ReactNode }[];
  extraActions?: (obj: CubeObject) => ReactNode;
  hideActions?: string[];
}): ReactElement;
/** The form of a kind's object built from its JSON Schema (with YAML). */
export declare function ResourceEditor(props: {
  kind: KindInfo;
  project?: string;
  initial?: CubeObject;
  onSaved(obj: CubeObject): void;
  onCancel?(): void;
}): ReactElement;
/** Follows an object's log (…/logs URL). */
export declare function LogFollow(props: {
  path: string;
  replicas?: number;
  follow?: boolean;
  query?: Record<string, string | number>;
  height?: number;
}): ReactElement;
/** Events of an …/events URL, newest first. */
export declare function EventsTable(props: { path: string; hideObject?: boolean; pageSize?: number }): ReactElement;
/** A list path's items, live (null: not loaded yet). */
export declare function useLiveList(
  path: string | null,
  labelSelector?: string,
  retryMs?: number,
): { items: CubeObject[] | null; error: string | null; truncated: boolean };
export declare function useKinds(): { kinds?: KindInfo[]; error?: unknown };
export declare function useKind(plural: string | undefined): { kinds?: KindInfo[]; error?: unknown; kind?: KindInfo };
/** A failed call with the server's message (and field), optional retry. */
export declare function ErrorAlert(props: { error: unknown; onRetry?: () => void }): ReactElement | null;
/** A timestamp (RFC 3339 or seconds) in the browser's locale. */
export declare function formatTime(v: number | string | undefined | null): string;
/** The same instant in UTC, "2026-11-25 02:30:00 UTC" ("" when absent). Since 1.1. */
export declare function formatUtc(v: number | string | undefined | null): string;
/** The instant's wall-clock time in an IANA zone, "2026-11-25 10:30 Asia/Shanghai". Since 1.1. */
export declare function formatInZone(v: number | string | undefined | null, zone: string): string;
/** An instant in the viewer's local time with the UTC value (and, given
 *  `zone`, that zone's time) on hover; `relative` shows its age. Since 1.1. */
export declare function Time(props: { value: number | string | undefined | null; zone?: string; relative?: boolean }): ReactElement;
/** A phase or state word as a coloured tag in the viewer's language. Since 1.1. */
export declare function PhaseTag(props: { phase: string | undefined | null }): ReactElement | null;
/** A phase word in the viewer's language ("Running" -> "运行中"). Since 1.1. */
export declare function phaseLabel(t: TFunction, phase: string): string;
/** An ECharts option drawn with the console's echarts (loaded on first
 *  use), redrawn when the option changes; `label` names it for screen
 *  readers (role img). Since 1.2. */
export declare function EChart(props: { option: object; height?: number; label?: string }): ReactElement;
/** The placeholder of a loading page. */
export declare function PageSkeleton(props: { rows?: number }): ReactElement;
/** The console's 404. */
export declare function NotFound(): ReactElement;

// ------------------------------------------------------------------ pages

export interface PageModule {
  mount(element: HTMLElement, context?: unknown): () => void;
}
/**
 * The page module's exports from a React component:
 *     export const { mount } = definePage(MyPage, { messages });
 * The component renders inside the console (its providers, router and
 * theme); lazy parts suspend inside the page.
 */
export declare function definePage(Page: ComponentType, options?: { messages?: MessageBundle }): PageModule;
