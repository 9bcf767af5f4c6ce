// DagEditor — the visual editor of a pipeline (lazily loaded: it carries
// @xyflow/react). Templates from the palette become tasks; edges drawn from
// a task's bottom to another's top are upstream dependencies (cycles are
// refused); the selected task is edited on the right; "Arrange" lays the
// graph out in layers (an edge that skips a layer keeps a lane of its
// own). Save PUTs (or POSTs) the Pipeline; a 422 naming
// spec.tasks[i].args.--x selects task i and shows the message on --x; an
// error goes as soon as what it names is edited. The view never zooms past
// 100% to fit, and follows each new task so it lands in sight. An
// argument can take an upstream task's output from a picker (the keys the
// last run recorded). On a phone the palette, canvas and panel stack.
import { ApartmentOutlined, SaveOutlined } from '@ant-design/icons';
import {
  addEdge, Background, Controls, ReactFlow, ReactFlowProvider, useEdgesState, useNodesState, useReactFlow,
  type Connection, type Edge,
} from '@xyflow/react';
import { Alert, Button, Form, Input, InputNumber, message, Space, Spin, Typography } from 'antd';
import { useCallback, useEffect, useMemo, useState, type DragEvent } from 'react';
import { api, ApiError, errorMessage } from '@cube/console-sdk';
import { useT } from '@cube/console-sdk';
import { loadTemplates, runsPath, savePipeline, type TemplateEntry } from './api';
import type { ArgError } from './argsSchema';
import { edgeId, graphToSpec, locateError, specToGraph, uniqueTaskName, wouldCreateCycle } from './dagSpec';
import { layeredLayout } from './layout';
import { knownOutputs, upstreamOutputs } from './outputRefs';
import { TaskPanel } from './TaskPanel';
import { nodeTypes, type TaskFlowNode } from './TaskNode';
import { DRAG_TYPE, TemplatePalette } from './TemplatePalette';
import type { Pipeline, PipelineRun, PipelineTask } from './types';

/** Fitting the graph never zooms in past 100%: one task does not fill the
 *  canvas, and the next lands in sight. */
const FIT = { maxZoom: 1, padding: 0.25 };

export interface DagEditorProps {
  project: string;
  pipeline: Pipeline;
  isNew: boolean;
  onSaved(p: Pipeline): void;
}

interface ServerError {
  task?: string;
  args?: Record<string, string>;
  field?: string;
  message: string;
}

