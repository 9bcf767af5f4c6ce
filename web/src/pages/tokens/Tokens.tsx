// Tokens — the caller's own API tokens: create (the secret is shown once,
// with a copy button), list (no secrets), revoke. The short-lived tokens
// Cube issues for the caller's work (a Job's CUBE_TOKEN, a notebook's, a
// pipeline task's) are not the caller's to manage here: the server lists
// them apart (?job=, ?plugin=; JobTokens.tsx shows a Job's).
import { Alert, Button, Form, Input, InputNumber, Modal, Popconfirm, Space, Table, Tag, Typography, App } from 'antd';
import { CopyOutlined, PlusOutlined } from '@ant-design/icons';
import { useState } from 'react';
import { api, errorMessage } from '../../api/client';
import { useApi } from '../../api/hooks';
import { registerMessages, useT } from '../../i18n';
import { ErrorAlert } from '../common/ErrorAlert';
import { Time } from '../../components/generic/Time';
import messages from './messages';

registerMessages(messages);

export interface TokenInfo {
  id: string;
  name: string;
  created: number;
  expires: number;
  /** Set on work tokens only (a Job's uid, project and name; a plugin's
   *  name), which the own-token list never holds. */
  job?: string;
  project?: string;
  jobName?: string;
  plugin?: string;
}

/** The user's own tokens of a listing (a server before the split listed
 *  work tokens too). */
export function ownTokens(items: TokenInfo[] | undefined): TokenInfo[] {
  return (items ?? []).filter((tok) => !tok.job && !tok.plugin);
}

interface NewToken {
  name: string;
  days: number;
}

/** Puts text on the clipboard; false when the browser refuses. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

function CreatedToken({ token, onClose }: { token: string; onClose(): void }) {
  const t = useT();
  const { message } = App.useApp();
  return (
    <Modal open width={680} style={{ maxWidth: 'calc(100vw - 16px)' }} title={t('tokens.created.title')} onCancel={onClose} onOk={onClose} cancelButtonProps={{ style: { display: 'none' } }}>
      <Alert type="warning" showIcon message={t('tokens.created.once')} style={{ marginBottom: 12 }} />
      <Space.Compact style={{ width: '100%' }}>
        <Input readOnly value={token} data-testid="new-token" style={{ fontFamily: 'monospace' }} />
        <Button
          icon={<CopyOutlined />}
          onClick={async () => {
            if (await copyText(token)) message.success(t('common.copied'));
          }}
        >
          {t('common.copy')}
        </Button>
      </Space.Compact>
    </Modal>
  );
}

export default function Tokens() {
  const t = useT();
  const { message } = App.useApp();
  const list = useApi<{ items: TokenInfo[] }>('/api/v1/auth/tokens');
  const [creating, setCreating] = useState(false);
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [form] = Form.useForm<NewToken>();

  async function create(v: NewToken) {
    setBusy(true);
    setFormError(null);
    try {
      const r = await api.post<TokenInfo & { token: string }>('/api/v1/auth/tokens', {
        name: v.name,
        expires_in: Math.round(v.days * 86400),
      });
      setCreating(false);
      form.resetFields();
      setSecret(r.token);
      list.reload();
    } catch (e) {
      setFormError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  async function revoke(tok: TokenInfo) {
    try {
      await api.del(`/api/v1/auth/tokens/${encodeURIComponent(tok.id)}`);
      message.success(t('tokens.revoked'));
      list.reload();
    } catch (e) {
      message.error(errorMessage(e));
    }
  }

  const now = Date.now() / 1000;
  return (
    <div>
      <Space wrap style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }}>
        <div>
          <Typography.Title level={3} style={{ margin: 0 }}>{t('tokens.title')}</Typography.Title>
          <Typography.Text type="secondary">{t('tokens.intro')}</Typography.Text>
        </div>
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>
          {t('tokens.new')}
        </Button>
      </Space>
      <ErrorAlert error={list.error} onRetry={list.reload} />
      <Table<TokenInfo>
        rowKey="id"
        loading={list.loading && !list.data}
        dataSource={ownTokens(list.data?.items)}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: t('tokens.empty') }}
        pagination={false}
        columns={[
          { title: t('tokens.name'), dataIndex: 'name' },
          { title: t('tokens.created'), dataIndex: 'created', render: (v: number) => <Time value={v} /> },
          {
            title: t('tokens.expires'),
            dataIndex: 'expires',
            render: (v: number) => (v <= now ? <Tag color="red">{t('tokens.expired')}</Tag> : <Time value={v} />),
          },
          {
            title: t('common.actions'),
            key: 'actions',
            width: 120,
            render: (_, tok) => (
              <Popconfirm title={t('tokens.revokeConfirm', { name: tok.name })} onConfirm={() => revoke(tok)}>
                <Button danger size="small">{t('tokens.revoke')}</Button>
              </Popconfirm>
            ),
          },
        ]}
      />
      <Modal
        open={creating}
        title={t('tokens.new')}
        okText={t('common.create')}
        cancelText={t('common.cancel')}
        confirmLoading={busy}
        onOk={() => form.submit()}
        onCancel={() => setCreating(false)}
        destroyOnClose
      >
        {formError && <Alert type="error" showIcon role="alert" message={formError} style={{ marginBottom: 12 }} />}
        <Form form={form} layout="vertical" onFinish={create} initialValues={{ days: 30 }}>
          <Form.Item name="name" label={t('tokens.name')} rules={[{ required: true, max: 128 }]}>
            <Input autoFocus />
          </Form.Item>
          <Form.Item name="days" label={t('tokens.expiresIn')} rules={[{ required: true }]}>
            <InputNumber min={1} max={3650} style={{ width: '100%' }} />
          </Form.Item>
        </Form>
      </Modal>
      {secret && <CreatedToken token={secret} onClose={() => setSecret(null)} />}
    </div>
  );
}
