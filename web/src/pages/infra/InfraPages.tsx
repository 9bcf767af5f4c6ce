// InfraPages — /nodes (every node with its capacity and what the scheduler
// allocated on it, every device with its model, memory, utilisation and the
// job holding it), /nodes/:name, /pools and /pools/:name (a pool's nodes,
// totals and queue).

import { Alert, Progress, Space, Table, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { Link, useParams } from 'react-router-dom';
import { useT } from '../../i18n';
import { PageSkeleton } from '../../shell/PageSkeleton';
import { bytes, deviceResources, quantity, type Amounts, type ApiPool, type DeviceRow, type NodeRow, type PoolRow } from './inventory';
import { useInfra, usePool } from './useInfra';

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

type Counted = { capacity: Amounts; allocated: Amounts };

function cpuOf(n: Counted) {
  return <Usage used={n.allocated.cpu ?? 0} total={n.capacity.cpu ?? NaN} />;
}

function memOf(n: Counted) {
  return <Usage used={n.allocated.memory ?? 0} total={n.capacity.memory ?? NaN} fmt={bytes} />;
}

/** Each device resource's allocated / capacity ("—" when there is none). */
function devicesOf(n: Counted) {
  const names = deviceResources({ ...n.capacity, ...n.allocated });
  if (!names.length) return <>—</>;
  return (
    <Space direction="vertical" size={2}>
      {names.map((r) => (
        <div key={r}>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>{r}</Typography.Text>
          <Usage used={n.allocated[r] ?? 0} total={n.capacity[r] ?? NaN} />
        </div>
      ))}
    </Space>
  );
}

export function DeviceTable({ devices, showNode }: { devices: DeviceRow[]; showNode?: boolean }) {
  const t = useT();
  const cols: ColumnsType<DeviceRow> = [
    ...(showNode ? [{ title: t('infra.dev.node'), key: 'node', render: (_: unknown, d: DeviceRow) => d.node }] : []),
    { title: t('infra.dev.resource'), dataIndex: 'resource', key: 'resource' },
    { title: t('infra.dev.id'), dataIndex: 'id', key: 'id', width: 90 },
    { title: t('infra.dev.model'), key: 'model', render: (_, d) => d.model ?? '—' },
    { title: t('infra.dev.memory'), key: 'memory', render: (_, d) => (typeof d.memory === 'number' ? bytes(d.memory) : d.memory ?? '—') },
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
          {d.holders.length === 0 && !d.allocated && <Tag color="green">{t('infra.dev.free')}</Tag>}
          {d.holders.length === 0 && !!d.allocated && <Tag color="blue">{t('infra.dev.allocated', { share: d.allocated })}</Tag>}
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
      scroll={{ x: 'max-content' }}
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
  const { data, error } = useInfra();
  const notice = error ? <Alert type="error" showIcon message={error} style={{ marginBottom: 12 }} /> : null;
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
    { title: t('infra.col.devices'), key: 'dev', render: (_, n) => devicesOf(n) },
    { title: t('infra.col.executor'), key: 'executor', render: (_, n) => n.executor || '—' },
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
            scroll={{ x: 'max-content' }}
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
            <div>
              <Typography.Text strong>{t('infra.col.devices')}</Typography.Text>
              {devicesOf(n)}
            </div>
            <div>
              <Typography.Text strong>{t('infra.col.replicas')}</Typography.Text>
              <div>{n.replicas}</div>
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
    { title: t('infra.col.devices'), key: 'dev', render: (_, p) => devicesOf(p) },
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
        <Table<PoolRow> aria-label={t('infra.pools')} rowKey="name" columns={poolColumns(t)} dataSource={data?.pools ?? []}
          pagination={false} scroll={{ x: 'max-content' }} locale={{ emptyText: t('infra.noPools') }} />
      )}
    </div>
  );
}

type QueueRow = NonNullable<ApiPool['queue']>[number];

/** The pending Jobs of a pool in queue order, and how many of other projects wait. */
function PoolQueue({ pool }: { pool: ApiPool }) {
  const t = useT();
  const cols: ColumnsType<QueueRow> = [
    { title: t('infra.queue.position'), key: 'pos', width: 90, render: (_, q) => (q.position ? `#${q.position}` : '—') },
    {
      title: t('infra.queue.job'),
      key: 'job',
      render: (_, q) => (
        <Link to={`/p/${encodeURIComponent(q.project)}/jobs/${encodeURIComponent(q.name)}`}>{`${q.project}/${q.name}`}</Link>
      ),
    },
    { title: t('infra.queue.reason'), key: 'reason', render: (_, q) => <Typography.Text type="warning">{q.reason || '—'}</Typography.Text> },
  ];
  return (
    <>
      <Table<QueueRow>
        aria-label={t('infra.queue')}
        rowKey={(q) => `${q.project}/${q.name}`}
        size="small"
        columns={cols}
        dataSource={pool.queue ?? []}
        pagination={false}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: t('infra.queue.empty') }}
        style={{ marginBottom: 8 }}
      />
      {!!pool.hiddenPending && (
        <Typography.Paragraph type="secondary">{t('infra.queue.hidden', { n: pool.hiddenPending })}</Typography.Paragraph>
      )}
    </>
  );
}

export function PoolDetailPage() {
  const t = useT();
  const { name = '' } = useParams();
  const { data, error, notice } = useLoaded();
  const pool = usePool(name);
  const p = data?.pools.find((x) => x.name === name);
  const nodes = (data?.nodes ?? []).filter((n) => n.pool === name);
  const nodeCols: ColumnsType<NodeRow> = [
    { title: t('infra.col.name'), key: 'name', render: (_, n) => <Link to={`/nodes/${encodeURIComponent(n.name)}`}>{n.name}</Link> },
    { title: t('infra.col.cpu'), key: 'cpu', render: (_, n) => cpuOf(n) },
    { title: t('infra.col.memory'), key: 'mem', render: (_, n) => memOf(n) },
    { title: t('infra.col.devices'), key: 'dev', render: (_, n) => devicesOf(n) },
    { title: t('infra.col.replicas'), dataIndex: 'replicas', key: 'replicas' },
  ];
  return (
    <div>
      <Header title={name} subtitle={t('infra.poolSubtitle')} />
      {notice}
      {pool.error && !error && <Alert type="error" showIcon message={pool.error} style={{ marginBottom: 12 }} />}
      {!data && !error && <PageSkeleton />}
      {data && !p && <Alert type="warning" showIcon message={t('infra.unknownPool', { name })} />}
      {p && (
        <>
          <Table<PoolRow> rowKey="name" columns={poolColumns(t)} dataSource={[p]} pagination={false}
            scroll={{ x: 'max-content' }} style={{ marginBottom: 24 }} />
          <Typography.Title level={4}>{t('infra.queue')}</Typography.Title>
          {pool.data ? <PoolQueue pool={pool.data} /> : <PageSkeleton />}
          <Typography.Title level={4}>{t('infra.nodes')}</Typography.Title>
          <Table<NodeRow> aria-label={t('infra.nodes')} rowKey="name" size="small" columns={nodeCols} dataSource={nodes}
            pagination={false} scroll={{ x: 'max-content' }} locale={{ emptyText: t('infra.noNodesInPool') }} style={{ marginBottom: 24 }} />
          <Typography.Title level={4}>{t('infra.gpus')}</Typography.Title>
          <DeviceTable devices={nodes.flatMap((n) => n.devices)} showNode />
        </>
      )}
    </div>
  );
}
