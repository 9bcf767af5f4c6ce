// ImportModal — a pipeline from a YAML or JSON document (pasted or read
// from a file), created in the current project under its own or a new name
// by the server's import route.
import { Alert, Input, Modal, Space, Typography } from 'antd';
import { useState } from 'react';
import { errorMessage } from '@cube/console-sdk';
import { useT } from '@cube/console-sdk';
import { importPipelineDoc } from './api';
import { importPipeline, ImportError } from './porting';
import type { Pipeline } from './types';

export function ImportModal({ project, open, onClose, onDone }: { project: string; open: boolean; onClose(): void; onDone(p: Pipeline): void }) {
  const t = useT();
  const [text, setText] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setError(null);
    let p: Pipeline;
    try {
      p = importPipeline(text, name.trim() || undefined);
    } catch (e) {
      setError(e instanceof ImportError ? t('pipelines.import.bad', { message: e.message }) : errorMessage(e));
      return;
    }
    setBusy(true);
    try {
      onDone(await importPipelineDoc(project, { apiVersion: 'cube/v1', ...p }, name.trim() || undefined));
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal open={open} title={t('pipelines.import.title')} onCancel={onClose} onOk={submit} confirmLoading={busy}
      okText={t('pipelines.import.submit')} cancelText={t('common.cancel')} width={640}>
      <Space direction="vertical" style={{ width: '100%' }}>
        <Typography.Text type="secondary">{t('pipelines.import.help')}</Typography.Text>
        <input type="file" accept=".yaml,.yml,.json" aria-label={t('pipelines.import.file')}
          onChange={async (e) => { const f = e.target.files?.[0]; if (f) setText(await f.text()); }} />
        <Input.TextArea value={text} onChange={(e) => setText(e.target.value)} autoSize={{ minRows: 8, maxRows: 20 }}
          style={{ fontFamily: 'monospace' }} aria-label={t('pipelines.import.document')} />
        <Input value={name} onChange={(e) => setName(e.target.value)} placeholder={t('pipelines.import.namePlaceholder')} />
        {error && <Alert type="error" showIcon message={error} />}
      </Space>
    </Modal>
  );
}
