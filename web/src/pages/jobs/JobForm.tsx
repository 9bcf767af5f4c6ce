// JobForm — /p/:project/jobs/new: a Job as people write one. The command
// is one line split like a shell splits it, or a script box run by
// /bin/sh -c; resources have defaults and units (cores, MiB/GiB, devices
// from the resources the nodes offer); env is key/value rows; pool,
// priority, timeout and retries sit under "More". Errors are checked here
// first (jobForm.ts) and the server's land on the field they name, the page
// scrolling to the first one. The YAML mode edits the same Job as text.
// Other kinds keep the generic schema form.

import { useEffect, useMemo, useState } from 'react';
import {
  Alert, Button, Col, Collapse, Form, Input, InputNumber, Radio, Row, Segmented, Select, Space, Typography,
} from 'antd';
import { MinusCircleOutlined, PlusOutlined } from '@ant-design/icons';
import { Link, Navigate, useNavigate, useParams } from 'react-router-dom';
import { parse, stringify } from 'yaml';
import { api, ApiError, errorMessage, resourcePath } from '../../api/client';
import { useApi } from '../../api/hooks';
import { useT } from '../../i18n';
import {
  checkJobForm, formFieldOf, formFromJob, humanMessage, jobFromForm, JOB_DEFAULTS, MEMORY_UNITS, type FieldProblem,
  type JobFormValues,
} from './jobForm';
import { deviceResources, type ApiNode, type ApiPool } from '../infra/inventory';
import './messages';

type Path = (string | number)[];

/** Device resources the nodes offer, and the pools (for the selects). */
function useChoices() {
  const nodes = useApi<{ items: ApiNode[] }>('/api/v1/nodes');
  const pools = useApi<{ items: ApiPool[] }>('/api/v1/pools');
  return useMemo(() => {
    const res = new Set<string>();
    for (const n of nodes.data?.items ?? []) for (const r of deviceResources(n.capacity ?? {})) res.add(r);
    const poolNames = (pools.data?.items ?? []).map((p) => p.name);
    return { resources: [...res].sort(), pools: poolNames.length ? poolNames : ['default'] };
  }, [nodes.data, pools.data]);
}

function EnvRows() {
  const t = useT();
  return (
    <Form.List name="env">
      {(fields, { add, remove }) => (
        <>
          {fields.map((f) => (
            <Space key={f.key} align="baseline" style={{ display: 'flex', flexWrap: 'wrap', marginBottom: 4 }}>
              <Form.Item name={[f.name, 'name']} style={{ marginBottom: 8 }}>
                <Input aria-label={t('jobs.form.envName', { n: f.name + 1 })} placeholder={t('jobs.form.envNamePh')} style={{ width: 160 }} />
              </Form.Item>
              <Form.Item name={[f.name, 'value']} style={{ marginBottom: 8 }}>
                <Input aria-label={t('jobs.form.envValue', { n: f.name + 1 })} placeholder={t('jobs.form.envValuePh')} style={{ width: 220 }} />
              </Form.Item>
              <Button type="text" aria-label={t('jobs.form.envRemove', { n: f.name + 1 })} icon={<MinusCircleOutlined />} onClick={() => remove(f.name)} />
            </Space>
          ))}
          <Button type="dashed" icon={<PlusOutlined />} onClick={() => add({ name: '', value: '' })}>
            {t('jobs.form.envAdd')}
          </Button>
        </>
      )}
    </Form.List>
  );
}

function DeviceRows({ resources }: { resources: string[] }) {
  const t = useT();
  return (
    <Form.List name="devices">
      {(fields, { add, remove }) => (
        <>
          {fields.map((f) => (
            <Space key={f.key} align="baseline" style={{ display: 'flex', flexWrap: 'wrap', marginBottom: 4 }}>
              <Form.Item name={[f.name, 'resource']} style={{ marginBottom: 8 }}>
                <Select aria-label={t('jobs.form.deviceResource', { n: f.name + 1 })} style={{ width: 200 }}
                  placeholder="nvidia.com/gpu" showSearch
                  options={resources.map((r) => ({ value: r, label: r }))}
                  notFoundContent={t('jobs.form.noDevices')} />
              </Form.Item>
              <Form.Item name={[f.name, 'count']} style={{ marginBottom: 8 }}>
                <InputNumber aria-label={t('jobs.form.deviceCount', { n: f.name + 1 })} min={0} step={1} style={{ width: 120 }} />
              </Form.Item>
              <Button type="text" aria-label={t('jobs.form.deviceRemove', { n: f.name + 1 })} icon={<MinusCircleOutlined />} onClick={() => remove(f.name)} />
            </Space>
          ))}
          <Button type="dashed" icon={<PlusOutlined />} onClick={() => add({ resource: resources[0], count: 1 })}>
            {t('jobs.form.deviceAdd')}
          </Button>
          <Typography.Paragraph type="secondary" style={{ marginTop: 4, marginBottom: 0 }}>{t('jobs.form.deviceHelp')}</Typography.Paragraph>
        </>
      )}
    </Form.List>
  );
}

