// TaskPanel — the selected task: name, label, its args (form generated from
// the template's schema), and how it runs (resources, retries, timeout,
// skip; the command of a task without a template). Edits go straight to
// the task through onChange; a rename is checked here (DNS label, unique).
import { DeleteOutlined } from '@ant-design/icons';
import { Button, Collapse, Form, Input, InputNumber, Space, Switch, Typography } from 'antd';
import { useT } from '@cube/console-sdk';
import { ArgsForm } from './ArgsForm';
import type { ArgError } from './argsSchema';
import type { UpstreamOutputs } from './outputRefs';
import { TASK_NAME_RE } from './dagSpec';
import type { JobTemplate, PipelineTask } from './types';

export interface TaskPanelProps {
  task: PipelineTask;
  template: JobTemplate | undefined;
  taken: string[];
  serverErrors?: { args?: Record<string, string>; field?: string; message?: string };
  /** The tasks before this one and the outputs they are known to give. */
  upstream?: UpstreamOutputs[];
  onChange(task: PipelineTask): void;
  onArgErrors(errors: Record<string, ArgError>): void;
  onRename(to: string): void;
  onDelete(): void;
}

function nameError(name: string, taken: string[], current: string): string | null {
  if (!TASK_NAME_RE.test(name) || name.length > 40) return 'pipelines.task.badName';
  if (name !== current && taken.includes(name)) return 'pipelines.task.nameTaken';
  return null;
}

export function TaskPanel({ task, template, taken, serverErrors, upstream, onChange, onArgErrors, onRename, onDelete }: TaskPanelProps) {
  const t = useT();
  const set = (patch: Partial<PipelineTask>) => {
    const next = { ...task, ...patch };
    for (const [k, v] of Object.entries(patch)) if (v === undefined || v === '' || v === null) delete next[k];
    onChange(next);
  };
  const res = task.resources ?? {};
  const setRes = (k: string, v: string) => {
    const next = { ...res, [k]: v };
    if (!v) delete next[k];
    set({ resources: Object.keys(next).length ? next : undefined });
  };

  return (
    <div aria-label={t('pipelines.task.panel')}>
      <Space style={{ width: '100%', justifyContent: 'space-between' }}>
        <Typography.Title level={5} style={{ margin: 0 }}>{task.name}</Typography.Title>
        <Button danger size="small" icon={<DeleteOutlined />} onClick={onDelete}>{t('common.delete')}</Button>
      </Space>
      {template?.spec?.description && <Typography.Paragraph type="secondary">{template.spec.description}</Typography.Paragraph>}
      {serverErrors?.message && !serverErrors.args && (
        <Typography.Text type="danger" role="alert">{serverErrors.field ? `${serverErrors.field}: ` : ''}{serverErrors.message}</Typography.Text>
      )}
      <Form layout="vertical" size="small" key={task.name}>
        <Form.Item label={t('pipelines.task.name')} required
          rules={[{ validator: async (_, v) => { const e = nameError(v ?? '', taken, task.name); if (e) throw new Error(t(e)); } }]}
          name="name" initialValue={task.name}>
          <Input onBlur={(e) => { const v = e.target.value.trim(); if (v !== task.name && !nameError(v, taken, task.name)) onRename(v); }} />
        </Form.Item>
        <Form.Item label={t('pipelines.task.label')}>
          <Input value={task.label ?? ''} onChange={(e) => set({ label: e.target.value })} />
        </Form.Item>
        {!task.template && (
          <Form.Item label={t('pipelines.task.command')} extra={t('pipelines.task.commandHelp')}>
            <Input.TextArea autoSize={{ minRows: 2 }} value={(task.command ?? []).join('\n')}
              onChange={(e) => set({ command: e.target.value ? e.target.value.split('\n') : undefined })} />
          </Form.Item>
        )}
      </Form>
      {task.template && !template && (
        <Typography.Text type="warning">{t('pipelines.task.templateMissing', { name: task.template })}</Typography.Text>
      )}
      {template && (
        <ArgsForm key={`${task.name}:${template.metadata.name}`} schema={template.spec?.args} args={task.args}
          serverErrors={serverErrors?.args} upstream={upstream}
          onChange={(args, errors) => { set({ args: Object.keys(args).length ? args : undefined }); onArgErrors(errors); }} />
      )}
      <Collapse size="small" style={{ marginTop: 12 }} items={[{
        key: 'run', label: t('pipelines.task.runSettings'),
        children: (
          <Form layout="vertical" size="small">
            <Form.Item label={t('pipelines.task.cpu')}>
              <Input placeholder={String(template?.spec?.resources?.cpu ?? '1')} value={String(res.cpu ?? '')} onChange={(e) => setRes('cpu', e.target.value)} />
            </Form.Item>
            <Form.Item label={t('pipelines.task.memory')}>
              <Input placeholder={String(template?.spec?.resources?.memory ?? '1Gi')} value={String(res.memory ?? '')} onChange={(e) => setRes('memory', e.target.value)} />
            </Form.Item>
            <Form.Item label={t('pipelines.task.retries')}>
              <InputNumber min={0} max={100} value={task.retries} onChange={(v) => set({ retries: v ?? undefined })} />
            </Form.Item>
            <Form.Item label={t('pipelines.task.timeout')} extra={t('pipelines.task.timeoutHelp')}>
              <InputNumber min={0} value={task.timeoutSeconds} onChange={(v) => set({ timeoutSeconds: v ?? undefined })} />
            </Form.Item>
            <Form.Item label={t('pipelines.task.skip')} extra={t('pipelines.task.skipHelp')}>
              <Switch checked={!!task.skip} onChange={(v) => set({ skip: v || undefined })} />
            </Form.Item>
          </Form>
        ),
      }]} />
    </div>
  );
}
