// NotebookPages — a project's notebooks (/p/:project/notebooks): their IDE,
// phase, owner, resources, last activity and expiry, refreshed every few
// seconds, each name opening its page (NotebookDetail.tsx); the actions its
// phase allows (Open in a new tab through the notebook's open action: the
// server decides where it goes, and the console origin hands the tab over
// to the apps origin, where proxied servers live), Delete; and a form that
// creates one with an IDE the server enables, cpu, memory, devices and an
// idle timeout.

import { useEffect, useState } from 'react';
import { App as AntApp, Button, Form, Input, InputNumber, Modal, Popconfirm, Select, Space, Table, Tag, Typography } from 'antd';
import type { TableColumnsType as ColumnsType } from 'antd';
import { Link, useParams } from '@cube/console-sdk';
import { api, errorMessage, resourcePath } from '@cube/console-sdk';
import { useApi } from '@cube/console-sdk';
import type { CubeObject, ObjectList } from '@cube/console-sdk';
import { useT } from '@cube/console-sdk';
import { ErrorAlert } from '@cube/console-sdk';
import { formatTime } from '@cube/console-sdk';
import { actionsFor, DEFAULT_OPTIONS, enabledIdes, type NotebookAction, type NotebookOptions } from './notebookActions';

const REFRESH_MS = 3000;

type NotebookSpec = {
  ide?: string;
  resources?: Record<string, string | number>;
  idleTimeoutSeconds?: number;
  expiresAfterSeconds?: number;
};
type NotebookStatus = {
  phase?: string;
  reason?: string;
  message?: string;
  url?: string;
  lastActivity?: string;
  expires?: string;
};
export type Notebook = CubeObject<NotebookSpec, NotebookStatus>;

export const PHASE_COLORS: Record<string, string> = {
  Running: 'green', Pending: 'blue', Starting: 'blue', Stopped: 'default', Failed: 'red',
};

export function resourcesText(r?: Record<string, string | number>): string {
  return r && Object.keys(r).length ? Object.entries(r).map(([k, v]) => `${k}=${v}`).join(' ') : '—';
}

/** What this server offers (GET /api/v1/notebook/options). */
export function useNotebookOptions(): NotebookOptions {
  const { data } = useApi<NotebookOptions>('/api/v1/notebook/options');
  return data ?? DEFAULT_OPTIONS;
}

export function notebookPath(project: string, name: string): string {
  return `/p/${encodeURIComponent(project)}/notebooks/${encodeURIComponent(name)}`;
}

/** The actions a notebook's phase allows, and Delete. */
export function NotebookActions({ nb, project, options, onDone, onDeleted }: {
  nb: Notebook; project: string; options: NotebookOptions; onDone: () => void; onDeleted: () => void;
}) {
  const t = useT();
  const { message } = AntApp.useApp();
  const name = nb.metadata.name;
  const allowed = actionsFor(nb.status?.phase, nb.status?.expires, options);
  const act = async (action: NotebookAction) => {
    try {
      await api.post(resourcePath('notebooks', project, name, action));
      message.success(t('notebooks.done', { action: t(`notebooks.${action}`), name }));
      onDone();
    } catch (e) {
      message.error(errorMessage(e));
    }
  };
  const remove = async () => {
    try {
      await api.del(resourcePath('notebooks', project, name));
      message.success(t('notebooks.deleted', { name }));
      onDeleted();
    } catch (e) {
      message.error(errorMessage(e));
    }
  };
  return (
    <Space size="small" wrap>
      {allowed.includes('open') && (
        <Button type="primary" size="small" href={resourcePath('notebooks', project, name, 'open')} target="_blank" rel="noopener">
          {t('notebooks.open')}
        </Button>
      )}
      {allowed.includes('stop') && (
        <Popconfirm title={t('notebooks.confirmStop', { name })} onConfirm={() => act('stop')}>
          <Button size="small">{t('notebooks.stop')}</Button>
        </Popconfirm>
      )}
      {allowed.includes('restart') && (
        <Button size="small" onClick={() => act('restart')}>
          {nb.status?.phase === 'Running' ? t('notebooks.restart') : t('notebooks.start')}
        </Button>
      )}
      {allowed.includes('renew') && <Button size="small" onClick={() => act('renew')}>{t('notebooks.renew')}</Button>}
      <Popconfirm title={t('notebooks.confirmDelete', { name })} okButtonProps={{ danger: true }} okText={t('notebooks.delete')}
        onConfirm={remove}>
        <Button size="small" danger>{t('notebooks.delete')}</Button>
      </Popconfirm>
    </Space>
  );
}

interface FormValues { name: string; ide: string; cpu?: string; memory?: string; device?: string; deviceCount?: number; idleMinutes?: number }

/** The body of POST .../notebooks for the form's values. */
export function notebookBody(v: FormValues) {
  const resources: Record<string, string | number> = {};
  if (v.cpu) resources.cpu = v.cpu;
  if (v.memory) resources.memory = v.memory;
  if (v.device && v.deviceCount) resources[v.device] = v.deviceCount;
  const spec: Record<string, unknown> = { ide: v.ide, resources };
  if (v.idleMinutes !== undefined && v.idleMinutes !== null) spec.idleTimeoutSeconds = Math.round(v.idleMinutes * 60);
  return { metadata: { name: v.name }, spec };
}

