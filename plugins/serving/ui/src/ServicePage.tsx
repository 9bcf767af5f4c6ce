// ServicePage — one inference service, live through the watch: phase,
// URL, stage; its predictors (model, runtime, ready/desired replicas,
// share of traffic as applied); tabs for the traffic split and mirror,
// the charts, "try it", the revision history (Rollback to any earlier
// one) and the events.
import { Alert, Button, Descriptions, Popconfirm, Space, Table, Tabs, Tag, Typography, message } from 'antd';
import { useState } from 'react';
import { errorMessage, EventsTable, PhaseTag, Time, useNavigate, useParams, useT, useWatchedList } from '@cube/console-sdk';
import { deleteService, rollback, servicesPath } from './api';
import { Charts } from './Charts';
import { TrafficPanel } from './TrafficPanel';
import { TryIt } from './TryIt';
import type { Predictor, Revision, Service } from './types';

const modelOf = (p: Predictor) => (typeof p.model === 'string' ? p.model : p.model?.name);

function Revisions({ svc }: { svc: Service }) {
  const t = useT();
  const [busy, setBusy] = useState<number | null>(null);
  const current = svc.status?.revision;
  const back = async (r: Revision) => {
    setBusy(r.revision);
    try {
      await rollback(svc.metadata.project!, svc.metadata.name, r.revision);
      message.success(t('serving.revisions.rolledBack', { revision: r.revision }));
    } catch (e) {
      message.error(errorMessage(e));
    } finally {
      setBusy(null);
    }
  };
  return (
    <Table<Revision> rowKey="revision" size="small" pagination={false} scroll={{ x: 'max-content' }}
      dataSource={[...(svc.status?.revisions ?? [])].reverse()}
      columns={[
        { title: t('serving.revisions.revision'), key: 'r', render: (_, r) => (
          <Space>{`#${r.revision}`}{r.revision === current && <Tag color="blue">{t('serving.revisions.current')}</Tag>}</Space>) },
        { title: t('serving.field.created'), key: 'at', render: (_, r) => <Time value={r.created} /> },
        { title: t('serving.revisions.models'), key: 'm', render: (_, r) =>
          r.spec.predictors.map((p) => `${p.name}: ${modelOf(p) ?? p.runtime ?? ''}`).join(', ') },
        { title: t('serving.traffic.title'), key: 'tr', render: (_, r) =>
          (r.spec.traffic ?? []).map((s) => `${s.predictor} ${s.percent}%`).join(', ') || '—' },
        { title: '', key: 'act', render: (_, r) => r.revision !== current && (
          <Popconfirm title={t('serving.revisions.confirm', { revision: r.revision })} onConfirm={() => back(r)}>
            <Button size="small" loading={busy === r.revision}>{t('serving.revisions.rollback')}</Button>
          </Popconfirm>) },
      ]} />
  );
}

export default function ServicePage() {
  const t = useT();
  const navigate = useNavigate();
  const { project = '', name = '' } = useParams();
  const { items, error } = useWatchedList<Service>(servicesPath(project));
  const svc = items.find((x) => x.metadata.name === name);
  if (!svc) return <div style={{ padding: 16 }}>{error ? <Alert type="warning" message={error} /> : null}</div>;
  const st = svc.status ?? {};
  const applied = (p: string) => st.traffic?.find((s) => s.predictor === p)?.percent;
  const remove = async () => {
    try {
      await deleteService(project, name);
      navigate(`/p/${project}/inferenceservices`);
    } catch (e) {
      message.error(errorMessage(e));
    }
  };

  return (
    <div style={{ padding: 16 }}>
      <Space direction="vertical" style={{ width: '100%' }}>
        <Space style={{ width: '100%', justifyContent: 'space-between' }} wrap>
          <Space wrap>
            <Typography.Title level={3} style={{ margin: 0 }}>{name}</Typography.Title>
            <PhaseTag phase={st.phase ?? 'Pending'} />
            <Tag>{t(`serving.stage.${svc.spec?.stage ?? 'debug'}`)}</Tag>
            {svc.spec?.public && <Tag color="orange">{t('serving.field.public')}</Tag>}
          </Space>
          <Popconfirm title={t('serving.confirmDelete', { name })} onConfirm={remove}>
            <Button danger>{t('serving.delete')}</Button>
          </Popconfirm>
        </Space>
        {st.message && <Alert type={st.phase === 'Failed' ? 'error' : 'info'} message={st.message} />}
        <Descriptions size="small" column={{ xs: 1, md: 3 }} bordered>
          <Descriptions.Item label={t('serving.field.url')}>
            {st.url ? <Typography.Text code copyable>{st.url}</Typography.Text> : '—'}</Descriptions.Item>
          <Descriptions.Item label={t('serving.revisions.revision')}>{st.revision ? `#${st.revision}` : '—'}</Descriptions.Item>
          <Descriptions.Item label={t('serving.field.owner')}>{svc.metadata.owner ?? '—'}</Descriptions.Item>
        </Descriptions>
        <Table<Predictor> rowKey="name" size="small" pagination={false} scroll={{ x: 'max-content' }}
          dataSource={svc.spec?.predictors ?? []}
          columns={[
            { title: t('serving.field.predictor'), key: 'name', render: (_, p) => p.name },
            { title: t('serving.field.model'), key: 'model', render: (_, p) => modelOf(p) ?? '—' },
            { title: t('serving.field.runtime'), key: 'rt', render: (_, p) => p.runtime ?? '—' },
            { title: t('serving.field.replicas'), key: 'rep', render: (_, p) => {
              const s = st.predictors?.find((x) => x.name === p.name);
              return <span data-replicas={p.name}>{`${s?.ready ?? 0}/${s?.desired ?? 0}`}</span>;
            } },
            { title: t('serving.field.range'), key: 'range', render: (_, p) => `${p.replicas?.min ?? 1}–${p.replicas?.max ?? 1}` },
            { title: t('serving.field.applied'), key: 'tr', render: (_, p) => {
              const v = applied(p.name);
              return v === undefined ? '—' : `${v}%`;
            } },
          ]} />
        <Tabs destroyInactiveTabPane items={[
          { key: 'traffic', label: t('serving.tab.traffic'), children: <TrafficPanel svc={svc} /> },
          { key: 'charts', label: t('serving.tab.charts'), children: <Charts svc={svc} /> },
          { key: 'try', label: t('serving.tab.try'), children: <TryIt svc={svc} /> },
          { key: 'revisions', label: t('serving.tab.revisions'), children: <Revisions svc={svc} /> },
          { key: 'events', label: t('serving.tab.events'), children:
            <EventsTable path={servicesPath(project, name, 'events')} hideObject /> },
          { key: 'spec', label: t('serving.tab.spec'), children:
            <pre style={{ background: 'rgba(127,127,127,0.08)', padding: 12, overflow: 'auto' }}>{JSON.stringify(svc.spec, null, 2)}</pre> },
        ]} />
      </Space>
    </div>
  );
}
