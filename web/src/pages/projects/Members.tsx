// Members — a project's members and roles: add (picked from the users,
// searchable by name and display name), change, remove
// (/api/v1/projects/{p}/members; the project's creators and admins only).
// The server lists every user to administrators only (a project's creator
// sees just themself), so a name typed in full is offered as it is; the
// server refuses one that is no user.
import { Alert, App, Button, Form, Popconfirm, Select, Space, Table, Tooltip } from 'antd';
import { useMemo, useState } from 'react';
import { api, errorMessage } from '../../api/client';
import { useApi } from '../../api/hooks';
import type { CubeObject, ObjectList, ProjectRole } from '../../api/types';
import { useT } from '../../i18n';
import { ErrorAlert } from '../common/ErrorAlert';

const ROLES: ProjectRole[] = ['creator', 'ops', 'dev', 'viewer'];
/** A name the server takes for an object (a DNS label: core/base/names.c). */
const USER_NAME_RE = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

interface Member {
  user: string;
  role: ProjectRole;
}

export function Members({ project, canManage, onChanged }: { project: string; canManage: boolean; onChanged?(): void }) {
  const t = useT();
  const { message } = App.useApp();
  const base = `/api/v1/projects/${encodeURIComponent(project)}/members`;
  const list = useApi<{ items: Member[] }>(base);
  const [items, setItems] = useState<Member[] | null>(null);
  const [typed, setTyped] = useState('');
  const [addError, setAddError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [form] = Form.useForm<Member>();
  const shown = items ?? list.data?.items ?? [];
  const roleOptions = ROLES.map((r) => ({ value: r, label: t(`projects.role.${r}`) }));
  const users = useApi<ObjectList<CubeObject<{ displayName?: string; disabled?: boolean }>>>(canManage ? '/api/v1/users' : null);
  const userOptions = useMemo(() => {
    const taken = new Set(shown.map((m) => m.user));
    return (users.data?.items ?? [])
      .filter((u) => !taken.has(u.metadata.name) && !u.spec?.disabled)
      .map((u) => ({
        value: u.metadata.name,
        label: u.spec?.displayName ? `${u.spec.displayName} (${u.metadata.name})` : u.metadata.name,
      }));
  }, [users.data, shown]);
  const typedName = typed.trim();
  const options = USER_NAME_RE.test(typedName) && !userOptions.some((o) => o.value === typedName) &&
    !shown.some((m) => m.user === typedName)
    ? [...userOptions, { value: typedName, label: typedName }]
    : userOptions;

  // every change answers the new member list
  async function run(call: Promise<{ items: Member[] }>, ok: string) {
    try {
      const r = await call;
      setItems(r.items);
      message.success(ok);
      onChanged?.();
      return true;
    } catch (e) {
      message.error(errorMessage(e));
      return false;
    }
  }

  async function add(v: Member) {
    setBusy(true);
    setAddError(null);
    try {
      const r = await api.post<{ items: Member[] }>(base, v);
      setItems(r.items);
      form.resetFields();
      message.success(t('projects.member.added', { user: v.user }));
      onChanged?.();
    } catch (e) {
      setAddError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div>
      <ErrorAlert error={list.error} onRetry={list.reload} />
      {canManage && (
        <>
          {addError && <Alert type="error" showIcon role="alert" message={addError} style={{ marginBottom: 12 }} />}
          <Form form={form} layout="inline" onFinish={add} initialValues={{ role: 'dev' }} style={{ marginBottom: 16 }}>
            <Form.Item name="user" rules={[{ required: true, message: t('projects.member.pickFirst') }]}>
              <Select aria-label={t('projects.member.pick')} placeholder={t('projects.member.pick')} showSearch
                optionFilterProp="label" options={options} onSearch={setTyped} loading={users.loading} style={{ width: 240 }}
                notFoundContent={users.error ? errorMessage(users.error) : undefined} />
            </Form.Item>
            <Form.Item name="role">
              <Select options={roleOptions} style={{ width: 280 }} />
            </Form.Item>
            <Button type="primary" htmlType="submit" loading={busy}>{t('projects.member.add')}</Button>
          </Form>
        </>
      )}
      <Table<Member>
        rowKey="user"
        size="middle"
        loading={list.loading && !list.data && !items}
        dataSource={shown}
        pagination={{ pageSize: 50, hideOnSinglePage: true }}
        columns={[
          { title: t('projects.member.user'), dataIndex: 'user' },
          {
            title: t('projects.member.role'),
            dataIndex: 'role',
            width: 300,
            render: (role: ProjectRole, m) =>
              canManage ? (
                <Select
                  aria-label={`${t('projects.member.role')} ${m.user}`}
                  value={role}
                  options={roleOptions}
                  style={{ width: 280 }}
                  onChange={(r) => run(api.put(`${base}/${encodeURIComponent(m.user)}`, { role: r }),
                    t('projects.member.changed', { user: m.user, role: r }))}
                />
              ) : (
                t(`projects.role.${role}`)
              ),
          },
          {
            title: t('common.actions'),
            key: 'a',
            width: 110,
            render: (_, m) => (
              <Tooltip title={canManage ? undefined : t('projects.notMember')}>
                <Space>
                  <Popconfirm
                    disabled={!canManage}
                    title={t('projects.member.removeConfirm', { user: m.user })}
                    onConfirm={() => run(api.del(`${base}/${encodeURIComponent(m.user)}`),
                      t('projects.member.removed', { user: m.user }))}
                  >
                    <Button danger size="small" disabled={!canManage}>{t('common.remove')}</Button>
                  </Popconfirm>
                </Space>
              </Tooltip>
            ),
          },
        ]}
      />
    </div>
  );
}
