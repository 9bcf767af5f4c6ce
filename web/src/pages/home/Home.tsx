// Home — my projects, my running work (Jobs of my projects in phase
// Running or Pending that I own), quick actions.
import { Button, Card, Col, Empty, List, Row, Skeleton, Space, Table, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { api, resourcePath } from '../../api/client';
import type { CubeObject, ObjectList } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { registerMessages, useI18n, useT } from '../../i18n';
import { usePluginEntries } from '../../shell/pluginPages';
import { useProject } from '../../shell/ProjectContext';
import { ErrorAlert } from '../common/ErrorAlert';
import { formatTime } from '../common/format';
import { kindListPath, kindObjectPath } from '../registry';
import messages from './messages';

registerMessages(messages);

const JOB = { kind: 'Job', plural: 'jobs', scope: 'project' as const };
// Admitted: between Pending and Running (replicas starting)
const ACTIVE = ['Running', 'Admitted', 'Pending'];

interface JobStatus {
  phase?: string;
  started?: string;
  queued?: string;
  waiting?: string;
}
type Job = CubeObject<Record<string, unknown>, JobStatus>;

/** A button for each plugin page of a project kind (e.g. notebooks,
 *  pipelines), in menu order. `project` is URL-encoded. */
function PluginPageLinks({ project, user, lang }: { project: string; user: string; lang: string }) {
  const entries = usePluginEntries(user) ?? [];
  const pages = entries
    .filter((e) => e.kind && e.module_url && e.route?.startsWith('/p/:project/'))
    .sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
  return (
    <>
      {pages.map((e) => (
        <Link key={`${e.plugin}/${e.id}`} to={e.route!.replace(':project', project)}>
          <Button>{lang === 'zh' && e.label_zh ? e.label_zh : e.label}</Button>
        </Link>
      ))}
    </>
  );
}

/** My Running/Pending jobs across `projects` (one list call per project). */
export async function myActiveJobs(projects: string[], user: string): Promise<{ jobs: Job[]; errors: string[] }> {
  const results = await Promise.allSettled(projects.map((p) => api.get<ObjectList<Job>>(resourcePath('jobs', p))));
  const jobs: Job[] = [];
  const errors: string[] = [];
  results.forEach((r, i) => {
    if (r.status === 'rejected') errors.push(`${projects[i]}: ${r.reason?.message ?? r.reason}`);
    else
      for (const j of r.value.items ?? [])
        if (j.metadata.owner === user && ACTIVE.includes(j.status?.phase ?? ''))
          jobs.push({ ...j, metadata: { ...j.metadata, project: j.metadata.project ?? projects[i] } });
  });
  return { jobs, errors };
}

function MyWork({ projects, user }: { projects: string[]; user: string }) {
  const t = useT();
  const [state, setState] = useState<{ jobs: Job[]; errors: string[] } | null>(null);
  useEffect(() => {
    let live = true;
    myActiveJobs(projects, user).then((s) => live && setState(s));
    return () => {
      live = false;
    };
  }, [projects.join(','), user]); // by value: the array is rebuilt every render
  if (!state) return <Skeleton active paragraph={{ rows: 3 }} />;
  return (
    <>
      {state.errors.length > 0 && <ErrorAlert error={state.errors.join('; ')} />}
      <Table<Job>
        size="small"
        rowKey={(j) => `${j.metadata.project}/${j.metadata.name}`}
        dataSource={state.jobs}
        pagination={{ pageSize: 10, hideOnSinglePage: true }}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('home.noWork')} /> }}
        columns={[
          {
            title: t('home.job'), key: 'n',
            render: (_, j) => <Link to={kindObjectPath(JOB, j.metadata.name, j.metadata.project) ?? '#'}>{j.metadata.name}</Link>,
          },
          { title: t('home.project'), key: 'p', render: (_, j) => j.metadata.project },
          {
            title: t('home.phase'), key: 'ph', width: 110,
            render: (_, j) => <Tag color={j.status?.phase === 'Running' ? 'processing' : 'default'}>{j.status?.phase}</Tag>,
          },
          { title: t('home.since'), key: 's', width: 150, render: (_, j) => formatTime(j.status?.started ?? j.status?.queued ?? j.metadata.created) },
          { title: t('home.waiting'), key: 'w', width: 280, ellipsis: true, render: (_, j) => j.status?.waiting },
        ]}
      />
    </>
  );
}

export default function Home() {
  const { t, lang } = useI18n();
  const { me } = useAuth();
  const { project } = useProject();
  const mine = me?.projects ?? [];
  const name = me?.user.displayName || me?.user.name || '';
  const p = project ? encodeURIComponent(project) : null;
  return (
    <div>
      <Typography.Title level={3}>{t('home.welcome', { name })}</Typography.Title>
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={16}>
          <Card title={t('home.myWork')} style={{ minHeight: 240 }}>
            <MyWork projects={mine.map((x) => x.name)} user={me?.user.name ?? ''} />
          </Card>
        </Col>
        <Col xs={24} xl={8}>
          <Card title={t('home.quick')} style={{ minHeight: 240 }}>
            <Space wrap>
              {p && <Link to={`/p/${p}/k/jobs/new`}><Button type="primary">{t('home.newJob')}</Button></Link>}
              {p && <PluginPageLinks project={p} user={me?.user.name ?? ''} lang={lang} />}
              <Link to="/tokens"><Button>{t('home.tokens')}</Button></Link>
            </Space>
          </Card>
        </Col>
        <Col span={24}>
          <Card title={t('home.myProjects')} extra={<Link to="/projects">{t('home.allProjects')}</Link>}>
            {mine.length === 0 ? (
              <Empty description={t('home.noProjects')} />
            ) : (
              <List
                grid={{ gutter: 16, xs: 1, md: 2, xl: 4 }}
                dataSource={mine}
                renderItem={(x) => (
                  <List.Item>
                    <Card size="small" title={<Link to={`/projects/${encodeURIComponent(x.name)}`}>{x.name}</Link>}>
                      <Space direction="vertical" size={4}>
                        <Typography.Text type="secondary">{t('home.role', { role: x.role })}</Typography.Text>
                        <Link to={kindListPath(JOB, x.name) ?? '#'}>{t('kind.Job')}</Link>
                      </Space>
                    </Card>
                  </List.Item>
                )}
              />
            )}
          </Card>
        </Col>
      </Row>
    </div>
  );
}
