// InfraPages — /nodes (capacity and allocation per node, every device with
// its model, memory, utilisation and the job holding it), /nodes/:name,
// /pools and /pools/:name.

import { Alert, Progress, Space, Table, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { Link, useParams } from 'react-router-dom';
import { useT } from '../../i18n';
import { PageSkeleton } from '../../shell/PageSkeleton';
import { bytes, quantity, type DeviceRow, type NodeRow, type PoolRow } from './inventory';
import { useInfra } from './useInfra';

function Usage({ used, total, fmt = (n: number) => String(Math.round(n * 100) / 100) }: { used: number; total: number; fmt?: (n: number) => string }) {
  if (!Number.isFinite(total) || total <= 0) return <>{used ? fmt(used) : '—'}</>;
  const pct = Math.min(100, Math.round((used / total) * 100));
  return (
    <Tooltip title={`${pct}%`}>
      <div style={{ minWidth: 140 }}>
        <Progress percent={pct} size="small" showInfo={false} status={pct >= 90 ? 'exception' : 'normal'} />
        <span style={{ fontSize: 12 }}>{`${fmt(used)} / ${fmt(total)}`}</span>
      </div>
    </Tooltip>
  );
}

function cpuOf(n: { capacity: Record<string, unknown>; allocated: Record<string, number> }) {
  return <Usage used={n.allocated.cpu ?? 0} total={quantity(n.capacity.cpu)} />;
}

function memOf(n: { capacity: Record<string, unknown>; allocated: Record<string, number> }) {
  return <Usage used={n.allocated.memory ?? 0} total={quantity(n.capacity.memory)} fmt={bytes} />;
}

export function DeviceTable({ devices, showNode }: { devices: DeviceRow[]; showNode?: boolean }) {
  const t = useT();
  const cols: ColumnsType<DeviceRow> = [
    ...(showNode ? [{ title: t('infra.dev.node'), key: 'node', render: (_: unknown, d: DeviceRow) => d.node }] : []),
    { title: t('infra.dev.resource'), dataIndex: 'resource', key: 'resource' },
    { title: t('infra.dev.id'), dataIndex: 'id', key: 'id', width: 90 },
    { title: t('infra.dev.model'), key: 'model', render: (_, d) => d.model ?? '—' },
    { title: t('infra.dev.memory'), key: 'memory', render: (_, d) => d.memory ?? '—' },
    {
      title: t('infra.dev.util'),
      key: 'util',
      render: (_, d) =>
        d.utilization === undefined ? '—' : <Progress percent={Math.round(d.utilization * 100)} size="small" style={{ minWidth: 120 }} />,
    },
    {
      title: t('infra.dev.memUsed'),
      key: 'memUsed',
      render: (_, d) => (d.memoryUsed === undefined ? '—' : <Usage used={d.memoryUsed} total={quantity(d.memory)} fmt={bytes} />),
    },
    {
      title: t('infra.dev.heldBy'),
      key: 'held',
      render: (_, d) => (
        <Space wrap size={4}>
          {d.healthy === false && <Tag color="red">{t('infra.dev.unhealthy')}</Tag>}
          {d.holders.length === 0 && <Tag color="green">{t('infra.dev.free')}</Tag>}
          {d.holders.map((h) => (
            <Link key={`${h.project}/${h.job}/${h.replica}`} to={`/p/${encodeURIComponent(h.project)}/jobs/${encodeURIComponent(h.job)}`}>
              <Tag color="blue">{`${h.project}/${h.job}#${h.replica}${h.share < 1 ? ` ×${h.share}` : ''}`}</Tag>
            </Link>
          ))}
        </Space>
      ),
    },
  ];
  return (
    <Table<DeviceRow>
      aria-label={t('infra.gpus')}
      rowKey={(d) => `${d.node}/${d.resource}/${d.id}`}
      size="small"
      columns={cols}
      dataSource={devices}
      pagination={devices.length > 50 ? { pageSize: 50 } : false}
      locale={{ emptyText: t('infra.noDevices') }}
    />
  );
}

function Header({ title, subtitle }: { title: string; subtitle: string }) {
  return (
    <>
      <Typography.Title level={3} style={{ marginTop: 0, marginBottom: 0 }}>
        {title}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{subtitle}</Typography.Paragraph>
    </>
  );
}

function useLoaded() {
  const t = useT();
  const { data, error } = useInfra();
  const notice = (
    <>
      {error && <Alert type="error" showIcon message={error} style={{ marginBottom: 12 }} />}
      {data && !data.nodeKind && <Alert type="info" showIcon message={t('infra.inferred')} style={{ marginBottom: 12 }} />}
    </>
  );
  return { data, error, notice };
}

export function NodesPage() {
  const t = useT();
  const { data, error, notice } = useLoaded();
  const cols: ColumnsType<NodeRow> = [
    { title: t('infra.col.name'), key: 'name', render: (_, n) => <Link to={`/nodes/${encodeURIComponent(n.name)}`}>{n.name}</Link> },
    { title: t('infra.col.pool'), key: 'pool', render: (_, n) => <Link to={`/pools/${encodeURIComponent(n.pool)}`}>{n.pool}</Link> },
    { title: t('infra.col.cpu'), key: 'cpu', render: (_, n) => cpuOf(n) },
    { title: t('infra.col.memory'), key: 'mem', render: (_, n) => memOf(n) },
    {
      title: t('infra.col.devices'),
      key: 'dev',
      render: (_, n) => <Usage used={n.devices.filter((d) => d.holders.length).length} total={n.devices.length} />,
    },
    { title: t('infra.col.replicas'), dataIndex: 'replicas', key: 'replicas' },
    {
      title: t('infra.col.labels'),
      key: 'labels',
      render: (_, n) => Object.entries(n.labels).map(([k, v]) => <Tag key={k}>{`${k}=${v}`}</Tag>),
    },
  ];
  return (
    <div>
      <Header title={t('infra.nodes')} subtitle={t('infra.nodesSubtitle')} />
      {notice}
      {!data && !error ? (
        <PageSkeleton />
      ) : (
        <>
          <Table<NodeRow>
            aria-label={t('infra.nodes')}
            rowKey="name"
            size="middle"
            columns={cols}
            dataSource={data?.nodes ?? []}
            pagination={false}
            locale={{ emptyText: t('infra.noNodes') }}
            style={{ marginBottom: 24 }}
          />
          <Typography.Title level={4}>{t('infra.gpus')}</Typography.Title>
          <DeviceTable devices={(data?.nodes ?? []).flatMap((n) => n.devices)} showNode />
          {data && (
            <Typography.Text type="secondary">{t('infra.jobsOf', { n: data.projectsShown })}</Typography.Text>
          )}
        </>
      )}
    </div>
  );
}

export function NodeDetailPage() {
  const t = useT();
  const { name = '' } = useParams();
  const { data, error, notice } = useLoaded();
  const n = data?.nodes.find((x) => x.name === name);
  return (
    <div>
      <Header title={name} subtitle={n ? `${t('infra.col.pool')}: ${n.pool}` : ''} />
      {notice}
      {!data && !error && <PageSkeleton />}
      {data && !n && <Alert type="warning" showIcon message={t('infra.unknownNode', { name })} />}
      {n && (
        <>
          <Space size="large" style={{ marginBottom: 16 }} wrap>
            <div>
              <Typography.Text strong>{t('infra.col.cpu')}</Typography.Text>
              {cpuOf(n)}
            </div>
            <div>
              <Typography.Text strong>{t('infra.col.memory')}</Typography.Text>
              {memOf(n)}
            </div>
          </Space>
          <DeviceTable devices={n.devices} />
        </>
      )}
    </div>
  );
}

function poolColumns(t: ReturnType<typeof useT>): ColumnsType<PoolRow> {
  return [
    { title: t('infra.col.name'), key: 'name', render: (_, p) => <Link to={`/pools/${encodeURIComponent(p.name)}`}>{p.name}</Link> },
    { title: t('infra.col.nodes'), dataIndex: 'nodes', key: 'nodes' },
    { title: t('infra.col.cpu'), key: 'cpu', render: (_, p) => cpuOf(p) },
    { title: t('infra.col.memory'), key: 'mem', render: (_, p) => memOf(p) },
    { title: t('infra.col.devices'), key: 'dev', render: (_, p) => <Usage used={p.devicesHeld} total={p.devices} /> },
    { title: t('infra.col.running'), dataIndex: 'running', key: 'running' },
    { title: t('infra.col.pending'), dataIndex: 'pending', key: 'pending' },
  ];
}

export function PoolsPage() {
  const t = useT();
  const { data, error, notice } = useLoaded();
  return (
    <div>
      <Header title={t('infra.pools')} subtitle={t('infra.poolsSubtitle')} />
      {notice}
      {!data && !error ? (
        <PageSkeleton />
      ) : (
        <Table<PoolRow> aria-label={t('infra.pools')} rowKey="name" columns={poolColumns(t)} dataSource={data?.pools ?? []} pagination={false} />
      )}
    </div>
  );
}

export function PoolDetailPage() {
  const t = useT();
  const { name = '' } = useParams();
  const { data, error, notice } = useLoaded();
  const p = data?.pools.find((x) => x.name === name);
  const nodes = (data?.nodes ?? []).filter((n) => n.pool === name);
  return (
    <div>
      <Header title={name} subtitle={t('infra.poolsSubtitle')} />
      {notice}
      {!data && !error && <PageSkeleton />}
      {data && !p && <Alert type="warning" showIcon message={t('infra.unknownPool', { name })} />}
      {p && (
        <>
          <Table<PoolRow> rowKey="name" columns={poolColumns(t)} dataSource={[p]} pagination={false} style={{ marginBottom: 24 }} />
          <Typography.Title level={4}>{t('infra.gpus')}</Typography.Title>
          <DeviceTable devices={nodes.flatMap((n) => n.devices)} showNode />
        </>
      )}
    </div>
  );
}
