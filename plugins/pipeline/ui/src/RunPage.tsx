// RunPage — the route of one run: …/pipelines/:name/runs/:run.
import { Breadcrumb } from 'antd';
import { lazy, Suspense } from 'react';
import { Link, useParams } from '@cube/console-sdk';
import { PageSkeleton } from '@cube/console-sdk';
import { useT } from '@cube/console-sdk';
import { pipelineUrl } from './actions';

const RunView = lazy(() => import('./RunView'));

export default function RunPage() {
  const t = useT();
  const { project, name, run } = useParams() as { project: string; name: string; run: string };
  return (
    <div>
      <Breadcrumb style={{ marginBottom: 8 }} items={[
        { title: <Link to={`/p/${encodeURIComponent(project)}/pipelines`}>{t('pipelines.title')}</Link> },
        { title: <Link to={pipelineUrl(project, name)}>{name}</Link> },
        { title: <Link to={`${pipelineUrl(project, name)}?tab=runs`}>{t('pipelines.tab.runs')}</Link> },
        { title: run },
      ]} />
      <Suspense fallback={<PageSkeleton />}>
        <RunView project={project} pipeline={name} name={run} />
      </Suspense>
    </div>
  );
}
