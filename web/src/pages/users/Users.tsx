// Users — administrators: list, create (with a local password, checked
// against the server's policy before the user is made), disable or enable
// (PATCH spec.disabled), reset a password.
import { Alert, App, Button, Form, Input, Modal, Popconfirm, Select, Space, Table, Tag, Typography } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { useMemo, useState } from 'react';
import { api, ApiError, errorMessage, resourcePath } from '../../api/client';
import { useApi } from '../../api/hooks';
import type { CubeObject, ObjectList } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { registerMessages, useT, type TFunction } from '../../i18n';
import { passwordPolicyMessage } from '../../shell/passwordPolicy';
import { ErrorAlert } from '../common/ErrorAlert';
import { formatTime } from '../common/format';
import messages from './messages';

registerMessages(messages);

interface UserSpec {
  displayName?: string;
  email?: string;
  role?: 'admin' | 'user';
  disabled?: boolean;
  provider?: string;
}
type User = CubeObject<UserSpec>;

interface NewUser {
  name: string;
  displayName?: string;
  email?: string;
  role: 'admin' | 'user';
  password: string;
}

/** A modal form with the server's error shown above it. */
function FormModal<T extends object>(props: {
  title: string;
  okText: string;
  onClose(): void;
  submit(v: T): Promise<void>;
  initialValues?: Partial<T>;
  children: React.ReactNode;
}) {
  const t = useT();
  const [form] = Form.useForm<T>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function onFinish(v: T) {
    setBusy(true);
    setError(null);
    try {
      await props.submit(v);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <Modal open title={props.title} okText={props.okText} cancelText={t('common.cancel')} confirmLoading={busy}
      onOk={() => form.submit()} onCancel={props.onClose}>
      {error && <Alert type="error" showIcon role="alert" message={error} style={{ marginBottom: 12 }} />}
      <Form form={form} layout="vertical" onFinish={onFinish} initialValues={props.initialValues}>
        {props.children}
      </Form>
    </Modal>
  );
}

/** Asks the server whether a password meets its policy (nothing is stored);
 *  rejects with the policy's message in the viewer's language. */
export async function checkPassword(t: TFunction, password: string | undefined): Promise<void> {
  if (!password) return;
  try {
    await api.post('/api/v1/auth/password/check', { password });
  } catch (e) {
    if (e instanceof ApiError && e.status === 422) {
      throw new Error(passwordPolicyMessage(t, e.message));
    }
    throw e;
  }
}

/** The password field of the create and reset forms, with the policy check. */
function PasswordItem({ autoFocus }: { autoFocus?: boolean }) {
  const t = useT();
  return (
    <Form.Item name="password" label={t('users.password')} extra={t('users.passwordRule')} validateTrigger="onBlur"
      rules={[{ required: true, message: t('users.passwordRequired') }, { validator: (_, v) => checkPassword(t, v) }]}>
      <Input.Password autoFocus={autoFocus} autoComplete="new-password" />
    </Form.Item>
  );
}

export default function Users() {
  const t = useT();
  const { message } = App.useApp();
  const { me } = useAuth();
  const list = useApi<ObjectList<User>>(resourcePath('users'));
  const [creating, setCreating] = useState(false);
  const [resetting, setResetting] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const users = useMemo(() => {
    const f = filter.toLowerCase();
    return (list.data?.items ?? []).filter(
      (u) => !f || u.metadata.name.includes(f) || (u.spec?.displayName ?? '').toLowerCase().includes(f) || (u.spec?.email ?? '').toLowerCase().includes(f),
    );
  }, [list.data, filter]);

  async function setDisabled(name: string, disabled: boolean) {
    try {
      await api.patch(resourcePath('users', undefined, name), { spec: { disabled } });
      message.success(t('users.changed', { name }));
      list.reload();
    } catch (e) {
      message.error(errorMessage(e));
    }
  }

  async function create(v: NewUser) {
    // the form checked the password; check again right before the user is
    // made, so that a refused password never leaves a user without one
    await checkPassword(t, v.password);
    await api.post(resourcePath('users'), {
      metadata: { name: v.name },
      spec: { displayName: v.displayName ?? '', email: v.email ?? '', role: v.role },
    });
    try {
      await api.post(resourcePath('users', undefined, v.name, 'password'), { password: v.password });
    } catch (e) {
      // the user exists now: say so, and let the admin set a password again
      list.reload();
      setCreating(false);
      setResetting(v.name);
      throw e;
    }
    message.success(t('users.created', { name: v.name }));
    setCreating(false);
    list.reload();
  }

  async function resetPassword(v: { password: string }) {
    const name = resetting!;
    await api.post(resourcePath('users', undefined, name, 'password'), { password: v.password });
    message.success(t('users.passwordSet', { name }));
    setResetting(null);
  }

  return (
    <div>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }}>
        <Typography.Title level={3} style={{ margin: 0 }}>{t('users.title')}</Typography.Title>
        <Space>
          <Input.Search allowClear placeholder={t('users.search')} onChange={(e) => setFilter(e.target.value)} style={{ width: 220 }} />
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>{t('users.new')}</Button>
        </Space>
      </Space>
      <ErrorAlert error={list.error} onRetry={list.reload} />
      <Table<User>
        rowKey={(u) => u.metadata.name}
        tableLayout="auto"
        scroll={{ x: 'max-content' }}
        loading={list.loading && !list.data}
        dataSource={users}
        pagination={{ pageSize: 50, hideOnSinglePage: true }}
        columns={[
          { title: t('common.name'), key: 'n', render: (_, u) => u.metadata.name, sorter: (a, b) => a.metadata.name.localeCompare(b.metadata.name) },
          { title: t('users.displayName'), key: 'd', render: (_, u) => u.spec?.displayName },
          { title: t('users.email'), key: 'e', render: (_, u) => u.spec?.email },
          { title: t('users.role'), key: 'r', render: (_, u) => <Tag color={u.spec?.role === 'admin' ? 'gold' : undefined}>{u.spec?.role ?? 'user'}</Tag> },
          { title: t('users.provider'), key: 'p', render: (_, u) => u.spec?.provider ?? 'local' },
          {
            title: t('users.status'), key: 's',
            render: (_, u) => (u.spec?.disabled ? <Tag color="red">{t('users.disabled')}</Tag> : <Tag color="green">{t('users.active')}</Tag>),
          },
          { title: t('users.createdAt'), key: 'c', render: (_, u) => <span title={formatTime(u.metadata.created)}>{formatTime(u.metadata.created).slice(0, 10)}</span> },
          {
            title: t('common.actions'), key: 'a',
            render: (_, u) => (
              <Space size={0} style={{ whiteSpace: 'nowrap' }}>
                {u.metadata.name === me?.user.name ? null : u.spec?.disabled ? (
                  <Button type="link" size="small" onClick={() => setDisabled(u.metadata.name, false)}>{t('users.enable')}</Button>
                ) : (
                  <Popconfirm title={t('users.disableConfirm', { name: u.metadata.name })} onConfirm={() => setDisabled(u.metadata.name, true)}>
                    <Button type="link" size="small" danger>{t('users.disable')}</Button>
                  </Popconfirm>
                )}
                {(u.spec?.provider ?? 'local') === 'local' && (
                  <Button type="link" size="small" onClick={() => setResetting(u.metadata.name)}>{t('users.resetPassword')}</Button>
                )}
              </Space>
            ),
          },
        ]}
      />
      {creating && (
        <FormModal<NewUser> title={t('users.new')} okText={t('common.create')} onClose={() => setCreating(false)} submit={create} initialValues={{ role: 'user' }}>
          <Form.Item name="name" label={t('common.name')} rules={[{ required: true, message: t('users.nameRequired') }]}><Input autoFocus autoComplete="off" /></Form.Item>
          <Form.Item name="displayName" label={t('users.displayName')}><Input /></Form.Item>
          <Form.Item name="email" label={t('users.email')}><Input type="email" /></Form.Item>
          <Form.Item name="role" label={t('users.role')}>
            <Select options={[{ value: 'user', label: 'user' }, { value: 'admin', label: 'admin' }]} />
          </Form.Item>
          <PasswordItem />
        </FormModal>
      )}
      {resetting && (
        <FormModal<{ password: string }> title={t('users.passwordFor', { name: resetting })} okText={t('common.save')} onClose={() => setResetting(null)} submit={resetPassword}>
          <Typography.Paragraph type="secondary">{t('users.passwordHelp')}</Typography.Paragraph>
          <PasswordItem autoFocus />
        </FormModal>
      )}
    </div>
  );
}
