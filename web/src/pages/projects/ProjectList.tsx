// ProjectList — the caller's projects (administrators see all); admins
// create and delete projects here.
import { Alert, App, Button, Form, Input, Modal, Popconfirm, Space, Table, Tag, Typography } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { api, errorMessage, resourcePath } from '../../api/client';
import { useApi } from '../../api/hooks';
import type { CubeObject, ObjectList } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { registerMessages, useT } from '../../i18n';
import { useProject } from '../../shell/ProjectContext';
import { ErrorAlert } from '../common/ErrorAlert';
import { formatTime } from '../common/format';
import messages from './messages';

registerMessages(messages);

export interface ProjectSpec {
  description?: string;
  members?: { user: string; role: string }[];
  quotas?: Record<string, { guaranteed?: Record<string, unknown>; max?: Record<string, unknown> }>;
  pools?: string[];
}
export type Project = CubeObject<ProjectSpec>;

interface NewProject {
  name: string;
  description?: string;
}

function CreateProject({ open, onClose, onCreated }: { open: boolean; onClose(): void; onCreated(name: string): void }) {
  const t = useT();
  const [form] = Form.useForm<NewProject>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function submit(v: NewProject) {
    setBusy(true);
    setError(null);
    try {
      await api.post(resourcePath('projects'), { metadata: { name: v.name }, spec: { description: v.description ?? '' } });
      form.resetFields();
      onCreated(v.name);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <Modal open={open} title={t('projects.new')} okText={t('common.create')} cancelText={t('common.cancel')}
      confirmLoading={busy} onOk={() => form.submit()} onCancel={onClose} destroyOnClose>
      {error && <Alert type="error" showIcon role="alert" message={error} style={{ marginBottom: 12 }} />}
      <Form form={form} layout="vertical" onFinish={submit}>
        <Form.Item name="name" label={t('common.name')}
          rules={[{ required: true, pattern: /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, message: 'a-z, 0-9, -' }]}>
          <Input autoFocus />
        </Form.Item>
        <Form.Item name="description" label={t('projects.description')}>
          <Input.TextArea rows={2} maxLength={1024} />
        </Form.Item>
      </Form>
    </Modal>
  );
}

export default function ProjectList() {
  const t = useT();
  const { message } = App.useApp();
  const { me, isAdmin } = useAuth();
  const { reload: reloadProjects } = useProject();
  const list = useApi<ObjectList<Project>>(resourcePath('projects'));
  const [creating, setCreating] = useState(false);
  const roleOf = (name: string) => me?.projects.find((p) => p.name === name)?.role;

  async function remove(name: string) {
    try {
      await api.del(resourcePath('projects', undefined, name));
      message.success(t('projects.deleted', { name }));
      list.reload();
      void reloadProjects();
    } catch (e) {
      message.error(errorMessage(e));
    }
  }

  return (
    <div>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }}>
        <Typography.Title level={3} style={{ margin: 0 }}>{t('projects.title')}</Typography.Title>
        {isAdmin && (
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>{t('projects.new')}</Button>
        )}
      </Space>
      <ErrorAlert error={list.error} onRetry={list.reload} />
      <Table<Project>
        rowKey={(p) => p.metadata.name}
        loading={list.loading && !list.data}
        dataSource={list.data?.items ?? []}
        locale={{ emptyText: t('projects.empty') }}
        pagination={{ pageSize: 20, hideOnSinglePage: true }}
        scroll={{ x: 'max-content' }}
        columns={[
          {
            title: t('common.name'),
            key: 'name',
            render: (_, p) => <Link to={`/projects/${encodeURIComponent(p.metadata.name)}`}>{p.metadata.name}</Link>,
            sorter: (a, b) => a.metadata.name.localeCompare(b.metadata.name),
          },
          { title: t('projects.description'), key: 'd', width: 240, ellipsis: true, render: (_, p) => p.spec?.description },
          { title: t('projects.myRole'), key: 'role', width: 110, render: (_, p) => roleOf(p.metadata.name) && <Tag>{roleOf(p.metadata.name)}</Tag> },
          { title: t('projects.members'), key: 'm', width: 100, render: (_, p) => p.spec?.members?.length ?? 0 },
          { title: t('projects.created'), key: 'c', width: 160, render: (_, p) => formatTime(p.metadata.created) },
          ...(isAdmin
            ? [{
                title: t('common.actions'),
                key: 'a',
                width: 100,
                render: (_: unknown, p: Project) => (
                  <Popconfirm title={t('projects.deleteConfirm', { name: p.metadata.name })} onConfirm={() => remove(p.metadata.name)}>
                    <Button danger size="small">{t('common.delete')}</Button>
                  </Popconfirm>
                ),
              }]
            : []),
        ]}
      />
      <CreateProject
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(name) => {
          setCreating(false);
          message.success(t('projects.createdMsg', { name }));
          list.reload();
          void reloadProjects();
        }}
      />
    </div>
  );
}
