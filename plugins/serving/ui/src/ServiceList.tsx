// ServiceList — the project's inference services, live: phase, URL,
// ready/desired replicas per predictor, stage, public. New opens the form.
import { PlusOutlined } from '@ant-design/icons';
import { Alert, Button, Space, Table, Tag, Typography } from 'antd';
import { Link, PhaseTag, Time, useNavigate, useParams, useT, useWatchedList } from '@cube/console-sdk';
import { servicesPath } from './api';
import type { Service } from './types';

export function Replicas({ svc }: { svc: Service }) {
  const preds = svc.status?.predictors ?? [];
  if (!preds.length) return <>—</>;
  return (
    <Space size={4} wrap>
      {preds.map((p) => (
        <Tag key={p.name} data-predictor={p.name} color={(p.ready ?? 0) >= (p.desired ?? 0) && (p.desired ?? 0) > 0 ? 'green' : undefined}>
          {`${p.name} ${p.ready ?? 0}/${p.desired ?? 0}`}
        </Tag>
      ))}
    </Space>
  );
}

export default function ServiceList() {
  const t = useT();
  const project = useParams().project!;
  const navigate = useNavigate();
  const { items, loading, error } = useWatchedList<Service>(servicesPath(project));

  return (
    <div style={{ padding: 16 }}>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <Typography.Title level={3} style={{ margin: 0 }}>{t('serving.title')}</Typography.Title>
        <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(`/p/${project}/inferenceservices/_new`)}>
          {t('serving.create')}
        </Button>
      </Space>
      {error && <Alert type="warning" message={error} style={{ marginBottom: 8 }} />}
      <Table<Service> rowKey={(s) => s.metadata.name} loading={loading} dataSource={items} size="middle"
        scroll={{ x: 'max-content' }} locale={{ emptyText: t('serving.none') }} pagination={{ pageSize: 20 }}
        columns={[
          { title: t('serving.field.name'), key: 'name', render: (_, s) =>
            <Link to={`/p/${project}/inferenceservices/${encodeURIComponent(s.metadata.name)}`}>{s.metadata.name}</Link> },
          { title: t('serving.field.phase'), key: 'phase', render: (_, s) => <PhaseTag phase={s.status?.phase ?? 'Pending'} /> },
          { title: t('serving.field.replicas'), key: 'replicas', render: (_, s) => <Replicas svc={s} /> },
          { title: t('serving.field.stage'), key: 'stage', render: (_, s) => <Tag>{t(`serving.stage.${s.spec?.stage ?? 'debug'}`)}</Tag> },
          { title: t('serving.field.url'), key: 'url', render: (_, s) => s.status?.url
            ? <Typography.Text code copyable>{s.status.url}</Typography.Text> : '—' },
          { title: t('serving.field.public'), key: 'public', render: (_, s) => (s.spec?.public ? t('serving.yes') : t('serving.no')) },
          { title: t('serving.field.created'), key: 'created', render: (_, s) => <Time value={s.metadata.created} relative /> },
        ]} />
    </div>
  );
}
