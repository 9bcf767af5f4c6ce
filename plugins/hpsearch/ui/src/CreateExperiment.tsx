// CreateExperiment — the form of a new experiment: name, search space (rows
// or JSON), objective, tuner and assessor with their arguments, the trial
// (command, args with {{ params.x }}, resources, env) and the limits. The
// server's 422 names the field at fault; it is shown as it came.
import { Alert, Button, Card, Form, Input, InputNumber, Select, Space, Typography } from 'antd';
import { useState } from 'react';
import { errorMessage, useNavigate, useParams, useT, ApiError } from '@cube/console-sdk';
import { ArgsFields } from './ArgsFields';
import { createExperiment } from './api';
import { initialSpace, SpaceEditor, spaceOf, type SpaceValue } from './SpaceEditor';
import { argsOf, ASSESSORS, TUNERS } from './tunerArgs';
import type { ExperimentSpec } from './types';

const lines = (s: string) => s.split('\n').map((l) => l.trim()).filter(Boolean);

/** KEY=VALUE lines as an object. */
function envOf(s: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const l of lines(s)) {
    const eq = l.indexOf('=');
    if (eq > 0) env[l.slice(0, eq).trim()] = l.slice(eq + 1);
  }
  return env;
}

export default function CreateExperiment() {
  const t = useT();
  const project = useParams().project!;
  const navigate = useNavigate();
  const [space, setSpace] = useState<SpaceValue>(initialSpace);
  const [tuner, setTuner] = useState('tpe');
  const [tunerArgs, setTunerArgs] = useState<Record<string, string | boolean | undefined>>({});
  const [assessor, setAssessor] = useState('');
  const [assessorArgs, setAssessorArgs] = useState<Record<string, string | boolean | undefined>>({});
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [form] = Form.useForm();

  const submit = async (v: Record<string, string | number | undefined>) => {
    setError(null);
    const parsed = spaceOf(space);
    if (!parsed.space) {
      setError(t(parsed.error!));
      return;
    }
    const spec: ExperimentSpec = {
      description: (v.description as string) || undefined,
      searchSpace: parsed.space,
      objective: { metric: (v.metric as string) || 'default', direction: v.direction as 'maximize' | 'minimize' },
      tuner: { name: tuner, args: argsOf(TUNERS[tuner] ?? [], tunerArgs) },
      trial: {
        command: lines(v.command as string),
        args: lines((v.args as string) ?? ''),
        resources: { cpu: String(v.cpu || '1'), memory: String(v.memory || '1Gi') },
        env: envOf((v.env as string) ?? ''),
      },
      trialConcurrency: Number(v.concurrency),
      maxTrials: Number(v.maxTrials),
      maxDurationSeconds: Number(v.maxDuration ?? 0),
    };
    if (v.maxFailed !== undefined && v.maxFailed !== null && v.maxFailed !== '') spec.maxFailedTrials = Number(v.maxFailed);
    if (assessor) spec.assessor = { name: assessor, args: argsOf(ASSESSORS[assessor] ?? [], assessorArgs) };
    setSaving(true);
    try {
      await createExperiment(project, v.name as string, spec);
      navigate(`/p/${project}/experiments/${encodeURIComponent(v.name as string)}`);
    } catch (e) {
      setError(e instanceof ApiError && e.field ? `${e.field}: ${e.message}` : errorMessage(e));
    } finally {
      setSaving(false);
    }
  };

  return (
    <div style={{ padding: 24, maxWidth: 1100 }}>
      <Typography.Title level={3}>{t('hpsearch.new')}</Typography.Title>
      <Form form={form} layout="vertical" onFinish={submit}
        initialValues={{ metric: 'default', direction: 'maximize', concurrency: 2, maxTrials: 10, maxDuration: 0, cpu: '1', memory: '1Gi',
          command: 'python3\ntrain.py' }}>
        <Form.Item name="name" label={t('common.name')} rules={[{ required: true, pattern: /^[a-z0-9]([-a-z0-9]{0,48}[a-z0-9])?$/, message: t('hpsearch.form.badName') }]}>
          <Input style={{ maxWidth: 360 }} />
        </Form.Item>
        <Form.Item name="description" label={t('hpsearch.field.description')}><Input /></Form.Item>
        <Card size="small" title={t('hpsearch.field.searchSpace')} style={{ marginBottom: 16 }}>
          <SpaceEditor value={space} onChange={setSpace} />
        </Card>
        <Card size="small" title={t('hpsearch.form.objective')} style={{ marginBottom: 16 }}>
          <Space wrap>
            <Form.Item name="metric" label={t('hpsearch.field.metric')} tooltip={t('hpsearch.form.metricHelp')}><Input style={{ width: 200 }} /></Form.Item>
            <Form.Item name="direction" label={t('hpsearch.field.direction')}>
              <Select style={{ width: 160 }} options={[{ value: 'maximize', label: t('hpsearch.direction.maximize') }, { value: 'minimize', label: t('hpsearch.direction.minimize') }]} />
            </Form.Item>
          </Space>
        </Card>
        <Card size="small" title={t('hpsearch.form.tuning')} style={{ marginBottom: 16 }}>
          <Space direction="vertical" style={{ width: '100%' }}>
            <Space wrap>
              <Typography.Text>{t('hpsearch.field.tuner')}</Typography.Text>
              <Select aria-label={t('hpsearch.field.tuner')} value={tuner} style={{ width: 160 }} onChange={(v) => { setTuner(v); setTunerArgs({}); }}
                options={Object.keys(TUNERS).map((n) => ({ value: n, label: t(`hpsearch.tuner.${n}`) }))} />
            </Space>
            <ArgsFields specs={TUNERS[tuner] ?? []} values={tunerArgs} onChange={setTunerArgs} />
            <Space wrap>
              <Typography.Text>{t('hpsearch.field.assessor')}</Typography.Text>
              <Select aria-label={t('hpsearch.field.assessor')} value={assessor} style={{ width: 160 }} onChange={(v) => { setAssessor(v); setAssessorArgs({}); }}
                options={[{ value: '', label: t('hpsearch.assessor.none') },
                  ...Object.keys(ASSESSORS).map((n) => ({ value: n, label: t(`hpsearch.assessor.${n}`) }))]} />
            </Space>
            <ArgsFields specs={ASSESSORS[assessor] ?? []} values={assessorArgs} onChange={setAssessorArgs} />
          </Space>
        </Card>
        <Card size="small" title={t('hpsearch.form.trial')} style={{ marginBottom: 16 }}>
          <Form.Item name="command" label={t('hpsearch.field.command')} tooltip={t('hpsearch.form.commandHelp')} rules={[{ required: true }]}>
            <Input.TextArea rows={3} style={{ fontFamily: 'monospace' }} />
          </Form.Item>
          <Form.Item name="args" label={t('hpsearch.field.args')} tooltip={t('hpsearch.form.argsHelp')}>
            <Input.TextArea rows={3} style={{ fontFamily: 'monospace' }} placeholder={'--lr\n{{ params.lr }}'} />
          </Form.Item>
          <Space wrap>
            <Form.Item name="cpu" label={t('hpsearch.field.cpu')}><Input style={{ width: 120 }} /></Form.Item>
            <Form.Item name="memory" label={t('hpsearch.field.memory')}><Input style={{ width: 120 }} /></Form.Item>
          </Space>
          <Form.Item name="env" label={t('hpsearch.field.env')}>
            <Input.TextArea rows={2} style={{ fontFamily: 'monospace' }} placeholder="KEY=value" />
          </Form.Item>
        </Card>
        <Card size="small" title={t('hpsearch.form.limits')} style={{ marginBottom: 16 }}>
          <Space wrap>
            <Form.Item name="maxTrials" label={t('hpsearch.field.maxTrials')}><InputNumber min={1} /></Form.Item>
            <Form.Item name="concurrency" label={t('hpsearch.field.concurrency')}><InputNumber min={1} /></Form.Item>
            <Form.Item name="maxDuration" label={t('hpsearch.field.maxDuration')} tooltip={t('hpsearch.form.zeroNone')}><InputNumber min={0} /></Form.Item>
            <Form.Item name="maxFailed" label={t('hpsearch.field.maxFailed')} tooltip={t('hpsearch.form.emptyNone')}><InputNumber min={0} /></Form.Item>
          </Space>
        </Card>
        {error && <Alert type="error" message={error} style={{ marginBottom: 16 }} />}
        <Space>
          <Button type="primary" htmlType="submit" loading={saving}>{t('hpsearch.form.create')}</Button>
          <Button onClick={() => navigate(`/p/${project}/experiments`)}>{t('common.cancel')}</Button>
        </Space>
      </Form>
    </div>
  );
}
