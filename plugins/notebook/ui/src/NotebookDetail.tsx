// NotebookDetail — one notebook (/p/:project/notebooks/:name): its IDE,
// phase and why, owner, resources, idle timeout, last activity and expiry,
// refreshed every few seconds; the actions its phase allows and Delete
// (NotebookActions), and its events. Nothing internal is offered: the
// launcher's own "launch" report is not an action a person takes.

import { useEffect } from 'react';
import { Alert, Breadcrumb, Card, Descriptions, Space, Tag, Typography } from 'antd';
import { EventsTable, Link, PageSkeleton, useNavigate, useParams } from '@cube/console-sdk';
import { errorMessage, resourcePath, useApi, useT, formatTime } from '@cube/console-sdk';
import { NotebookActions, PHASE_COLORS, resourcesText, useNotebookOptions, type Notebook } from './NotebookPages';

const REFRESH_MS = 3000;

export function NotebookDetailPage() {
  const t = useT();
  const navigate = useNavigate();
  const { project = '', name = '' } = useParams();
  const { data: nb, error, reload } = useApi<Notebook>(resourcePath('notebooks', project, name));
  const options = useNotebookOptions();
  const list = `/p/${encodeURIComponent(project)}/notebooks`;
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [project, name]);
  useEffect(() => {
    const id = setInterval(reload, REFRESH_MS);
    return () => clearInterval(id);
  }, [reload]);
  const phase = nb?.status?.phase ?? 'Pending';
  const idle = nb?.spec?.idleTimeoutSeconds;
  return (
    <div>
      <Breadcrumb style={{ marginBottom: 8 }} items={[{ title: <Link to={list}>{t('notebooks.title')}</Link> }, { title: name }]} />
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 12 }} wrap>
        <Typography.Title level={3} style={{ margin: 0 }}>{name}</Typography.Title>
        {nb && <NotebookActions nb={nb} project={project} options={options} onDone={reload} onDeleted={() => navigate(list)} />}
      </Space>
      {error && !nb && <Alert type="error" showIcon message={errorMessage(error)} />}
      {!nb && !error && <PageSkeleton />}
      {nb && (
        <>
          {nb.status?.message && phase !== 'Running' && (
            <Alert type={phase === 'Failed' ? 'error' : 'info'} showIcon message={nb.status.message} style={{ marginBottom: 12 }} />
          )}
          <Descriptions bordered size="small" column={{ xs: 1, sm: 2 }} style={{ marginBottom: 16 }}>
            <Descriptions.Item label={t('notebooks.col.phase')}>
              <Tag color={PHASE_COLORS[phase] ?? 'default'}>{phase}</Tag> {nb.status?.reason}
            </Descriptions.Item>
            <Descriptions.Item label={t('notebooks.col.ide')}>{t(`notebooks.ide.${nb.spec?.ide ?? 'jupyter'}`)}</Descriptions.Item>
            <Descriptions.Item label={t('notebooks.col.owner')}>{nb.metadata.owner}</Descriptions.Item>
            <Descriptions.Item label={t('notebooks.col.resources')}><code>{resourcesText(nb.spec?.resources)}</code></Descriptions.Item>
            <Descriptions.Item label={t('notebooks.col.idle')}>
              {idle ? t('notebooks.minutes', { n: Math.round(idle / 60) }) : t('notebooks.never')}
            </Descriptions.Item>
            <Descriptions.Item label={t('notebooks.col.activity')}>{formatTime(nb.status?.lastActivity) || '—'}</Descriptions.Item>
            <Descriptions.Item label={t('notebooks.col.expires')}>{formatTime(nb.status?.expires) || '—'}</Descriptions.Item>
            <Descriptions.Item label={t('notebooks.col.created')}>{formatTime(nb.metadata.created)}</Descriptions.Item>
          </Descriptions>
          <Card size="small" title={t('notebooks.events')}>
            <EventsTable path={resourcePath('notebooks', project, name, 'events')} hideObject />
          </Card>
        </>
      )}
    </div>
  );
}
