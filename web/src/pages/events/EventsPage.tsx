// EventsPage — /events: the current project's events, or the platform's
// (administrators); /events?project=p&plural=jobs&name=j one object's.
// Filters (type, verb, text) and older pages are EventsTable's.

import { Alert, Segmented, Space, Typography } from 'antd';
import { useSearchParams } from 'react-router-dom';
import { resourcePath } from '../../api/client';
import { useAuth } from '../../auth/AuthContext';
import { useT } from '../../i18n';
import { useProject } from '../../shell/ProjectContext';
import { EventsTable } from '../../components/generic/EventsTable';

export function EventsPage() {
  const t = useT();
  const { isAdmin } = useAuth();
  const { project: current } = useProject();
  const [params, setParams] = useSearchParams();
  const project = params.get('project') ?? current;
  const plural = params.get('plural');
  const name = params.get('name');
  const scope = params.get('scope') === 'platform' && isAdmin ? 'platform' : 'project';

  let path: string | null;
  let title = t('events.title');
  if (plural && name) {
    path = resourcePath(plural, project ?? undefined, name, 'events');
    title = t('events.object', { kind: plural, name });
  } else if (scope === 'platform') path = '/api/v1/events';
  else path = project ? `/api/v1/projects/${encodeURIComponent(project)}/events` : null;

  const setScope = (s: string) => {
    const next = new URLSearchParams();
    if (s === 'platform') next.set('scope', 'platform');
    setParams(next);
  };

  return (
    <div>
      <Typography.Title level={3} style={{ marginTop: 0, marginBottom: 0 }}>
        {title}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{t('events.subtitle')}</Typography.Paragraph>
      {!(plural && name) && isAdmin && (
        <Space style={{ marginBottom: 12 }}>
          <Segmented
            aria-label={t('events.scope')}
            value={scope}
            onChange={(v) => setScope(String(v))}
            options={[
              { value: 'project', label: t('events.scope.project', { project: project ?? '—' }) },
              { value: 'platform', label: t('events.scope.platform') },
            ]}
          />
        </Space>
      )}
      {path ? <EventsTable key={path} path={path} hideObject={!!(plural && name)} /> : <Alert type="info" showIcon message={t('events.noProject')} />}
    </div>
  );
}
