// JobPages — the jobs of a project (/p/:project/jobs): a live list with
// phase, owner and label filters; one job (/p/:project/jobs/:name) with its
// status kept live by the watch, why it waits and its queue position, its
// replicas, their logs streaming with follow, stop, and (a tab) the API
// tokens Cube issued for it. Phases are PhaseTags and times Time elements
// (local time, UTC on hover), as in every other page of the console.

import { useCallback, useEffect, useMemo, useState } from 'react';
import { Alert, Button, Card, Descriptions, Input, Popconfirm, Space, Table, Tag, Typography, message } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useNavigate, useParams } from 'react-router-dom';
import { api, errorMessage, resourcePath } from '../../api/client';
import type { CubeObject, KindInfo } from '../../api/types';
import { useT } from '../../i18n';
import { PageSkeleton } from '../../shell/PageSkeleton';
import { ResourceTable } from '../../components/generic/ResourceTable';
import { ObjectDetail } from '../../components/generic/ObjectDetail';
import { FilterSelect } from '../../components/generic/FilterSelect';
import { LogFollow } from '../../components/generic/LogFollow';
import { useKind } from '../../components/generic/resources';
import { PhaseTag } from '../../components/generic/PhaseTag';
import { Time } from '../../components/generic/Time';
import JobTokens from '../tokens/JobTokens';
import { duration, PHASES, resourcesText, TERMINAL, type Job, type ReplicaStatus } from './jobTypes';
import './messages';

const GRACE_SECONDS = 10;

function useJobKind() {
  const { kind, kinds, error } = useKind('jobs');
  return { kind, loading: !kinds && !error, error };
}

function listPath(project: string) {
  return `/p/${encodeURIComponent(project)}/jobs`;
}

export function JobListPage() {
  const t = useT();
  const navigate = useNavigate();
  const { project = '' } = useParams();
  const { kind, loading, error } = useJobKind();
  const [phase, setPhase] = useState<string | undefined>();
  const [owner, setOwner] = useState<string | undefined>();
  const filter = useCallback(
    (o: CubeObject) => {
      const j = o as Job;
      return (!phase || (j.status?.phase ?? 'Pending') === phase) && (!owner || j.metadata.owner === owner);
    },
    [phase, owner],
  );
  const columns: ColumnsType<CubeObject> = useMemo(
    () => [
      {
        title: t('jobs.col.phase'),
        key: 'phase',
        render: (_, o) => <PhaseTag phase={(o as Job).status?.phase ?? 'Pending'} />,
      },
      { title: t('jobs.col.owner'), key: 'owner', render: (_, o) => o.metadata.owner },
      { title: t('jobs.col.replicas'), key: 'replicas', render: (_, o) => (o as Job).spec?.replicas ?? 1 },
      { title: t('jobs.col.resources'), key: 'res', render: (_, o) => <code>{resourcesText((o as Job).spec?.resources)}</code> },
      { title: t('jobs.col.attempts'), key: 'attempts', render: (_, o) => (o as Job).status?.attempts ?? 0 },
      {
        title: t('jobs.col.why'),
        key: 'why',
        render: (_, o) => {
          const s = (o as Job).status ?? {};
          if (s.waiting)
            return (
              <Typography.Text type="warning">
                {s.queuePosition ? `#${s.queuePosition} ` : ''}
                {s.waiting}
              </Typography.Text>
            );
          return s.reason ?? '';
        },
      },
      {
        title: t('jobs.col.duration'),
        key: 'dur',
        render: (_, o) => duration((o as Job).status?.started, (o as Job).status?.finished),
      },
    ],
    [t],
  );

  if (error) return <Alert type="error" showIcon message={errorMessage(error)} />;
  if (loading) return <PageSkeleton />;
  if (!kind) return null;
  return (
    <div>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 8 }}>
        <div>
          <Typography.Title level={3} style={{ margin: 0 }}>
            {t('jobs.title')}
          </Typography.Title>
          <Typography.Text type="secondary">{t('jobs.subtitle')}</Typography.Text>
        </div>
        <Button type="primary" onClick={() => navigate(`/p/${encodeURIComponent(project)}/jobs/new`)}>
          {t('jobs.submit')}
        </Button>
      </Space>
      <ResourceTable
        kind={kind}
        project={project}
        filter={filter}
        columns={columns}
        toolbar={
          <>
            <FilterSelect label={t('jobs.filter.phase')} value={phase} onChange={setPhase} values={PHASES} />
            <Input
              aria-label={t('jobs.filter.owner')}
              placeholder={t('jobs.filter.owner')}
              allowClear
              value={owner ?? ''}
              onChange={(e) => setOwner(e.target.value.trim() || undefined)}
              style={{ width: 160 }}
            />
          </>
        }
      />
    </div>
  );
}

