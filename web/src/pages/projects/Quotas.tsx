// Quotas — per pool, each resource's guaranteed and max share with the
// project's current use as a bar (use: quantity.ts, from its Jobs).
// Administrators edit the quotas as JSON (PATCH spec.quotas).
import { Alert, App, Button, Card, Empty, Input, Modal, Progress, Space, Table, Typography } from 'antd';
import { useState } from 'react';
import { api, errorMessage, resourcePath } from '../../api/client';
import { useT } from '../../i18n';
import { formatQuantity, parseQuantity } from './quantity';
import type { ProjectSpec } from './ProjectList';

type Quotas = NonNullable<ProjectSpec['quotas']>;

interface Row {
  resource: string;
  used: number;
  guaranteed: number;
  max: number;
}

export function quotaRows(q: Quotas[string], used: Record<string, number>): Row[] {
  const names = new Set([...Object.keys(q.guaranteed ?? {}), ...Object.keys(q.max ?? {})]);
  return [...names].sort().map((r) => ({
    resource: r,
    used: used[r] ?? 0,
    guaranteed: parseQuantity(q.guaranteed?.[r], r),
    max: parseQuantity(q.max?.[r], r),
  }));
}

function UseBar({ row }: { row: Row }) {
  const cap = Number.isFinite(row.max) ? row.max : row.guaranteed;
  if (!Number.isFinite(cap) || cap <= 0) return <span>{formatQuantity(row.used, row.resource)}</span>;
  const pct = Math.min(100, (row.used / cap) * 100);
  const over = Number.isFinite(row.guaranteed) && row.used > row.guaranteed;
  return (
    <Progress
      percent={Math.round(pct)}
      status={pct >= 100 ? 'exception' : 'normal'}
      strokeColor={over ? '#faad14' : undefined}
      format={() => `${formatQuantity(row.used, row.resource)} / ${formatQuantity(cap, row.resource)}`}
      style={{ minWidth: 240 }}
    />
  );
}

function QuotaEditor({ project, quotas, onClose, onSaved }: { project: string; quotas: Quotas; onClose(): void; onSaved(): void }) {
  const t = useT();
  const { message } = App.useApp();
  const [text, setText] = useState(() => JSON.stringify(quotas, null, 2));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function save() {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      setError(t('projects.quota.badJson', { why: errorMessage(e) }));
      return;
    }
    setBusy(true);
    try {
      // merge patch: a pool left out is removed (null), the rest replaced
      const patch: Record<string, unknown> = {};
      for (const k of Object.keys(quotas)) patch[k] = null;
      Object.assign(patch, doc);
      await api.patch(resourcePath('projects', undefined, project), { spec: { quotas: patch } });
      message.success(t('projects.quota.saved'));
      onSaved();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <Modal open title={t('projects.quota.edit')} onOk={save} confirmLoading={busy} onCancel={onClose}
      okText={t('common.save')} cancelText={t('common.cancel')} width={640}>
      <Typography.Paragraph type="secondary">{t('projects.quota.editHelp')}</Typography.Paragraph>
      {error && <Alert type="error" showIcon role="alert" message={error} style={{ marginBottom: 12 }} />}
      <Input.TextArea value={text} onChange={(e) => setText(e.target.value)} rows={12} style={{ fontFamily: 'monospace' }} />
    </Modal>
  );
}

export function QuotaPanel(props: {
  project: string;
  quotas: Quotas | undefined;
  usage: Record<string, Record<string, number>>;
  isAdmin: boolean;
  onSaved(): void;
}) {
  const t = useT();
  const [editing, setEditing] = useState(false);
  const quotas = props.quotas ?? {};
  const pools = Object.keys(quotas).sort();
  return (
    <div>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 12 }}>
        <Typography.Text type="secondary">{t('projects.quota.source')}</Typography.Text>
        {props.isAdmin && <Button onClick={() => setEditing(true)}>{t('projects.quota.edit')}</Button>}
      </Space>
      {pools.length === 0 && <Empty description={t('projects.quota.none')} />}
      <Space direction="vertical" style={{ width: '100%' }}>
        {pools.map((pool) => (
          <Card key={pool} size="small" title={t('projects.quota.pool', { pool })}>
            <Table<Row>
              rowKey="resource"
              size="small"
              pagination={false}
              dataSource={quotaRows(quotas[pool], props.usage[pool] ?? {})}
              columns={[
                { title: t('projects.quota.resource'), dataIndex: 'resource', width: 180 },
                { title: t('projects.quota.used'), key: 'u', render: (_, r) => <UseBar row={r} /> },
                { title: t('projects.quota.guaranteed'), key: 'g', width: 120, render: (_, r) => Number.isFinite(r.guaranteed) ? formatQuantity(r.guaranteed, r.resource) : '—' },
                { title: t('projects.quota.max'), key: 'm', width: 120, render: (_, r) => Number.isFinite(r.max) ? formatQuantity(r.max, r.resource) : '—' },
              ]}
            />
          </Card>
        ))}
      </Space>
      {editing && (
        <QuotaEditor project={props.project} quotas={quotas} onClose={() => setEditing(false)}
          onSaved={() => { setEditing(false); props.onSaved(); }} />
      )}
    </div>
  );
}