export function JobFormPage() {
  const t = useT();
  const navigate = useNavigate();
  const { project = '' } = useParams();
  const [form] = Form.useForm<JobFormValues>();
  const choices = useChoices();
  const [mode, setMode] = useState<'form' | 'yaml'>('form');
  const [yamlText, setYamlText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const commandMode = Form.useWatch('commandMode', form) ?? 'line';

  useEffect(() => {
    window.scrollTo(0, 0);
  }, []);

  const values = (): JobFormValues => ({ ...JOB_DEFAULTS, ...form.getFieldsValue(true) });

  /** Puts problems on their fields and scrolls to the first. */
  const showProblems = (probs: { field: Path; message: string }[]) => {
    form.setFields(probs.map((p) => ({ name: p.field as never, errors: [p.message] })));
    if (probs.length) form.scrollToField(probs[0].field as never, { behavior: 'smooth', block: 'center', focus: true });
  };

  const local = (p: FieldProblem) => ({ field: p.field, message: t(p.key, p.values) });

  const switchMode = (m: 'form' | 'yaml') => {
    setError(null);
    if (m === 'yaml') {
      const v = values();
      const probs = checkJobForm(v).filter((p) => p.key.startsWith('jobs.form.err.split.'));
      if (probs.length) return showProblems(probs.map(local));
      setYamlText(stringify(jobFromForm(v), { lineWidth: 0 }));
    } else {
      try {
        const doc = parse(yamlText) ?? {};
        if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error(t('jobs.form.err.yamlObject'));
        form.resetFields();
        form.setFieldsValue(formFromJob(doc));
      } catch (e) {
        setError(t('jobs.form.err.yaml', { why: errorMessage(e) }));
        return;
      }
    }
    setMode(m);
  };

  const serverError = (e: unknown, v: JobFormValues | null) => {
    if (!(e instanceof ApiError)) return setError(errorMessage(e));
    const msg = /anyOf|oneOf/.test(e.message) ? t('jobs.form.err.quantity') : humanMessage(e.field, e.message);
    const field = v ? formFieldOf(e.field, v) : null;
    if (field) {
      setError(null);
      showProblems([{ field, message: msg }]);
    } else setError(e.field ? `${e.field}: ${msg}` : msg);
  };

  const submit = async () => {
    setError(null);
    let body: object;
    let v: JobFormValues | null = null;
    if (mode === 'yaml') {
      try {
        const doc = parse(yamlText);
        if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error(t('jobs.form.err.yamlObject'));
        body = { ...doc, apiVersion: 'cube/v1', kind: 'Job' };
      } catch (e) {
        setError(t('jobs.form.err.yaml', { why: errorMessage(e) }));
        return;
      }
    } else {
      v = values();
      form.setFields(Object.keys(v).map((k) => ({ name: k as never, errors: [] })));
      const probs = checkJobForm(v);
      if (probs.length) return showProblems(probs.map(local));
      body = jobFromForm(v);
    }
    setSaving(true);
    try {
      const saved = await api.post<{ metadata: { name: string } }>(resourcePath('jobs', project), body);
      navigate(`/p/${encodeURIComponent(project)}/jobs/${encodeURIComponent(saved.metadata.name)}`);
    } catch (e) {
      serverError(e, v);
    } finally {
      setSaving(false);
    }
  };

  const listPath = `/p/${encodeURIComponent(project)}/jobs`;
  return (
    <div style={{ maxWidth: 880 }}>
      <Typography.Title level={3} style={{ marginTop: 0 }}>{t('jobs.form.title')}</Typography.Title>
      <Segmented aria-label={t('jobs.form.mode')} value={mode} onChange={(m) => switchMode(m as 'form' | 'yaml')}
        options={[{ value: 'form', label: t('jobs.form.modeForm') }, { value: 'yaml', label: t('jobs.form.modeYaml') }]}
        style={{ marginBottom: 16 }} />
      {error && <Alert type="error" showIcon role="alert" message={t('jobs.form.failed')} description={error} style={{ marginBottom: 16 }} />}
      <Form form={form} layout="vertical" initialValues={JOB_DEFAULTS} onFinish={submit}
        style={{ display: mode === 'form' ? undefined : 'none' }}>
        <Form.Item name="name" label={t('jobs.form.name')} required extra={t('jobs.form.nameHelp')}>
          <Input maxLength={63} autoComplete="off" />
        </Form.Item>
        <Form.Item name="commandMode" label={t('jobs.form.command')}>
          <Radio.Group optionType="button" options={[
            { value: 'line', label: t('jobs.form.commandLine') },
            { value: 'script', label: t('jobs.form.script') },
          ]} />
        </Form.Item>
        {commandMode === 'script' ? (
          <Form.Item name="script" label={t('jobs.form.scriptLabel')} required extra={t('jobs.form.scriptHelp')}>
            <Input.TextArea autoSize={{ minRows: 6, maxRows: 24 }} spellCheck={false} style={{ fontFamily: 'monospace' }}
              placeholder={'set -e\npython3 train.py --epochs 3'} />
          </Form.Item>
        ) : (
          <Form.Item name="commandLine" label={t('jobs.form.commandLineLabel')} required extra={t('jobs.form.commandLineHelp')}>
            <Input spellCheck={false} style={{ fontFamily: 'monospace' }} placeholder={`python3 train.py --lr 0.01 --name "run 1"`} />
          </Form.Item>
        )}
        <Typography.Title level={5}>{t('jobs.form.resources')}</Typography.Title>
        <Row gutter={16}>
          <Col xs={24} sm={8}>
            <Form.Item name="cpu" label={t('jobs.form.cpu')}>
              <InputNumber min={0} step={1} addonAfter={t('jobs.form.cores')} style={{ width: '100%' }} />
            </Form.Item>
          </Col>
          <Col xs={24} sm={10}>
            <Form.Item label={t('jobs.form.memory')} required={false}>
              <Space.Compact style={{ width: '100%' }}>
                <Form.Item name="memory" noStyle>
                  <InputNumber aria-label={t('jobs.form.memory')} min={0} style={{ width: '100%' }} />
                </Form.Item>
                <Form.Item name="memoryUnit" noStyle>
                  <Select aria-label={t('jobs.form.memoryUnit')} style={{ width: 90 }}
                    options={MEMORY_UNITS.map((u) => ({ value: u, label: `${u}B` }))} />
                </Form.Item>
              </Space.Compact>
            </Form.Item>
          </Col>
          <Col xs={24} sm={6}>
            <Form.Item name="replicas" label={t('jobs.form.replicas')} extra={t('jobs.form.replicasHelp')}>
              <InputNumber min={1} max={4096} precision={0} style={{ width: '100%' }} />
            </Form.Item>
          </Col>
        </Row>
        <Form.Item label={t('jobs.form.devices')}>
          <DeviceRows resources={choices.resources} />
        </Form.Item>
        <Form.Item label={t('jobs.form.env')}>
          <EnvRows />
        </Form.Item>
        <Collapse ghost items={[{
          key: 'more',
          label: t('jobs.form.more'),
          forceRender: true,
          children: (
            <Row gutter={16}>
              <Col xs={24} sm={12}>
                <Form.Item name="pool" label={t('jobs.form.pool')}>
                  <Select options={choices.pools.map((p) => ({ value: p, label: p }))} />
                </Form.Item>
              </Col>
              <Col xs={24} sm={12}>
                <Form.Item name="priority" label={t('jobs.form.priority')}>
                  <Select options={['high', 'normal', 'low'].map((p) => ({ value: p, label: t(`jobs.form.priority.${p}`) }))} />
                </Form.Item>
              </Col>
              <Col xs={24} sm={12}>
                <Form.Item name="timeoutMinutes" label={t('jobs.form.timeout')} extra={t('jobs.form.timeoutHelp')}>
                  <InputNumber min={0} addonAfter={t('jobs.form.minutes')} style={{ width: '100%' }} />
                </Form.Item>
              </Col>
              <Col xs={24} sm={12}>
                <Form.Item name="retries" label={t('jobs.form.retries')}>
                  <InputNumber min={0} max={100} precision={0} style={{ width: '100%' }} />
                </Form.Item>
              </Col>
              <Col xs={24} sm={12}>
                <Form.Item name="distributed" label={t('jobs.form.distributed')}>
                  <Select options={['none', 'pytorch', 'tensorflow', 'mpi', 'deepspeed'].map((d) => ({ value: d, label: d }))} />
                </Form.Item>
              </Col>
              <Col xs={24} sm={12}>
                <Form.Item name="workdir" label={t('jobs.form.workdir')}>
                  <Input placeholder="/data/project" />
                </Form.Item>
              </Col>
              <Col xs={24}>
                <Form.Item name="image" label={t('jobs.form.image')} extra={t('jobs.form.imageHelp')}>
                  <Input />
                </Form.Item>
              </Col>
            </Row>
          ),
        }]} />
      </Form>
      {mode === 'yaml' && (
        <Input.TextArea aria-label={t('jobs.form.yaml')} value={yamlText} onChange={(e) => setYamlText(e.target.value)}
          autoSize={{ minRows: 16, maxRows: 40 }} spellCheck={false}
          style={{ fontFamily: 'monospace', width: '100%', display: 'block' }} />
      )}
      <Space style={{ marginTop: 16 }} wrap>
        <Button type="primary" disabled={saving} aria-busy={saving} onClick={() => void submit()}>
          {t('jobs.form.create')}
        </Button>
        <Link to={listPath}><Button>{t('jobs.form.cancel')}</Button></Link>
      </Space>
    </div>
  );
}

/** The generic create page of Jobs opens this form. */
export function JobNewRedirect() {
  const { project = '' } = useParams();
  return <Navigate replace to={`/p/${encodeURIComponent(project)}/jobs/new`} />;
}
