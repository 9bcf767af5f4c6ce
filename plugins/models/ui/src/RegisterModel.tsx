// RegisterModel — the form that registers a version: the family (named
// from the first file when empty), framework (and PyTorch's format and
// class), description, metrics and parameters as JSON, and the files:
// uploaded from this computer with progress, or a path in the project's
// files. The object is "<family>-v<n>", n the family's next version (the
// next free one when two register at once).
import { Alert, Button, Form, Input, InputNumber, message, Progress, Radio, Select, Space, Typography } from 'antd';
import { useState } from 'react';
import { ApiError, errorMessage, useNavigate, useParams, useT, useWatchedList } from '@cube/console-sdk';
import { createModel, modelsPath } from './api';
import { familyOf } from './families';
import { FRAMEWORKS, type Model, type ModelSpec } from './types';
import { uploadAll, type Sent } from './UploadFiles';


const FAMILY = /^[a-z0-9]([a-z0-9-]{0,52}[a-z0-9])?$/;

function jsonObject(text: string | undefined): Record<string, unknown> | undefined | null {
  if (!text?.trim()) return undefined;
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

interface Values {
  name?: string;
  version?: number;
  framework: ModelSpec['framework'];
  torchFormat?: 'torchscript' | 'state_dict';
  torchClass?: string;
  describe?: string;
  metrics?: string;
  params?: string;
  from: 'upload' | 'path';
  path?: string;
}

export default function RegisterModel() {
  const t = useT();
  const project = useParams().project!;
  const navigate = useNavigate();
  const [form] = Form.useForm<Values>();
  const { items } = useWatchedList<Model>(modelsPath(project));
  const [files, setFiles] = useState<File[]>([]);
  const [sent, setSent] = useState<Sent[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const from = Form.useWatch('from', form) ?? 'upload';
  const framework = Form.useWatch('framework', form) ?? 'sklearn';

  const submit = async (v: Values) => {
    setError(null);
    const family = v.name || (files[0] ? familyOf(files[0].name) : '');
    const metrics = jsonObject(v.metrics);
    const params = jsonObject(v.params);
    if (!FAMILY.test(family)) return form.setFields([{ name: 'name', errors: [t('models.form.badName')] }]);
    if (metrics === null) return form.setFields([{ name: 'metrics', errors: [t('models.form.badJson')] }]);
    if (params === null) return form.setFields([{ name: 'params', errors: [t('models.form.badJson')] }]);
    if (v.from === 'upload' && !files.length) return setError(t('models.form.needFiles'));
    const spec: ModelSpec = { name: family, framework: v.framework };
    if (v.framework === 'pytorch')
      spec.pytorch = { format: v.torchFormat ?? 'torchscript', ...(v.torchClass ? { class: v.torchClass } : {}) };
    if (v.describe) spec.describe = v.describe;
    if (metrics) spec.metrics = metrics as ModelSpec['metrics'];
    if (params) spec.params = params;
    if (v.from === 'path') spec.path = v.path;
    const taken = items.filter((m) => m.spec?.name === family).map((m) => m.spec?.version ?? 0);
    let n = v.version || Math.max(0, ...taken) + 1;
    setBusy(true);
    try {
      let made: Model | null = null;
      for (let tries = 0; !made && tries < 20; tries++) {
        try {
          made = await createModel(project, `${family}-v${n}`, { ...spec, version: n });
        } catch (e) {
          if (!(e instanceof ApiError && e.status === 409) || v.version) throw e;
          n++;
        }
      }
      if (!made) throw new Error(`no free version of ${family}`);
      if (v.from === 'upload') await uploadAll(project, made.metadata.name, files, setSent);
      message.success(t('models.form.done', { name: made.metadata.name }));
      navigate(`/p/${project}/models/${encodeURIComponent(made.metadata.name)}`);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div style={{ padding: 24, maxWidth: 760 }}>
      <Typography.Title level={3}>{t('models.register')}</Typography.Title>
      {error && <Alert type="error" message={error} style={{ marginBottom: 12 }} />}
      <Form<Values> form={form} layout="vertical" onFinish={submit}
        initialValues={{ framework: 'sklearn', from: 'upload', torchFormat: 'torchscript' }}>
        <Form.Item name="name" label={t('models.family')} rules={[{ pattern: FAMILY, message: t('models.form.badName') }]}>
          <Input placeholder={files[0] ? familyOf(files[0].name) : 'iris'} />
        </Form.Item>
        <Space size="large" wrap>
          <Form.Item name="framework" label={t('models.field.framework')} extra={t('models.form.frameworkHelp')}>
            <Select style={{ width: 200 }} options={FRAMEWORKS.map((f) => ({ value: f, label: f }))} />
          </Form.Item>
          <Form.Item name="version" label={t('models.field.version')} extra={t('models.form.versionHelp')}>
            <InputNumber min={1} precision={0} />
          </Form.Item>
        </Space>
        {framework === 'pytorch' && (
          <Space size="large" wrap>
            <Form.Item name="torchFormat" label={t('models.field.pytorchFormat')}>
              <Select style={{ width: 200 }} options={[{ value: 'torchscript', label: 'TorchScript' }, { value: 'state_dict', label: 'state dict' }]} />
            </Form.Item>
            <Form.Item name="torchClass" label={t('models.field.pytorchClass')}>
              <Input placeholder="net:Net" style={{ width: 240 }} />
            </Form.Item>
          </Space>
        )}
        <Form.Item name="describe" label={t('models.field.describe')}>
          <Input.TextArea rows={2} maxLength={1000} />
        </Form.Item>
        <Form.Item name="metrics" label={t('models.field.metrics')} extra={t('models.form.metricsHelp')}>
          <Input.TextArea rows={2} placeholder='{"accuracy": 0.97}' />
        </Form.Item>
        <Form.Item name="params" label={t('models.field.params')}>
          <Input.TextArea rows={2} placeholder='{"C": 1.0}' />
        </Form.Item>
        <Form.Item name="from" label={t('models.form.source')}>
          <Radio.Group options={[{ value: 'upload', label: t('models.form.fromUpload') }, { value: 'path', label: t('models.form.fromPath') }]} />
        </Form.Item>
        {from === 'path' ? (
          <Form.Item name="path" label={t('models.field.path')} extra={t('models.form.pathHelp')} rules={[{ required: true }]}>
            <Input placeholder="pipeline-runs/daily-1/work/models/sklearn-lr.joblib" />
          </Form.Item>
        ) : (
          <Form.Item label={t('models.form.pickFiles')}>
            <input type="file" multiple aria-label={t('models.form.pickFiles')} onChange={(e) => setFiles([...(e.target.files ?? [])])} />
            {sent.map((s) => (
              <div key={s.file}>
                <Typography.Text>{s.file}</Typography.Text>
                {s.error ? <Alert type="error" message={s.error} />
                  : <Progress percent={s.percent} size="small" aria-label={t('models.form.uploading', { file: s.file })} />}
              </div>
            ))}
          </Form.Item>
        )}
        <Button type="primary" htmlType="submit" loading={busy}>{t('models.form.submit')}</Button>
      </Form>
    </div>
  );
}
