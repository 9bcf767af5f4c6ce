// ProjectContext — the current project: the one in the URL (/p/:project/…,
// or the project page /projects/:project being viewed) when there is one,
// else the one last chosen (localStorage), else the user's first. Areas
// read it with useProject(); the header's switcher shows it.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { matchPath, useLocation, useNavigate } from 'react-router-dom';
import { api } from '../api/client';
import type { ObjectList, ProjectRole } from '../api/types';
import { useAuth } from '../auth/AuthContext';

const STORAGE_KEY = 'cube.project';

export interface ProjectChoice {
  name: string;
  role?: ProjectRole;
}

interface ProjectState {
  project: string | null;
  projects: ProjectChoice[];
  /** Switches project; on a /p/<old>/… page goes to the same page of the new one. */
  setProject(name: string): void;
  /** Re-reads the list (after creating or deleting a project). */
  reload(): Promise<void>;
}

const Ctx = createContext<ProjectState | null>(null);

function remembered(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function ProjectProvider({ children }: { children: ReactNode }) {
  const { me, isAdmin, refresh } = useAuth();
  const loc = useLocation();
  const navigate = useNavigate();
  const [all, setAll] = useState<string[]>([]);
  const [chosen, setChosen] = useState<string | null>(remembered);
  const inUrl =
    matchPath({ path: '/p/:project', end: false }, loc.pathname)?.params.project ??
    matchPath({ path: '/projects/:project' }, loc.pathname)?.params.project ??
    null;

  const loadAll = useCallback(async () => {
    if (!isAdmin) return setAll([]);
    try {
      const l = await api.get<ObjectList>('/api/v1/projects');
      setAll(l.items.map((p) => p.metadata.name));
    } catch {
      setAll([]);
    }
  }, [isAdmin]);
  useEffect(() => {
    void loadAll();
  }, [loadAll]);

  const projects = useMemo(() => {
    const mine: ProjectChoice[] = me?.projects ?? [];
    const names = new Set(mine.map((p) => p.name));
    return [...mine, ...all.filter((n) => !names.has(n)).map((name) => ({ name }))].sort((a, b) =>
      a.name.localeCompare(b.name),
    );
  }, [me, all]);

  const fallback = chosen && projects.some((p) => p.name === chosen) ? chosen : projects[0]?.name ?? null;
  const project = inUrl ? decodeURIComponent(inUrl) : fallback;

  useEffect(() => {
    if (inUrl) remember(decodeURIComponent(inUrl));
  }, [inUrl]);

  function remember(name: string) {
    try {
      localStorage.setItem(STORAGE_KEY, name);
    } catch {
      /* storage disabled */
    }
    setChosen(name);
  }

  const setProject = useCallback(
    (name: string) => {
      remember(name);
      if (matchPath({ path: '/projects/:project' }, loc.pathname)) {
        navigate(`/projects/${encodeURIComponent(name)}`);
        return;
      }
      const m = matchPath({ path: '/p/:project/*' }, loc.pathname);
      if (m) {
        // keep the area, drop the object (it belongs to the old project)
        const area = (m.params['*'] ?? '').split('/').slice(0, 2).join('/');
        const keep = area.startsWith('k/') ? area : area.split('/')[0];
        navigate(`/p/${encodeURIComponent(name)}/${keep}`);
      }
    },
    [loc.pathname, navigate],
  );

  const reload = useCallback(async () => {
    await Promise.all([refresh(), loadAll()]);
  }, [refresh, loadAll]);

  const value = useMemo(() => ({ project, projects, setProject, reload }), [project, projects, setProject, reload]);
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function useProject(): ProjectState {
  const s = useContext(Ctx);
  if (!s) throw new Error('useProject outside ProjectProvider');
  return s;
}
