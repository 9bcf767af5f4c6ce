// ProjectDetail — one project: description, members and roles, quotas per
// pool with their current use.
import { Breadcrumb, Button, Descriptions, Space, Tabs, Tag, Typography } from 'antd';
import { useMemo } from 'react';
import { Link, useParams } from 'react-router-dom';
import { resourcePath } from '../../api/client';
import { useApi } from '../../api/hooks';
import type { ObjectList } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { registerMessages, useT } from '../../i18n';
import { PageSkeleton } from '../../shell/PageSkeleton';
import { useProject } from '../../shell/ProjectContext';
import { ErrorAlert } from '../common/ErrorAlert';
import { formatTime } from '../common/format';
import { kindListPath } from '../registry';
import { Members } from './Members';
import messages from './messages';
import type { Project } from './ProjectList';
import { usageByPool } from './quantity';
import { QuotaPanel } from './Quotas';

registerMessages(messages);

export default function ProjectDetail() {
  const t = useT();
  const { project = '' } = useParams();
  const { me, isAdmin } = useAuth();
  const { reload: reloadProjects } = useProject();
  const obj = useApi<Project>(resourcePath('projects', undefined, project));
  const jobs = useApi<ObjectList>(resourcePath('jobs', project));
  const usage = useMemo(() => usageByPool(jobs.data?.items ?? []), [jobs.data]);
  const myRole = me?.projects.find((p) => p.name === project)?.role;
  const canManage = isAdmin || myRole === 'creator';
  const jobsPath = kindListPath({ kind: 'Job', plural: 'jobs', scope: 'project' }, project);

  if (obj.loading && !obj.data) return <PageSkeleton />;
  const p = obj.data;
  return (
    <div>
      <Breadcrumb style={{ marginBottom: 8 }} items={[{ title: <Link to="/projects">{t('projects.title')}</Link> }, { title: project }]} />
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 12 }}>
        <Typography.Title level={3} style={{ margin: 0 }}>
          {project} {myRole && <Tag style={{ verticalAlign: 'middle' }}>{myRole}</Tag>}
        </Typography.Title>
        {jobsPath && <Link to={jobsPath}><Button>{t('projects.jobs')}</Button></Link>}
      </Space>
      <ErrorAlert error={obj.error} onRetry={obj.reload} />
      {p && (
        <>
          <Descriptions size="small" column={2} style={{ marginBottom: 16 }}>
            <Descriptions.Item label={t('projects.description')}>{p.spec?.description || '—'}</Descriptions.Item>
            <Descriptions.Item label={t('projects.created')}>{formatTime(p.metadata.created)}</Descriptions.Item>
          </Descriptions>
          <Tabs
            items={[
              {
                key: 'members',
                label: t('projects.tab.members'),
                children: <Members project={project} canManage={canManage} onChanged={() => { obj.reload(); void reloadProjects(); }} />,
              },
              {
                key: 'quotas',
                label: t('projects.tab.quotas'),
                children: (
                  <>
                    <ErrorAlert error={jobs.error} onRetry={jobs.reload} />
                    <QuotaPanel project={project} quotas={p.spec?.quotas} usage={usage} isAdmin={isAdmin} onSaved={obj.reload} />
                  </>
                ),
              },
            ]}
          />
        </>
      )}
    </div>
  );
}
