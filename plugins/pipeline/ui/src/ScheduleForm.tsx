// ScheduleForm — when a pipeline runs (once, or a cron expression in a time
// zone from a start time; paused; runs depending on the previous one;
// limits), saved with a merge patch of spec; and the backfill form, which
// asks the server for one run per tick between two dates (days in the
// pipeline's time zone, both inclusive). Errors, the banner's and the
// fields', go as soon as the field is edited or a save succeeds.
import { Alert, Button, Card, Descriptions, Form, Input, InputNumber, message, Space, Switch, Typography } from 'antd';
import { useState } from 'react';
import { ApiError, errorMessage, Time } from '@cube/console-sdk';
import { useT } from '@cube/console-sdk';
import { backfillPipeline, patchPipelineSpec } from './api';
import { scheduleError } from './cron';
import type { Pipeline, PipelineSpec } from './types';

type ScheduleValues = Pick<PipelineSpec, 'schedule' | 'timezone' | 'startTime' | 'paused' | 'dependsOnPast' | 'maxActiveRuns' | 'expiredLimit'>;

const SCHEDULE_FIELDS: (keyof ScheduleValues)[] = ['schedule', 'timezone', 'startTime', 'paused', 'dependsOnPast', 'maxActiveRuns', 'expiredLimit'];

export function ScheduleForm({ project, pipeline, onSaved }: { project: string; pipeline: Pipeline; onSaved(p: Pipeline): void }) {
  const t = useT();
  const [form] = Form.useForm<ScheduleValues>();
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const spec = pipeline.spec;

  const save = async (v: ScheduleValues) => {
    setSaving(true);
    setError(null);
    try {
      // merge patch: null removes a start time that was cleared
      const patch = { ...v, schedule: v.schedule?.trim() || 'once', startTime: v.startTime?.trim() || null };
      const saved = await patchPipelineSpec(project, pipeline.metadata.name, patch);
      // what the server refused before is right now: no old error stays
      form.setFields(SCHEDULE_FIELDS.map((name) => ({ name, errors: [] })));
      setError(null);
      message.success(t('pipelines.schedule.saved'));
      onSaved(saved);
    } catch (e) {
      const f = e instanceof ApiError && e.field?.startsWith('spec.') ? e.field.slice(5) : null;
      if (f && f in (form.getFieldsValue() ?? {})) form.setFields([{ name: f as keyof ScheduleValues, errors: [errorMessage(e)] }]);
      else setError(e);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Card size="small" title={t('pipelines.schedule.title')} style={{ marginBottom: 16 }}>
      {!!error && <Alert type="error" showIcon role="alert" message={errorMessage(error)} style={{ marginBottom: 8 }} />}
      {pipeline.status?.nextTick && !spec?.paused && (
        <Descriptions size="small" column={1} style={{ marginBottom: 8 }} items={[{
          key: 'next', label: t('pipelines.field.nextTick'),
          children: <span data-testid="next-tick"><Time value={pipeline.status.nextTick} zone={spec?.timezone} /></span>,
        }]} />
      )}
      <Form form={form} layout="vertical" onFinish={save} style={{ maxWidth: 520 }}
        onValuesChange={(changed) => {
          // an edited field's server error, and the banner, are old news
          form.setFields(Object.keys(changed).map((name) => ({ name: name as keyof ScheduleValues, errors: [] })));
          setError(null);
        }}
        initialValues={{
        schedule: spec?.schedule ?? 'once', timezone: spec?.timezone ?? 'UTC', startTime: spec?.startTime ?? '',
        paused: spec?.paused ?? false, dependsOnPast: spec?.dependsOnPast ?? false,
        maxActiveRuns: spec?.maxActiveRuns ?? 3, expiredLimit: spec?.expiredLimit ?? 0,
      }}>
        <Form.Item name="schedule" label={t('pipelines.schedule.cron')} extra={t('pipelines.schedule.cronHelp')}
          rules={[{ validator: async (_, v) => { const e = scheduleError(v ?? ''); if (e) throw new Error(t(e)); } }]}>
          <Input placeholder="once | 0 2 * * * | @daily" />
        </Form.Item>
        <Form.Item name="timezone" label={t('pipelines.schedule.timezone')} extra={t('pipelines.schedule.timezoneHelp')}>
          <Input placeholder="UTC" />
        </Form.Item>
        <Form.Item name="startTime" label={t('pipelines.schedule.startTime')} extra={t('pipelines.schedule.startTimeHelp')}>
          <Input placeholder="2026-01-01T00:00:00Z" />
        </Form.Item>
        <Space size="large" wrap>
          <Form.Item name="paused" label={t('pipelines.schedule.paused')} valuePropName="checked"><Switch /></Form.Item>
          <Form.Item name="dependsOnPast" label={t('pipelines.schedule.dependsOnPast')} valuePropName="checked" tooltip={t('pipelines.schedule.dependsOnPastHelp')}><Switch /></Form.Item>
          <Form.Item name="maxActiveRuns" label={t('pipelines.schedule.maxActiveRuns')}><InputNumber min={1} max={1000} /></Form.Item>
          <Form.Item name="expiredLimit" label={t('pipelines.schedule.expiredLimit')} tooltip={t('pipelines.schedule.expiredLimitHelp')}><InputNumber min={0} max={1000} /></Form.Item>
        </Space>
        <Button type="primary" htmlType="submit" loading={saving}>{t('common.save')}</Button>
      </Form>
    </Card>
  );
}

export function BackfillForm({ project, pipeline, zone }: { project: string; pipeline: string; zone?: string }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const submit = async (v: { start: string; end: string }) => {
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const a = await backfillPipeline(project, pipeline, v.start.trim(), v.end.trim());
      setResult(t('pipelines.backfill.done', { ticks: a?.ticks ?? 0, created: a?.created?.length ?? 0, existing: a?.existing ?? 0 }));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card size="small" title={t('pipelines.backfill.title')}>
      <Typography.Paragraph type="secondary">{t('pipelines.backfill.help', { zone: zone || 'UTC' })}</Typography.Paragraph>
      {!!error && <Alert type="error" showIcon role="alert" message={errorMessage(error)} style={{ marginBottom: 8 }} />}
      {result && <Alert type="success" showIcon message={result} style={{ marginBottom: 8 }} />}
      <Form layout="inline" onFinish={submit} onValuesChange={() => setError(null)}>
        <Form.Item name="start" label={t('pipelines.backfill.start')} rules={[{ required: true, message: t('pipelines.args.required') }]}>
          <Input placeholder="2026-01-01" />
        </Form.Item>
        <Form.Item name="end" label={t('pipelines.backfill.end')} rules={[{ required: true, message: t('pipelines.args.required') }]}>
          <Input placeholder="2026-01-07" />
        </Form.Item>
        <Button htmlType="submit" loading={busy}>{t('pipelines.backfill.submit')}</Button>
      </Form>
    </Card>
  );
}
