// menu.ts — the sidebar's entries, built from data so that a plugin's kinds
// and menu entries appear with no console change:
//   fixed entries + every kind of GET /api/v1/kinds grouped by `group`
//   + the plugin entries of GET /api/v1/ui/menu.
// A path appears once (a kind with a dedicated page that is also a fixed
// entry, e.g. User → /users, is not listed twice).
import type { KindInfo, UiMenuEntry } from '../api/types';
import { groupLabel, kindLabel } from '../components/generic/kindNames';
import { type Lang, type TFunction } from '../i18n';
import { kindListPath } from '../pages/registry';

export interface MenuNode {
  key: string;
  label: string;
  path?: string;
  /** An icon name of @ant-design/icons (plugins), or a fixed one. */
  icon?: string;
  /** Project kinds while no project is chosen. */
  disabled?: boolean;
  children?: MenuNode[];
}

export interface MenuInput {
  kinds: KindInfo[];
  entries: UiMenuEntry[];
  project: string | null;
  isAdmin: boolean;
  lang: Lang;
  t: TFunction;
}

interface Fixed {
  group: string | null;
  key: string;
  path: string;
  icon: string;
  admin?: boolean;
}

const FIXED: Fixed[] = [
  { group: null, key: 'menu.home', path: '/', icon: 'HomeOutlined' },
  { group: 'Platform', key: 'menu.projects', path: '/projects', icon: 'ProjectOutlined' },
  { group: 'Platform', key: 'menu.users', path: '/users', icon: 'UserOutlined', admin: true },
  { group: 'Platform', key: 'menu.tokens', path: '/tokens', icon: 'KeyOutlined' },
  { group: 'Platform', key: 'menu.events', path: '/events', icon: 'BellOutlined' },
  { group: 'Infrastructure', key: 'menu.nodes', path: '/nodes', icon: 'ClusterOutlined' },
  { group: 'Infrastructure', key: 'menu.pools', path: '/pools', icon: 'DatabaseOutlined' },
];

/** Work groups first (Training, then alphabetical), the operator's last. */
const FIRST = ['Training'];
const LAST = ['Infrastructure', 'Platform'];

function groupRank(g: string): [number, string] {
  if (FIRST.includes(g)) return [0, String(FIRST.indexOf(g))];
  if (LAST.includes(g)) return [2, String(LAST.indexOf(g))];
  return [1, g.toLowerCase()];
}

/** A route with its :project filled in; null when it needs a project and
 *  none is chosen. */
function withProject(pattern: string, project: string | null): string | null {
  if (!pattern.includes('/:project')) return pattern;
  return project ? pattern.replace('/:project', '/' + encodeURIComponent(project)) : null;
}

export function buildMenu(inp: MenuInput): MenuNode[] {
  const { t } = inp;
  const top: MenuNode[] = [];
  const groups = new Map<string, MenuNode[]>();
  const seen = new Set<string>();
  const add = (group: string | null, node: MenuNode) => {
    if (node.path) {
      if (seen.has(node.path)) return;
      seen.add(node.path);
    }
    if (!group) {
      top.push(node);
      return;
    }
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group)!.push(node);
  };

  for (const f of FIXED)
    if (!f.admin || inp.isAdmin) add(f.group, { key: f.path, label: t(f.key), path: f.path, icon: f.icon });

  // an admin page stays hidden from users even when its kind is readable
  const adminOnly = new Set(FIXED.filter((f) => f.admin).map((f) => f.path));
  for (const k of [...inp.kinds].sort((a, b) => a.kind.localeCompare(b.kind))) {
    const path = kindListPath(k, inp.project);
    if (path && adminOnly.has(path) && !inp.isAdmin) continue;
    const label = kindLabel(k, inp.lang, t);
    const group = k.group || 'Other';
    if (path) add(group, { key: path, label, path });
    else add(group, { key: `kind:${k.kind}`, label, disabled: true });
  }

  const entries = [...inp.entries].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
  for (const e of entries) {
    // a kind's page (cube_ui.h `kind`) opens from the kind's own entry
    if (e.kind && e.route && e.module_url) continue;
    const label = inp.lang === 'zh' && e.label_zh ? e.label_zh : e.label;
    const pattern = (e.module_url && e.route) || e.path || `/x/${e.plugin}/${e.id}`;
    const path = withProject(pattern, inp.project);
    if (path) add(e.group || 'Other', { key: path, label, path, icon: e.icon });
    else add(e.group || 'Other', { key: `ui:${e.plugin}/${e.id}`, label, icon: e.icon, disabled: true });
  }

  const names = [...groups.keys()].sort((a, b) => {
    const [ra, sa] = groupRank(a);
    const [rb, sb] = groupRank(b);
    return ra - rb || sa.localeCompare(sb);
  });
  return [
    ...top,
    ...names.map((g) => ({ key: `group:${g}`, label: groupLabel(g, inp.lang, t, inp.kinds), children: groups.get(g)! })),
  ];
}

/** The menu key whose path is the longest prefix of `pathname`. */
export function selectedKey(nodes: MenuNode[], pathname: string): string | undefined {
  let best: string | undefined;
  let bestLen = -1;
  const visit = (ns: MenuNode[]) => {
    for (const n of ns) {
      if (n.path) {
        const hit = n.path === '/' ? pathname === '/' : pathname === n.path || pathname.startsWith(n.path + '/');
        if (hit && n.path.length > bestLen) {
          best = n.key;
          bestLen = n.path.length;
        }
      }
      if (n.children) visit(n.children);
    }
  };
  visit(nodes);
  return best;
}
