// TaskNode — one task on the canvas (editor and run view): its name, its
// template, and in a run its phase; a task the server refused is outlined
// in red. Handles: upstream edges enter at the top, leave at the bottom.
import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { Tag, Typography } from 'antd';
import { useT } from '@cube/console-sdk';
import { PHASE_BORDER, PHASE_COLOR } from './phase';
import type { PipelineTask } from './types';

export type TaskNodeData = {
  task: PipelineTask;
  phase?: string;
  invalid?: boolean;
  templateLabel?: string;
};
export type TaskFlowNode = Node<TaskNodeData, 'task'>;

export function TaskNode({ data, selected }: NodeProps<TaskFlowNode>) {
  const t = useT();
  const { task, phase, invalid } = data;
  const border = invalid ? '#ff4d4f' : phase ? PHASE_BORDER[phase] ?? '#d9d9d9' : '#d9d9d9';
  return (
    <div
      data-testid={`task-${task.name}`}
      style={{
        width: 200, padding: '6px 10px', borderRadius: 6, background: task.skip ? '#fafafa' : '#fff',
        border: `2px solid ${border}`, boxShadow: selected ? '0 0 0 3px rgba(22,119,255,.35)' : undefined,
      }}
    >
      <Handle type="target" position={Position.Top} />
      <Typography.Text strong ellipsis style={{ display: 'block' }}>{task.label || task.name}</Typography.Text>
      <Typography.Text type="secondary" ellipsis style={{ display: 'block', fontSize: 12 }}>
        {task.template ? data.templateLabel ?? task.template : t('pipelines.task.customCommand')}
      </Typography.Text>
      {phase && (
        <Tag color={PHASE_COLOR[phase] ?? 'default'} style={{ marginTop: 4 }}>
          {t(`pipelines.phase.${phase}`)}
        </Tag>
      )}
      {task.skip && <Tag style={{ marginTop: 4 }}>{t('pipelines.task.skipped')}</Tag>}
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
}

export const nodeTypes = { task: TaskNode };
