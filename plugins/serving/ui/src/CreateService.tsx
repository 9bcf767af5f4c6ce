// CreateService — zero code: pick a Model family and one of its Ready
// versions; the runtime follows the model's framework (custom models need a
// server of their own, so they are not offered); replicas min/max,
// resources (defaults 1 CPU, 1Gi), stage and the public switch. Field errors
// come from the form's rules and from the server's 422 (its field path is
// mapped back onto the form's field).
import { Alert, Button, Form, Input, InputNumber, Select, Space, Switch, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { ApiError, errorMessage, useNavigate, useParams, useT, useWatchedList } from '@cube/console-sdk';
import { createService, modelsPath } from './api';
import { STAGES, type Model, type ModelSpec, type Runtime, type ServiceSpec, type Stage } from './types';

type Usable = Model & { spec: ModelSpec };

const NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const BUILT_IN: Runtime[] = ['sklearn', 'xgboost', 'pytorch', 'onnx'];

interface Values {
  name?: string;
  family?: string;
  model?: string;
  min: number;
  max: number;
  cpu: string;
  memory: string;
  stage: Stage;
  public: boolean;
}

/** The form field a server error's field path belongs to ("" when none). */
export function formField(path: string | undefined): keyof Values | '' {
  if (!path) return '';
  if (path.startsWith('metadata.name')) return 'name';
  if (/replicas\.min$/.test(path)) return 'min';
  if (/replicas(\.max)?$/.test(path)) return 'max';
  if (/resources\.memory/.test(path)) return 'memory';
  if (/resources/.test(path)) return 'cpu';
  if (/\.(model|runtime)/.test(path)) return 'model';
  if (path === 'spec.stage') return 'stage';
  if (path === 'spec.public') return 'public';
  return '';
}

export default function CreateService() {
  const t = useT();
  const project = useParams().project!;
  const navigate = useNavigate();
  const [form] = Form.useForm<Values>();
  const { items: models } = useWatchedList<Model>(modelsPath(project));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const family = Form.useWatch('family', form);
  const picked = Form.useWatch('model', form);

  const usable = useMemo(() => models.filter((m): m is Usable => !!m.spec && BUILT_IN.includes(m.spec.framework)), [models]);
  const families = [...new Set(usable.map((m) => m.spec.name))].sort();
  const versions = usable.filter((m) => m.spec.name === family)
    .sort((a, b) => (b.spec.version ?? 0) - (a.spec.version ?? 0));
  const model = usable.find((m) => m.metadata.name === picked);

  const submit = async (v: Values) => {
    setError(null);
    if (!model) return form.setFields([{ name: 'model', errors: [t('serving.form.needModel')] }]);
    const name = v.name || (v.family ?? '');
    if (!NAME.test(name)) return form.setFields([{ name: 'name', errors: [t('serving.form.badName')] }]);
    if (v.min > v.max) return form.setFields([{ name: 'min', errors: [t('serving.form.minAboveMax')] }]);
    const spec: ServiceSpec = {
      predictors: [{ name: 'default', model: { name: model.metadata.name }, runtime: model.spec.framework,
        replicas: { min: v.min, max: v.max }, resources: { cpu: v.cpu, memory: v.memory } }],
      traffic: [{ predictor: 'default', percent: 100 }],
      stage: v.stage, public: v.public,
    };
    setBusy(true);
    try {
      const made = await createService(project, name, spec);
      navigate(`/p/${project}/inferenceservices/${encodeURIComponent(made.metadata.name)}`);
    } catch (e) {
      const field = e instanceof ApiError ? formField(e.field) : '';
      if (field) form.setFields([{ name: field, errors: [errorMessage(e)] }]);
      else setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div style={{ padding: 16, maxWidth: 760 }}>
      <Typography.Title level={3}>{t('serving.create')}</Typography.Title>
      {error && <Alert type="error" message={error} style={{ marginBottom: 12 }} />}
      <Form<Values> form={form} layout="vertical" onFinish={submit}
        initialValues={{ min: 1, max: 1, cpu: '1', memory: '1Gi', stage: 'debug', public: false }}>
        <Space size="middle" wrap align="start">
          <Form.Item name="family" label={t('serving.field.family')} rules={[{ required: true, message: t('serving.form.needModel') }]}>
            <Select style={{ width: 220 }} showSearch options={families.map((f) => ({ value: f, label: f }))}
              notFoundContent={t('serving.form.noModels')}
              onChange={(f) => form.setFieldsValue({ model: usable.filter((m) => m.spec.name === f)
                .sort((a, b) => (b.spec.version ?? 0) - (a.spec.version ?? 0))[0]?.metadata.name })} />
          </Form.Item>
          <Form.Item name="model" label={t('serving.field.version')} rules={[{ required: true, message: t('serving.form.needModel') }]}>
            <Select style={{ width: 220 }} options={versions.map((m) => ({ value: m.metadata.name,
              label: `v${m.spec.version ?? '?'}${m.status?.stage && m.status.stage !== 'none' ? ` (${m.status.stage})` : ''}` }))} />
          </Form.Item>
        </Space>
        <Form.Item label={t('serving.field.runtime')} extra={t('serving.form.runtimeHelp')}>
          <Typography.Text code data-testid="runtime">{model?.spec.framework ?? '—'}</Typography.Text>
        </Form.Item>
        <Form.Item name="name" label={t('serving.field.name')} extra={t('serving.form.nameHelp')}
          rules={[{ pattern: NAME, message: t('serving.form.badName') }]}>
          <Input placeholder={family ?? 'iris'} style={{ maxWidth: 320 }} />
        </Form.Item>
        <Space size="middle" wrap align="start">
          <Form.Item name="min" label={t('serving.field.min')} extra={t('serving.form.minHelp')}>
            <InputNumber min={0} max={64} precision={0} />
          </Form.Item>
          <Form.Item name="max" label={t('serving.field.max')}>
            <InputNumber min={1} max={64} precision={0} />
          </Form.Item>
          <Form.Item name="cpu" label={t('serving.field.cpu')} rules={[{ required: true }]}>
            <Input style={{ width: 100 }} />
          </Form.Item>
          <Form.Item name="memory" label={t('serving.field.memory')} rules={[{ required: true }]}>
            <Input style={{ width: 100 }} />
          </Form.Item>
        </Space>
        <Space size="middle" wrap align="start">
          <Form.Item name="stage" label={t('serving.field.stage')}>
            <Select style={{ width: 160 }} options={STAGES.map((s) => ({ value: s, label: t(`serving.stage.${s}`) }))} />
          </Form.Item>
          <Form.Item name="public" label={t('serving.field.public')} valuePropName="checked" extra={t('serving.form.publicHelp')}>
            <Switch />
          </Form.Item>
        </Space>
        {/* its own row: beside the inline Space above it, it floated to the right of stage/public */}
        <Form.Item>
          <Button type="primary" htmlType="submit" loading={busy}>{t('serving.form.submit')}</Button>
        </Form.Item>
      </Form>
    </div>
  );
}
