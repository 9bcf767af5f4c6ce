// OutputPicker — a small button beside an argument that inserts a
// reference to an upstream task's output ({{ tasks.x.outputs.y }}) instead
// of typing it: pick the task (the edges into this one), then a key it is
// known to output (from the last run) or type one.
import { LinkOutlined } from '@ant-design/icons';
import { AutoComplete, Button, Popover, Select, Space, Typography } from 'antd';
import { useState } from 'react';
import { useT } from '@cube/console-sdk';
import { outputRef, type UpstreamOutputs } from './outputRefs';

const KEY_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function OutputPicker({ upstream, field, onPick }: { upstream: UpstreamOutputs[]; field: string; onPick(ref: string): void }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const [task, setTask] = useState<string | undefined>(upstream[0]?.task);
  const [key, setKey] = useState('');
  if (!upstream.length) return null;
  const keys = upstream.find((u) => u.task === task)?.keys ?? [];
  const ok = !!task && KEY_RE.test(key);
  const content = (
    <Space direction="vertical" style={{ width: 260, maxWidth: '80vw' }} data-testid={`output-picker-${field}`}>
      <Select aria-label={t('pipelines.outputs.task')} value={task} style={{ width: '100%' }}
        options={upstream.map((u) => ({ value: u.task, label: u.task }))}
        onChange={(v) => { setTask(v); setKey(''); }} />
      <AutoComplete aria-label={t('pipelines.outputs.key')} value={key} style={{ width: '100%' }}
        placeholder={t('pipelines.outputs.keyPlaceholder')} options={keys.map((k) => ({ value: k }))}
        onChange={(v) => setKey(v.trim())} />
      {!keys.length && <Typography.Text type="secondary" style={{ fontSize: 12 }}>{t('pipelines.outputs.noneKnown')}</Typography.Text>}
      {ok && <Typography.Text code style={{ fontSize: 12 }}>{outputRef(task!, key)}</Typography.Text>}
      <Button type="primary" size="small" disabled={!ok}
        onClick={() => { onPick(outputRef(task!, key)); setOpen(false); setKey(''); }}>
        {t('pipelines.outputs.insert')}
      </Button>
    </Space>
  );
  return (
    <Popover open={open} onOpenChange={setOpen} trigger="click" content={content} title={t('pipelines.outputs.title')}>
      <Button size="small" type="link" icon={<LinkOutlined />} style={{ padding: 0 }} aria-label={t('pipelines.outputs.button', { field })}>
        {t('pipelines.outputs.short')}
      </Button>
    </Popover>
  );
}