const PIPELINE_NAME_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function Editor({ project, pipeline, isNew, onSaved }: DagEditorProps) {
  const t = useT();
  const flow = useReactFlow();
  const initial = useMemo(() => specToGraph(pipeline.spec?.tasks ?? []), [pipeline]);
  const [nodes, setNodes, onNodesChange] = useNodesState<TaskFlowNode>(initial.nodes as TaskFlowNode[]);
  const [edges, setEdges, onEdgesChange] = useEdgesState<Edge>(initial.edges);
  const [templates, setTemplates] = useState<TemplateEntry[] | null>(null);
  const [templateError, setTemplateError] = useState<unknown>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [name, setName] = useState(pipeline.metadata.name);
  const [description, setDescription] = useState(pipeline.spec?.description ?? '');
  const [parallelism, setParallelism] = useState<number | undefined>(pipeline.spec?.parallelism);
  const [argErrors, setArgErrors] = useState<Record<string, Record<string, ArgError>>>({});
  const [serverError, setServerError] = useState<ServerError | null>(null);
  const [saving, setSaving] = useState(false);
  const [outputs, setOutputs] = useState<Record<string, string[]>>({});

  // the keys each task output in the pipeline's last run
  const lastRun = pipeline.status?.lastRun;
  useEffect(() => {
    if (!lastRun) return;
    api.get<PipelineRun>(runsPath(project, lastRun)).then((r) => setOutputs(knownOutputs(r)), () => undefined);
  }, [project, lastRun]);

  /** Keeps every task in sight after the graph changed shape. */
  const follow = useCallback(() => setTimeout(() => void flow.fitView({ ...FIT, duration: 200 }), 50), [flow]);

  /** Selects one task, on the canvas too (else the canvas' next selection
   *  event would undo it). */
  const selectTask = useCallback((id: string | null) => {
    setSelected(id);
    setNodes((ns) => ns.map((n) => (n.selected === (n.id === id) ? n : { ...n, selected: n.id === id })));
  }, [setNodes]);

  useEffect(() => {
    loadTemplates(project).then(setTemplates, setTemplateError);
  }, [project]);

  const templateOf = useCallback(
    (task?: PipelineTask) => templates?.find((e) => e.template.metadata.name === task?.template)?.template,
    [templates],
  );

  const addTask = useCallback((template: string, at?: { x: number; y: number }) => {
    const taken = nodes.map((n) => n.id);
    const id = uniqueTaskName(template, taken);
    const below = nodes.find((n) => n.id === selected) ?? nodes[nodes.length - 1];
    const position = at ?? (below ? { x: below.position.x, y: below.position.y + 120 } : { x: 0, y: 0 });
    setNodes((ns) => [...ns.map((n) => ({ ...n, selected: false })),
      { id, type: 'task', position, selected: true, data: { task: { name: id, template } } }]);
    if (below && !at) setEdges((es) => addEdge({ id: edgeId(below.id, id), source: below.id, target: id }, es));
    setSelected(id);
    setServerError((e) => (e && !e.task && !e.field ? null : e)); // "add at least one task"
    follow();
  }, [nodes, selected, setNodes, setEdges, follow]);

  const onDrop = (e: DragEvent) => {
    const template = e.dataTransfer.getData(DRAG_TYPE);
    if (!template) return;
    e.preventDefault();
    addTask(template, flow.screenToFlowPosition({ x: e.clientX, y: e.clientY }));
  };

  const onConnect = useCallback((c: Connection) => {
    if (!c.source || !c.target) return;
    if (wouldCreateCycle(edges, c.source, c.target)) {
      message.warning(t('pipelines.editor.cycle'));
      return;
    }
    setEdges((es) => addEdge({ ...c, id: edgeId(c.source, c.target) }, es));
  }, [edges, setEdges, t]);

  const arrange = () => {
    const pos = layeredLayout(nodes.map((n) => ({ id: n.id, upstream: edges.filter((e) => e.target === n.id).map((e) => e.source) })));
    setNodes((ns) => ns.map((n) => ({ ...n, position: pos[n.id] ?? n.position })));
    follow();
  };

  /** An edit of task `id` answers the error the server gave about it. */
  const clearTaskError = (id: string) => setServerError((e) => (e?.task === id ? null : e));

  const updateTask = (id: string, task: PipelineTask) => {
    setNodes((ns) => ns.map((n) => (n.id === id ? { ...n, data: { ...n.data, task } } : n)));
    clearTaskError(id);
  };

  const renameTask = (from: string, to: string) => {
    setNodes((ns) => ns.map((n) => (n.id === from ? { ...n, id: to, data: { ...n.data, task: { ...n.data.task, name: to } } } : n)));
    setEdges((es) => es.map((e) => {
      const source = e.source === from ? to : e.source;
      const target = e.target === from ? to : e.target;
      return { ...e, id: edgeId(source, target), source, target };
    }));
    setArgErrors(({ [from]: moved, ...rest }) => (moved ? { ...rest, [to]: moved } : rest));
    clearTaskError(from);
    setSelected(to);
  };

  const deleteTask = (id: string) => {
    setNodes((ns) => ns.filter((n) => n.id !== id));
    setEdges((es) => es.filter((e) => e.source !== id && e.target !== id));
    setArgErrors(({ [id]: _gone, ...rest }) => rest); // eslint-disable-line @typescript-eslint/no-unused-vars
    clearTaskError(id);
    setSelected(null);
  };

  /** A pipeline-level field edited: its error (and a general one) go. */
  const clearFieldError = (field: string) =>
    setServerError((e) => (e && !e.task && (!e.field || e.field === field || e.field.startsWith(field)) ? null : e));

  const save = async () => {
    if (!PIPELINE_NAME_RE.test(name) || name.length > 63) {
      setServerError({ field: 'metadata.name', message: t('pipelines.editor.badName') });
      return;
    }
    if (!nodes.length) {
      setServerError({ message: t('pipelines.editor.noTasks') });
      return;
    }
    const bad = Object.entries(argErrors).find(([, errs]) => Object.keys(errs).length);
    if (bad) {
      selectTask(bad[0]);
      setServerError({ task: bad[0], message: t('pipelines.editor.fixArgs', { task: bad[0] }) });
      return;
    }
    const tasks = graphToSpec(nodes, edges);
    const spec = { ...pipeline.spec, tasks, description: description || undefined, parallelism };
    const body: Pipeline = { ...pipeline, metadata: { ...pipeline.metadata, name }, spec };
    delete body.status;
    setSaving(true);
    setServerError(null);
    try {
      const saved = await savePipeline(project, body, isNew);
      message.success(t('pipelines.editor.saved'));
      onSaved(saved);
    } catch (e) {
      setServerError(toServerError(e, tasks));
    } finally {
      setSaving(false);
    }
  };

  const toServerError = (e: unknown, tasks: PipelineTask[]): ServerError => {
    const field = e instanceof ApiError ? e.field : undefined;
    const where = locateError(field, errorMessage(e));
    if (where.task !== undefined && tasks[where.task]) {
      const task = tasks[where.task].name;
      selectTask(task);
      return { task, message: where.message, field: where.field, args: where.arg ? { [where.arg]: where.message } : undefined };
    }
    return { message: where.message, field };
  };


  const current = nodes.find((n) => n.id === selected);
  const shownNodes = useMemo(() => nodes.map((n) => ({
    ...n,
    data: { ...n.data, invalid: serverError?.task === n.id || !!Object.keys(argErrors[n.id] ?? {}).length },
  })), [nodes, serverError, argErrors]);

  return (
    <div>
      <Space wrap style={{ marginBottom: 8 }}>
        <Form layout="inline" size="small">
          <Form.Item label={t('common.name')} required>
            <Input value={name} disabled={!isNew} aria-label={t('common.name')}
              onChange={(e) => { setName(e.target.value.trim()); clearFieldError('metadata.name'); }} />
          </Form.Item>
          <Form.Item label={t('pipelines.field.description')}>
            <Input value={description} style={{ width: 280, maxWidth: '100%' }}
              onChange={(e) => { setDescription(e.target.value); clearFieldError('spec.description'); }} />
          </Form.Item>
          <Form.Item label={t('pipelines.field.parallelism')} tooltip={t('pipelines.field.parallelismHelp')}>
            <InputNumber min={1} max={2000} value={parallelism} placeholder="1"
              onChange={(v) => { setParallelism(v ?? undefined); clearFieldError('spec.parallelism'); }} />
          </Form.Item>
        </Form>
        <Button icon={<ApartmentOutlined />} onClick={arrange}>{t('pipelines.editor.arrange')}</Button>
        <Button type="primary" icon={<SaveOutlined />} loading={saving} onClick={save}>{t('common.save')}</Button>
      </Space>
      {serverError && !serverError.task && (
        <Alert type="error" showIcon role="alert" style={{ marginBottom: 8 }}
          message={serverError.field ? `${serverError.field}: ${serverError.message}` : serverError.message} />
      )}
      {serverError?.task && (
        <Alert type="error" showIcon role="alert" style={{ marginBottom: 8 }}
          message={t('pipelines.editor.taskError', { task: serverError.task, message: serverError.message })} />
      )}
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 8 }}>
        <div style={{ flex: '1 1 220px', maxWidth: '100%', minWidth: 0, maxHeight: '70vh', overflowY: 'auto' }}>
          {templateError ? <Alert type="error" message={errorMessage(templateError)} />
            : templates ? <TemplatePalette templates={templates} onAdd={(n) => addTask(n)} /> : <Spin />}
        </div>
        <div data-testid="dag-canvas" style={{ flex: '999 1 320px', minWidth: 0, height: '70vh', minHeight: 360, border: '1px solid #f0f0f0', borderRadius: 6 }} onDragOver={(e) => {
          e.preventDefault();
          e.dataTransfer.dropEffect = 'copy';
        }} onDrop={onDrop}>
          <ReactFlow nodes={shownNodes} edges={edges} nodeTypes={nodeTypes} onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange} onConnect={onConnect} fitView fitViewOptions={FIT}
            onSelectionChange={({ nodes: sel }) => setSelected(sel.length === 1 ? sel[0].id : null)}
            onNodesDelete={(del) => setArgErrors((errs) => {
              const next = { ...errs };
              del.forEach((n) => delete next[n.id]);
              return next;
            })}>
            <Background />
            <Controls />
          </ReactFlow>
        </div>
        <div style={{ flex: '1 1 300px', maxWidth: '100%', minWidth: 0, maxHeight: '70vh', overflowY: 'auto' }}>
          {current ? (
            <TaskPanel key={current.id} task={current.data.task} template={templateOf(current.data.task)}
              taken={nodes.map((n) => n.id)}
              serverErrors={serverError?.task === current.id ? serverError : undefined}
              upstream={upstreamOutputs(current.id, edges, outputs)}
              onChange={(task) => updateTask(current.id, task)}
              onArgErrors={(errs) => setArgErrors((all) => ({ ...all, [current.id]: errs }))}
              onRename={(to) => renameTask(current.id, to)} onDelete={() => deleteTask(current.id)} />
          ) : (
            <Typography.Text type="secondary">{t(nodes.length ? 'pipelines.editor.selectTask' : 'pipelines.editor.empty')}</Typography.Text>
          )}
        </div>
      </div>
    </div>
  );
}

export default function DagEditor(props: DagEditorProps) {
  return (
    <ReactFlowProvider>
      <Editor {...props} />
    </ReactFlowProvider>
  );
}
