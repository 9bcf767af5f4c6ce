// UploadFiles — picks local files and uploads them one after another into
// a version (POST …/files?path=, the raw bytes), with a progress bar per
// file; a refused file (413 too large, 422 not of the framework) shows the
// server's reason and the next files still go.
import { UploadOutlined } from '@ant-design/icons';
import { Alert, Button, Progress, Space, Typography } from 'antd';
import { useRef, useState } from 'react';
import { errorMessage, useT } from '@cube/console-sdk';
import { uploadFile } from './api';
import type { Model } from './types';

export interface Sent {
  file: string;
  percent: number;
  error?: string;
}

/** Uploads files into model `name`, reporting each file's progress. */
export async function uploadAll(project: string, name: string, files: File[],
  onChange: (sent: Sent[]) => void): Promise<Model | null> {
  const sent: Sent[] = files.map((f) => ({ file: f.webkitRelativePath || f.name, percent: 0 }));
  let last: Model | null = null;
  onChange([...sent]);
  for (let i = 0; i < files.length; i++) {
    const rel = sent[i].file.includes('/') ? sent[i].file.split('/').slice(1).join('/') : sent[i].file;
    try {
      last = await uploadFile(project, name, files[i], rel, (s, total) => {
        sent[i] = { ...sent[i], percent: total ? Math.floor((100 * s) / total) : 100 };
        onChange([...sent]);
      });
      sent[i] = { ...sent[i], percent: 100 };
    } catch (e) {
      sent[i] = { ...sent[i], error: errorMessage(e) };
    }
    onChange([...sent]);
  }
  return last;
}

export function UploadFiles({ project, model, onDone }: { project: string; model: Model; onDone?: (m: Model | null) => void }) {
  const t = useT();
  const input = useRef<HTMLInputElement>(null);
  const [sent, setSent] = useState<Sent[]>([]);
  const [busy, setBusy] = useState(false);
  const go = async (files: FileList | null) => {
    if (!files?.length) return;
    setBusy(true);
    const m = await uploadAll(project, model.metadata.name, [...files], setSent);
    setBusy(false);
    onDone?.(m);
  };
  return (
    <Space direction="vertical" style={{ width: '100%' }}>
      <input ref={input} type="file" multiple hidden aria-label={t('models.form.pickFiles')}
        onChange={(e) => go(e.target.files)} />
      <Button icon={<UploadOutlined />} loading={busy} onClick={() => input.current?.click()}>{t('models.action.upload')}</Button>
      {sent.map((s) => (
        <div key={s.file}>
          <Typography.Text>{s.file}</Typography.Text>
          {s.error ? <Alert type="error" message={s.error} />
            : <Progress percent={s.percent} size="small" aria-label={t('models.form.uploading', { file: s.file })} />}
        </div>
      ))}
    </Space>
  );
}