function CreateNotebook({ project, open, options, onClose }: {
  project: string; open: boolean; options: NotebookOptions; onClose: (created: boolean) => void;
}) {
  const t = useT();
  const [form] = Form.useForm<FormValues>();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const ides = enabledIdes(options);
  const submit = async () => {
    const v = await form.validateFields();
    setBusy(true);
    setError(null);
    try {
      await api.post(resourcePath('notebooks', project), notebookBody(v));
      form.resetFields();
      onClose(true);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal title={t('notebooks.new')} open={open} onOk={submit} confirmLoading={busy}
      okText={t('common.create')} cancelText={t('common.cancel')} onCancel={() => onClose(false)} destroyOnHidden>
      {error !== null && <ErrorAlert error={error} />}
      <Form form={form} layout="vertical" initialValues={{ ide: ides[0], cpu: '1', memory: '2Gi' }}>
        <Form.Item name="name" label={t('notebooks.form.name')}
          rules={[{ required: true, pattern: /^[a-z0-9]([-a-z0-9]{0,46}[a-z0-9])?$/, message: t('notebooks.form.nameRule') }]}>
          <Input autoFocus />
        </Form.Item>
        <Form.Item name="ide" label={t('notebooks.form.ide')}>
          <Select options={ides.map((i) => ({ value: i, label: t(`notebooks.ide.${i}`) }))} />
        </Form.Item>
        <Space wrap>
          <Form.Item name="cpu" label={t('notebooks.form.cpu')}><Input style={{ width: 100 }} /></Form.Item>
          <Form.Item name="memory" label={t('notebooks.form.memory')}><Input style={{ width: 100 }} /></Form.Item>
        </Space>
        <Space wrap>
          <Form.Item name="device" label={t('notebooks.form.device')}>
            <Input placeholder="nvidia.com/gpu" style={{ width: 180 }} />
          </Form.Item>
          <Form.Item name="deviceCount" label={t('notebooks.form.deviceCount')}>
            <InputNumber min={0} step={0.25} />
          </Form.Item>
        </Space>
        <Form.Item name="idleMinutes" label={t('notebooks.form.idle')}>
          <InputNumber min={0} />
        </Form.Item>
      </Form>
    </Modal>
  );
}

export function NotebookListPage() {
  const t = useT();
  const { project = '' } = useParams();
  const { data, loading, error, reload } = useApi<ObjectList<Notebook>>(resourcePath('notebooks', project));
  const options = useNotebookOptions();
  const [creating, setCreating] = useState(false);
  useEffect(() => {
    const id = setInterval(reload, REFRESH_MS);
    return () => clearInterval(id);
  }, [reload]);
  const columns: ColumnsType<Notebook> = [
    { title: t('common.name'), key: 'name', render: (_, n) => <Link to={notebookPath(project, n.metadata.name)}>{n.metadata.name}</Link> },
    { title: t('notebooks.col.ide'), key: 'ide', render: (_, n) => t(`notebooks.ide.${n.spec?.ide ?? 'jupyter'}`) },
    {
      title: t('notebooks.col.phase'), key: 'phase',
      render: (_, n) => {
        const p = n.status?.phase ?? 'Pending';
        return (
          <Space direction="vertical" size={0}>
            <Tag color={PHASE_COLORS[p] ?? 'default'}>{p}</Tag>
            {n.status?.message && p !== 'Running' && (
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>{n.status.message}</Typography.Text>
            )}
          </Space>
        );
      },
    },
    { title: t('notebooks.col.owner'), key: 'owner', render: (_, n) => n.metadata.owner },
    { title: t('notebooks.col.resources'), key: 'res', render: (_, n) => <code>{resourcesText(n.spec?.resources)}</code> },
    { title: t('notebooks.col.activity'), key: 'act', render: (_, n) => formatTime(n.status?.lastActivity) },
    { title: t('notebooks.col.expires'), key: 'exp', render: (_, n) => formatTime(n.status?.expires) },
    {
      title: t('common.actions'), key: 'actions',
      render: (_, n) => <NotebookActions nb={n} project={project} options={options} onDone={reload} onDeleted={reload} />,
    },
  ];
  return (
    <div>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <Typography.Title level={3} style={{ margin: 0 }}>{t('notebooks.title')}</Typography.Title>
        <Button type="primary" onClick={() => setCreating(true)}>{t('notebooks.new')}</Button>
      </Space>
      {error && <ErrorAlert error={error} onRetry={reload} />}
      <Table<Notebook> rowKey={(n) => n.metadata.name} columns={columns} dataSource={data?.items ?? []}
        loading={loading && !data} pagination={false} scroll={{ x: 'max-content' }} locale={{ emptyText: t('notebooks.empty') }} />
      <CreateNotebook project={project} open={creating} options={options}
        onClose={(created) => { setCreating(false); if (created) reload(); }} />
    </div>
  );
}
