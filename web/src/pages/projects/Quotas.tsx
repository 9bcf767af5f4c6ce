// Quotas — per pool, each resource's guaranteed and max share with the
// project's current use as a bar (use: quantity.ts, from its Jobs).
// Administrators edit them in a form, a row per pool and resource
// (quotaForm.ts; PATCH spec.quotas).
import { Alert, App, AutoComplete, Button, Card, Col, Empty, Form, Input, Modal, Progress, Row, Space, Table, Typography } from 'antd';
import { MinusCircleOutlined, PlusOutlined } from '@ant-design/icons';
import { useState } from 'react';
import { api, errorMessage, resourcePath } from '../../api/client';
import { useApi } from '../../api/hooks';
import { checkQuotaRows, quotaPatch, rowsOfQuotas, type QuotaRow } from './quotaForm';
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

/** Pool and resource names to offer: the server's pools and what its nodes have. */
function useQuotaChoices(quotas: Quotas) {
  const pools = useApi<{ items: { name: string }[] }>('/api/v1/pools');
  const nodes = useApi<{ items: { capacity?: Record<string, number> }[] }>('/api/v1/nodes');
  const poolNames = new Set([...(pools.data?.items ?? []).map((p) => p.name), ...Object.keys(quotas), 'default']);
  const res = new Set(['cpu', 'memory']);
  for (const n of nodes.data?.items ?? []) for (const r of Object.keys(n.capacity ?? {})) res.add(r);
  return { pools: [...poolNames].sort(), resources: [...res] };
}

/** The quotas as a form: one row per pool and resource (guaranteed, max). */
function QuotaEditor({ project, quotas, onClose, onSaved }: { project: string; quotas: Quotas; onClose(): void; onSaved(): void }) {
  const t = useT();
  const { message } = App.useApp();
  const [form] = Form.useForm<{ rows: QuotaRow[] }>();
  const choices = useQuotaChoices(quotas);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function save() {
    const rows: QuotaRow[] = (form.getFieldValue('rows') ?? []).filter(Boolean);
    form.setFields(rows.flatMap((_, i) => (['pool', 'resource', 'guaranteed', 'max'] as const).map((f) => ({ name: ['rows', i, f], errors: [] }))));
    const probs = checkQuotaRows(rows);
    if (probs.length) {
      form.setFields(probs.map((p) => ({ name: ['rows', p.index, p.field], errors: [t(p.key)] })));
      form.scrollToField(['rows', probs[0].index, probs[0].field], { block: 'center' });
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await api.patch(resourcePath('projects', undefined, project), { spec: { quotas: quotaPatch(quotas, rows) } });
      message.success(t('projects.quota.saved'));
      onSaved();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }
  const opts = (xs: string[]) => xs.map((x) => ({ value: x }));
  return (
    <Modal open title={t('projects.quota.edit')} onOk={save} confirmLoading={busy} onCancel={onClose}
      okText={t('common.save')} cancelText={t('common.cancel')} width={760}>
      <Typography.Paragraph type="secondary">{t('projects.quota.formHelp')}</Typography.Paragraph>
      {error && <Alert type="error" showIcon role="alert" message={error} style={{ marginBottom: 12 }} />}
      <Form form={form} layout="vertical" initialValues={{ rows: rowsOfQuotas(quotas) }}>
        <Form.List name="rows">
          {(fields, { add, remove }) => (
            <>
              {fields.map((f) => (
                <Row key={f.key} gutter={8} align="top" wrap>
                  <Col xs={12} sm={5}>
                    <Form.Item name={[f.name, 'pool']} label={f.name === 0 ? t('projects.quota.poolCol') : undefined} style={{ marginBottom: 8 }}>
                      <AutoComplete aria-label={t('projects.quota.poolN', { n: f.name + 1 })} options={opts(choices.pools)} />
                    </Form.Item>
                  </Col>
                  <Col xs={12} sm={6}>
                    <Form.Item name={[f.name, 'resource']} label={f.name === 0 ? t('projects.quota.resource') : undefined} style={{ marginBottom: 8 }}>
                      <AutoComplete aria-label={t('projects.quota.resourceN', { n: f.name + 1 })} options={opts(choices.resources)} />
                    </Form.Item>
                  </Col>
                  <Col xs={10} sm={5}>
                    <Form.Item name={[f.name, 'guaranteed']} label={f.name === 0 ? t('projects.quota.guaranteed') : undefined} style={{ marginBottom: 8 }}>
                      <Input aria-label={t('projects.quota.guaranteedN', { n: f.name + 1 })} placeholder="—" />
                    </Form.Item>
                  </Col>
                  <Col xs={10} sm={5}>
                    <Form.Item name={[f.name, 'max']} label={f.name === 0 ? t('projects.quota.max') : undefined} style={{ marginBottom: 8 }}>
                      <Input aria-label={t('projects.quota.maxN', { n: f.name + 1 })} placeholder="—" />
                    </Form.Item>
                  </Col>
                  <Col xs={4} sm={3} style={{ paddingTop: f.name === 0 ? 30 : 0 }}>
                    <Button type="text" danger aria-label={t('projects.quota.removeN', { n: f.name + 1 })} icon={<MinusCircleOutlined />} onClick={() => remove(f.name)} />
                  </Col>
                </Row>
              ))}
              <Button type="dashed" icon={<PlusOutlined />} onClick={() => add({ pool: 'default', resource: '', guaranteed: '', max: '' })}>
                {t('projects.quota.addRow')}
              </Button>
            </>
          )}
        </Form.List>
      </Form>
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
              scroll={{ x: 'max-content' }}
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
