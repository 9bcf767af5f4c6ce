// RunView — one PipelineRun, live (lazily loaded: it carries @xyflow/react).
// The run is watched, so task phases on the graph change as the server
// writes them; a task picked on the graph shows its status, outputs, log
// and result files. Stop ends a running run; rerun starts the failed
// tasks again, or everything from the picked task on.
import { Time } from '@cube/console-sdk';
import { Background, Controls, ReactFlow } from '@xyflow/react';
import { Alert, Button, Descriptions, Empty, message, Popconfirm, Space, Tabs, Tag, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { Link } from '@cube/console-sdk';
import { errorMessage } from '@cube/console-sdk';
import { useWatchedList } from '@cube/console-sdk';
import { PageSkeleton } from '@cube/console-sdk';
import { useT } from '@cube/console-sdk';
import { rerunRun, runsPath, stopRun, taskLogsPath } from './api';
import { specToGraph } from './dagSpec';
import { PHASE_COLOR } from './phase';
import { ResultViewer } from './ResultViewer';
import { TaskLogs } from './TaskLogs';
import { nodeTypes, type TaskFlowNode } from './TaskNode';
import type { PipelineRun, TaskStatus } from './types';

const DONE = new Set(['Succeeded', 'Failed', 'Stopped']);

function TaskDetail({ project, run, task, status }: { project: string; run: string; task: string; status: TaskStatus | undefined }) {
  const t = useT();
  const outputs = Object.entries(status?.outputs ?? {});
  return (
    <>
      <Descriptions size="small" column={1} bordered items={[
        { key: 'phase', label: t('pipelines.run.phase'), children: <Tag color={PHASE_COLOR[status?.phase ?? 'Pending']}>{t(`pipelines.phase.${status?.phase ?? 'Pending'}`)}</Tag> },
        { key: 'started', label: t('pipelines.run.started'), children: <Time value={status?.started} /> },
        { key: 'finished', label: t('pipelines.run.finished'), children: <Time value={status?.finished} /> },
        { key: 'attempts', label: t('pipelines.run.attempts'), children: status?.attempts ?? '—' },
        { key: 'job', label: t('pipelines.run.job'), children: status?.job ? <Link to={`/p/${encodeURIComponent(project)}/jobs/${encodeURIComponent(status.job)}`}>{status.job}</Link> : '—' },
        ...(status?.message ? [{ key: 'message', label: t('pipelines.run.message'), children: status.message }] : []),
      ]} />
      <Tabs size="small" items={[
        { key: 'logs', label: t('pipelines.run.logs'), children: status?.job || status?.phase === 'Running' ? <TaskLogs path={taskLogsPath(project, run, task)} /> : <Empty description={t('pipelines.run.notStarted')} /> },
        { key: 'results', label: t('pipelines.run.results'), children: <ResultViewer files={status?.results} /> },
        {
          key: 'outputs', label: t('pipelines.run.outputs'),
          children: outputs.length ? (
            <Descriptions size="small" column={1} bordered items={outputs.map(([k, v]) => ({ key: k, label: k, children: <Typography.Text copyable>{typeof v === 'string' ? v : JSON.stringify(v)}</Typography.Text> }))} />
          ) : <Empty description={t('pipelines.run.noOutputs')} />,
        },
      ]} />
    </>
  );
}

export default function RunView({ project, pipeline, name }: { project: string; pipeline: string; name: string }) {
  const t = useT();
  const { items, loading, error } = useWatchedList<PipelineRun>(runsPath(project), { labelSelector: `pipeline=${pipeline}` });
  const run = items.find((r) => r.metadata.name === name);
  const [picked, setPicked] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const graph = useMemo(() => specToGraph(run?.spec?.tasks ?? []), [run?.spec?.tasks]);
  const nodes: TaskFlowNode[] = useMemo(() => graph.nodes.map((n) => ({
    ...n, type: 'task' as const, selected: n.id === picked,
    data: { task: n.data.task, phase: run?.status?.tasks?.[n.id]?.phase ?? 'Pending' },
  })), [graph, run?.status?.tasks, picked]);

  if (loading && !run) return <PageSkeleton />;
  if (!run) return <Alert type={error ? 'error' : 'warning'} message={error ?? t('pipelines.run.notFound', { name })} />;

  const phase = run.status?.phase ?? 'Queued';
  const act = async (what: () => Promise<unknown>, done: string) => {
    setBusy(true);
    try {
      await what();
      message.success(t(done));
    } catch (e) {
      message.error(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div>
      <Space wrap style={{ marginBottom: 8 }}>
        <Typography.Title level={4} style={{ margin: 0 }}>{name}</Typography.Title>
        <Tag color={PHASE_COLOR[phase]}>{t(`pipelines.phase.${phase}`)}</Tag>
        {run.status?.progress && <Typography.Text type="secondary">{run.status.progress}</Typography.Text>}
        <Typography.Text type="secondary">{t('pipelines.run.executionDate')}: <Time value={run.spec?.executionDate} /></Typography.Text>
        <Typography.Text type="secondary">{t(`pipelines.trigger.${run.spec?.trigger ?? 'manual'}`)}</Typography.Text>
        {!DONE.has(phase) && (
          <Popconfirm title={t('pipelines.run.stopConfirm')} onConfirm={() => act(() => stopRun(project, name), 'pipelines.run.stopped')}>
            <Button danger loading={busy}>{t('pipelines.run.stop')}</Button>
          </Popconfirm>
        )}
        {(phase === 'Failed' || phase === 'Stopped') && (
          <Button loading={busy} onClick={() => act(() => rerunRun(project, name), 'pipelines.run.rerunStarted')}>{t('pipelines.run.rerunFailed')}</Button>
        )}
        {DONE.has(phase) && picked && (
          <Button loading={busy} onClick={() => act(() => rerunRun(project, name, picked), 'pipelines.run.rerunStarted')}>
            {t('pipelines.run.rerunFrom', { task: picked })}
          </Button>
        )}
      </Space>
      {error && <Alert type="warning" message={error} style={{ marginBottom: 8 }} />}
      {run.status?.message && <Alert type={phase === 'Failed' ? 'error' : 'info'} message={run.status.message} style={{ marginBottom: 8 }} />}
      {/* the task panel sits beside the graph, or below it on a phone */}
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 8 }}>
        <div style={{ flex: '1 1 320px', minWidth: 0, height: '65vh', minHeight: 400, border: '1px solid #f0f0f0', borderRadius: 6 }}>
          <ReactFlow nodes={nodes} edges={graph.edges} nodeTypes={nodeTypes} fitView nodesDraggable={false}
            nodesConnectable={false} onNodeClick={(_, n) => setPicked(n.id)} onPaneClick={() => setPicked(null)}>
            <Background />
            <Controls showInteractive={false} />
          </ReactFlow>
        </div>
        <div style={{ flex: '0 1 480px', maxWidth: '100%', minWidth: 0, overflowY: 'auto', maxHeight: '75vh' }}>
          {picked ? <TaskDetail key={picked} project={project} run={name} task={picked} status={run.status?.tasks?.[picked]} />
            : <Typography.Text type="secondary">{t('pipelines.run.pickTask')}</Typography.Text>}
        </div>
      </div>
    </div>
  );
}
