// ExperimentList — the project's experiments, live: phase, trials, best
// value, tuner; stop, resume, delete; new.
import { PlusOutlined } from '@ant-design/icons';
import { Alert, Button, message, Popconfirm, Space, Table, Typography } from 'antd';
import { errorMessage, formatTime, Link, useNavigate, useParams, useT, useWatchedList } from '@cube/console-sdk';
import { deleteExperiment, ended, experimentsPath, resumeExperiment, stopExperiment } from './api';
import { fmt, PhaseTag } from './phase';
import type { Experiment } from './types';

export default function ExperimentList() {
  const t = useT();
  const project = useParams().project!;
  const navigate = useNavigate();
  const { items, loading, error } = useWatchedList<Experiment>(experimentsPath(project));
  const rows = [...items].sort((a, b) => (b.metadata.created ?? '').localeCompare(a.metadata.created ?? ''));
  const act = (p: Promise<unknown>) => p.catch((e) => message.error(errorMessage(e)));

  return (
    <div style={{ padding: 24 }}>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }}>
        <Typography.Title level={3} style={{ margin: 0 }}>{t('hpsearch.title')}</Typography.Title>
        <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(`/p/${project}/experiments/_new`)}>
          {t('hpsearch.new')}
        </Button>
      </Space>
      {error && <Alert type="warning" message={error} style={{ marginBottom: 8 }} />}
      <Table<Experiment> rowKey={(e) => e.metadata.name} loading={loading} dataSource={rows} size="middle"
        locale={{ emptyText: t('hpsearch.none') }} pagination={{ pageSize: 20 }}
        columns={[
          { title: t('common.name'), key: 'name', render: (_, e) => <Link to={`/p/${project}/experiments/${encodeURIComponent(e.metadata.name)}`}>{e.metadata.name}</Link> },
          { title: t('hpsearch.field.phase'), key: 'phase', render: (_, e) => <PhaseTag phase={e.status?.phase} /> },
          { title: t('hpsearch.field.trials'), key: 'trials', render: (_, e) =>
            `${e.status?.trials?.Succeeded ?? 0} / ${e.status?.trials?.total ?? 0} / ${e.spec?.maxTrials ?? 10}` },
          { title: t('hpsearch.field.best'), key: 'best', render: (_, e) => fmt(e.status?.best?.value) },
          { title: t('hpsearch.field.tuner'), key: 'tuner', render: (_, e) => e.spec?.tuner?.name ?? 'tpe' },
          { title: t('hpsearch.field.created'), key: 'created', render: (_, e) => formatTime(e.metadata.created) },
          {
            title: t('common.actions'), key: 'actions', render: (_, e) => (
              <Space size="small" wrap>
                {!ended(e.status?.phase)
                  ? <Button size="small" onClick={() => act(stopExperiment(project, e.metadata.name))}>{t('hpsearch.action.stop')}</Button>
                  : <Button size="small" onClick={() => act(resumeExperiment(project, e.metadata.name))}>{t('hpsearch.action.resume')}</Button>}
                <Popconfirm title={t('common.confirmDelete', { name: e.metadata.name })} okText={t('common.yes')} cancelText={t('common.no')}
                  onConfirm={() => act(deleteExperiment(project, e.metadata.name))}>
                  <Button size="small" danger>{t('common.delete')}</Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]} />
    </div>
  );
}
