// types.ts — shapes of cubed's answers the console relies on (README.md).

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

/** Any object of the generic resource API. */
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

export interface PrinterColumn {
  name: string;
  jsonPath: string;
  type?: string;
  description?: string;
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
  printerColumns?: PrinterColumn[];
  actions?: { name: string; method: string; summary?: string }[];
  /** What people read (ABI 1.5 cube_kind_desc display members; the server
   *  derives the English ones and falls back to them for zh). */
  displayName?: string;
  displayPlural?: string;
  displayNameZh?: string;
  displayPluralZh?: string;
  /** The group in Chinese, when the kind's plugin gave one. */
  groupZh?: string;
}

/** One entry of GET /api/v1/ui/menu (ABI 1.4 plugin entries). */
export interface UiMenuEntry {
  plugin: string;
  id: string;
  group: string;
  label: string;
  label_zh?: string;
  icon?: string;
  path?: string;
  module_url?: string;
  order?: number;
  /** Since ABI 1.5: the console path pattern the page owns (with all
   *  below it), e.g. "/p/:project/pipelines"; absent: /x/<plugin>/<id>. */
  route?: string;
  /** Since ABI 1.5: the kind whose list and objects the page shows. */
  kind?: string;
}

export interface UserInfo {
  name: string;
  displayName?: string;
  email?: string;
  role: 'admin' | 'user';
  provider?: string;
  disabled?: boolean;
}

export type ProjectRole = 'creator' | 'ops' | 'dev' | 'viewer';

/** GET /api/v1/auth/me */
export interface Me {
  user: UserInfo;
  role: 'admin' | 'user';
  projects: { name: string; role: ProjectRole }[];
  via: 'token' | 'session' | 'header' | 'admin-token';
  csrf?: string;
}

export interface AuthProvider {
  name: string;
  displayName: string;
  kind: 'password' | 'redirect' | string;
  loginPath?: string;
}
