// PipelineDetail — one pipeline (or a new one at …/pipelines/_new): the
// editor, its runs, and its schedule and backfill, as tabs (?tab=).
// The editor is its own chunk (it carries @xyflow/react).
import { Alert, Button, message, Popconfirm, Space, Tabs, Typography } from 'antd';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from '@cube/console-sdk';
import { errorMessage } from '@cube/console-sdk';
import { useApi } from '@cube/console-sdk';
import { PageSkeleton } from '@cube/console-sdk';
import { useT } from '@cube/console-sdk';
import { askCopy, exportFile, pipelineUrl, runAndOpen } from './actions';
import { deletePipeline, pipelinesPath } from './api';
import { RunHistory } from './RunHistory';
import { BackfillForm, ScheduleForm } from './ScheduleForm';
import type { Pipeline } from './types';

const DagEditor = lazy(() => import('./DagEditor'));

const emptyPipeline = (): Pipeline => ({ kind: 'Pipeline', metadata: { name: '' }, spec: { tasks: [] } });

export default function PipelineDetail() {
  const t = useT();
  const params = useParams();
  const project = params.project!;
  const isNew = params.name === '_new';
  const name = isNew ? null : params.name!;
  const navigate = useNavigate();
  const [search, setSearch] = useSearchParams();
  const loaded = useApi<Pipeline>(name ? pipelinesPath(project, name) : null);
  const [pipeline, setPipeline] = useState<Pipeline | null>(isNew ? emptyPipeline() : null);
  useEffect(() => {
    if (loaded.data) setPipeline(loaded.data);
  }, [loaded.data]);

  if (!isNew && loaded.error && !pipeline) return <div><Alert type="error" message={errorMessage(loaded.error)} /></div>;
  if (!pipeline) return <PageSkeleton />;

  const onSaved = (p: Pipeline) => {
    setPipeline(p);
    if (isNew) navigate(pipelineUrl(project, p.metadata.name), { replace: true });
  };
  const editor = (
    <Suspense fallback={<PageSkeleton />}>
      <DagEditor key={pipeline.metadata.resourceVersion ?? 'new'} project={project} pipeline={pipeline} isNew={isNew} onSaved={onSaved} />
    </Suspense>
  );

  return (
    <div>
      <Space wrap style={{ width: '100%', justifyContent: 'space-between', marginBottom: 8 }}>
        <Typography.Title level={3} style={{ margin: 0 }}>{isNew ? t('pipelines.new') : name}</Typography.Title>
        {name && (
          <Space wrap>
            <Button type="primary" onClick={() => runAndOpen(project, name, navigate, t)}>{t('pipelines.action.run')}</Button>
            <Button onClick={() => askCopy(project, name, navigate, t)}>{t('common.copy')}</Button>
            <Button onClick={() => exportFile(project, name)}>{t('pipelines.action.export')}</Button>
            <Popconfirm title={t('common.confirmDelete', { name })} okText={t('common.yes')} cancelText={t('common.no')}
              onConfirm={() => deletePipeline(project, name).then(() => navigate(`/p/${encodeURIComponent(project)}/pipelines`), (e) => message.error(errorMessage(e)))}>
              <Button danger>{t('common.delete')}</Button>
            </Popconfirm>
          </Space>
        )}
      </Space>
      {isNew ? editor : (
        <Tabs activeKey={search.get('tab') ?? 'editor'} onChange={(k) => setSearch({ tab: k }, { replace: true })} destroyInactiveTabPane
          items={[
            { key: 'editor', label: t('pipelines.tab.editor'), children: editor },
            { key: 'runs', label: t('pipelines.tab.runs'), children: <RunHistory project={project} pipeline={name!} zone={pipeline.spec?.timezone} /> },
            {
              key: 'schedule', label: t('pipelines.tab.schedule'),
              children: <><ScheduleForm project={project} pipeline={pipeline} onSaved={setPipeline} /><BackfillForm project={project} pipeline={name!} zone={pipeline.spec?.timezone} /></>,
            },
          ]} />
      )}
    </div>
  );
}
