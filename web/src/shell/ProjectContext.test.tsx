import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { AuthProvider } from '../auth/AuthContext';
import { mockFetch } from '../test/fetchMock';
import { ProjectProvider, useProject } from './ProjectContext';

afterEach(() => vi.unstubAllGlobals());

function Probe() {
  const { project, projects, setProject } = useProject();
  const loc = useLocation();
  return (
    <div>
      <span data-testid="project">{project ?? '-'}</span>
      <span data-testid="choices">{projects.map((p) => p.name).join(',')}</span>
      <span data-testid="path">{loc.pathname}</span>
      <button onClick={() => setProject('beta')}>beta</button>
    </div>
  );
}

function renderAt(path: string) {
  mockFetch({
    'GET /api/v1/auth/me': {
      body: { user: { name: 'a', role: 'user' }, role: 'user', via: 'session',
        projects: [{ name: 'alpha', role: 'dev' }, { name: 'beta', role: 'viewer' }] },
    },
  });
  return render(
    <MemoryRouter initialEntries={[path]}>
      <AuthProvider>
        <ProjectProvider>
          <Routes><Route path="*" element={<Probe />} /></Routes>
        </ProjectProvider>
      </AuthProvider>
    </MemoryRouter>,
  );
}

describe('current project', () => {
  it('starts with the remembered project, else the first', async () => {
    localStorage.setItem('cube.project', 'beta');
    renderAt('/');
    expect(await screen.findByText('alpha,beta')).toBeInTheDocument();
    expect(screen.getByTestId('project')).toHaveTextContent('beta');
  });

  it('ignores a remembered project the user no longer has', async () => {
    localStorage.setItem('cube.project', 'gone');
    renderAt('/');
    await screen.findByText('alpha,beta');
    expect(screen.getByTestId('project')).toHaveTextContent('alpha');
  });

  it('takes the project of the URL, remembers it, and switching keeps the area', async () => {
    renderAt('/p/alpha/jobs/train-1');
    await screen.findByText('alpha,beta');
    expect(screen.getByTestId('project')).toHaveTextContent('alpha');
    expect(localStorage.getItem('cube.project')).toBe('alpha');
    act(() => screen.getByText('beta').click());
    expect(screen.getByTestId('path')).toHaveTextContent('/p/beta/jobs');
    expect(screen.getByTestId('project')).toHaveTextContent('beta');
    expect(localStorage.getItem('cube.project')).toBe('beta');
  });

  it('follows the project page being viewed, and switching there opens the other project', async () => {
    localStorage.setItem('cube.project', 'beta');
    renderAt('/projects/alpha');
    await screen.findByText('alpha,beta');
    expect(screen.getByTestId('project')).toHaveTextContent('alpha');
    expect(localStorage.getItem('cube.project')).toBe('alpha');
    act(() => screen.getByRole('button', { name: 'beta' }).click());
    expect(screen.getByTestId('path')).toHaveTextContent('/projects/beta');
    expect(screen.getByTestId('project')).toHaveTextContent('beta');
  });
});
