// PasswordDialog — changes one's own password (POST /api/v1/auth/password);
// loaded only when opened, so forms stay out of the shell's bundle.
import { Alert, App, Form, Input, Modal } from 'antd';
import { useState } from 'react';
import { api, ApiError, errorMessage } from '../api/client';
import { passwordPolicyMessage } from './passwordPolicy';
import { useT } from '../i18n';

interface Values {
  current: string;
  password: string;
  repeat: string;
}

export default function PasswordDialog({ onClose }: { onClose(): void }) {
  const t = useT();
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function submit(v: Values) {
    setBusy(true);
    setError(null);
    try {
      await api.post('/api/v1/auth/password', { current: v.current, password: v.password });
      message.success(t('password.changed'));
      onClose();
    } catch (e) {
      setError(e instanceof ApiError && e.status === 422 ? passwordPolicyMessage(t, e.message) : errorMessage(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <Modal open title={t('password.title')} okText={t('common.save')} cancelText={t('common.cancel')}
      confirmLoading={busy} onOk={() => form.submit()} onCancel={onClose}>
      {error && <Alert type="error" showIcon role="alert" message={error} style={{ marginBottom: 12 }} />}
      <Form form={form} layout="vertical" onFinish={submit}>
        <Form.Item name="current" label={t('password.current')} rules={[{ required: true }]}>
          <Input.Password autoComplete="current-password" autoFocus />
        </Form.Item>
        <Form.Item name="password" label={t('password.new')} rules={[{ required: true }]}>
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item
          name="repeat"
          label={t('password.repeat')}
          dependencies={['password']}
          rules={[
            { required: true },
            ({ getFieldValue }) => ({
              validator: (_, v) => (v === getFieldValue('password') ? Promise.resolve() : Promise.reject(new Error(t('password.mismatch')))),
            }),
          ]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
