// notebookActions.ts — which actions a notebook offers in which phase, and
// the IDEs this server enables: what GET /api/v1/notebook/options answers,
// with the same defaults when it cannot be read. "launch" (the launcher's
// own report) is never offered to a person.

export type NotebookAction = 'open' | 'stop' | 'restart' | 'renew';

export interface NotebookOptions {
  ides: { name: string; enabled: boolean }[];
  idleTimeoutSeconds?: number;
  actions: Record<string, string[]>;
}

export const DEFAULT_OPTIONS: NotebookOptions = {
  ides: [{ name: 'jupyter', enabled: true }],
  actions: {
    Pending: ['stop'],
    Starting: ['stop'],
    Running: ['open', 'stop', 'restart', 'renew'],
    Stopped: ['restart'],
    Failed: ['restart'],
  },
};

const KNOWN: NotebookAction[] = ['open', 'stop', 'restart', 'renew'];

/** The actions offered on a notebook in `phase`; renew only when it expires. */
export function actionsFor(phase: string | undefined, expires: string | undefined, opts: NotebookOptions): NotebookAction[] {
  const listed = opts.actions[phase ?? 'Pending'] ?? [];
  return KNOWN.filter((a) => listed.includes(a) && (a !== 'renew' || !!expires));
}

/** The IDEs a new notebook may use (the enabled ones). */
export function enabledIdes(opts: NotebookOptions): string[] {
  const on = opts.ides.filter((i) => i.enabled).map((i) => i.name);
  return on.length ? on : ['jupyter'];
}