/** Status summary: phase, times, why it waits, replicas. */
export function JobStatusView({ job }: { job: Job }) {
  const t = useT();
  const s = job.status ?? {};
  const replicaCols: ColumnsType<ReplicaStatus> = [
    { title: t('jobs.replica.index'), dataIndex: 'index', key: 'index', width: 80 },
    { title: t('jobs.replica.node'), dataIndex: 'node', key: 'node' },
    {
      title: t('jobs.replica.devices'),
      key: 'devices',
      render: (_, r) =>
        (r.devices ?? []).map((d) => (
          <Tag key={`${d.resource}/${d.id}`}>{`${d.resource}#${d.id}${d.share && d.share < 1 ? ` ×${d.share}` : ''}`}</Tag>
        )),
    },
    { title: t('jobs.replica.phase'), key: 'phase', render: (_, r) => <PhaseTag phase={r.phase} /> },
    { title: t('jobs.replica.exitCode'), dataIndex: 'exitCode', key: 'exit', width: 100 },
    { title: t('jobs.replica.reason'), dataIndex: 'reason', key: 'reason' },
    { title: t('jobs.replica.message'), dataIndex: 'message', key: 'message' },
  ];
  return (
    <div style={{ marginBottom: 16 }}>
      {s.waiting && (
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 12 }}
          message={`${t('jobs.waiting')}${s.queuePosition ? ` — ${t('jobs.queuePosition', { n: s.queuePosition })}` : ''}`}
          description={s.waiting}
        />
      )}
      <Descriptions bordered size="small" column={3} style={{ marginBottom: 12 }}>
        <Descriptions.Item label={t('jobs.phase')}>
          <PhaseTag phase={s.phase ?? 'Pending'} />
        </Descriptions.Item>
        <Descriptions.Item label={t('jobs.reason')}>{s.reason}</Descriptions.Item>
        <Descriptions.Item label={t('jobs.attempts')}>{s.attempts ?? 0}</Descriptions.Item>
        <Descriptions.Item label={t('jobs.message')} span={3}>
          {s.message}
        </Descriptions.Item>
        <Descriptions.Item label={t('jobs.queued')}>
          {s.queued && (
            <>
              <Time value={s.queued} /> (<Time value={s.queued} relative />)
            </>
          )}
        </Descriptions.Item>
        <Descriptions.Item label={t('jobs.started')}>{s.started && <Time value={s.started} />}</Descriptions.Item>
        <Descriptions.Item label={t('jobs.finished')}>
          {s.finished && (
            <>
              <Time value={s.finished} /> ({duration(s.started, s.finished)})
            </>
          )}
        </Descriptions.Item>
        <Descriptions.Item label={t('jobs.command')} span={3}>
          <code>{[...(job.spec?.command ?? []), ...(job.spec?.args ?? [])].join(' ')}</code>
        </Descriptions.Item>
      </Descriptions>
      {(s.replicas?.length ?? 0) > 0 && (
        <Table<ReplicaStatus>
          aria-label={t('jobs.replicas')}
          rowKey="index"
          size="small"
          pagination={false}
          columns={replicaCols}
          dataSource={s.replicas}
          style={{ marginBottom: 12 }}
        />
      )}
    </div>
  );
}

function StopButton({ job, project }: { job: Job; project: string }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  if (TERMINAL.has(job.status?.phase ?? '')) return null;
  const stop = async () => {
    setBusy(true);
    try {
      await api.post(resourcePath('jobs', project, job.metadata.name, 'stop'), { graceSeconds: GRACE_SECONDS });
      message.info(t('jobs.stopping', { name: job.metadata.name }));
    } catch (e) {
      message.error(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Popconfirm
      title={t('jobs.stopConfirm', { name: job.metadata.name, grace: GRACE_SECONDS })}
      okText={t('jobs.stop')}
      okButtonProps={{ danger: true }}
      onConfirm={stop}
    >
      <Button danger disabled={busy} aria-busy={busy}>
        {t('jobs.stop')}
      </Button>
    </Popconfirm>
  );
}

function JobDetail({ kind, project, name }: { kind: KindInfo; project: string; name: string }) {
  const t = useT();
  return (
    <ObjectDetail
      kind={kind}
      project={project}
      name={name}
      listPath={listPath(project)}
      editPath={`/p/${encodeURIComponent(project)}/k/jobs/${encodeURIComponent(name)}/edit`}
      hideActions={['stop']}
      extraActions={(o) => <StopButton job={o as Job} project={project} />}
      tabs={() => [{ key: 'tokens', label: t('tokens.job.title'), children: <JobTokens project={project} job={name} /> }]}
      summary={(o) => (
        <>
          <JobStatusView job={o as Job} />
          <Card size="small" title={t('jobs.logs')} style={{ marginBottom: 16 }}>
            <LogFollow path={resourcePath('jobs', project, name, 'logs')} replicas={(o as Job).spec?.replicas ?? 1} />
          </Card>
        </>
      )}
    />
  );
}

export function JobDetailPage() {
  const { project = '', name = '' } = useParams();
  const { kind, loading, error } = useJobKind();
  // A job opens at its top, wherever the page it came from was scrolled.
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [project, name]);
  if (error) return <Alert type="error" showIcon message={errorMessage(error)} />;
  if (loading || !kind) return <PageSkeleton />;
  return <JobDetail kind={kind} project={project} name={name} />;
}
