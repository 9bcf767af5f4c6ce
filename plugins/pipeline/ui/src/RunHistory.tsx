// RunHistory — a pipeline's runs, live, newest execution first.
import { Alert, Table, Tag } from 'antd';
import { Link, Time } from '@cube/console-sdk';
import { useWatchedList } from '@cube/console-sdk';
import { useT } from '@cube/console-sdk';
import { runsPath } from './api';
import { PHASE_COLOR } from './phase';
import type { PipelineRun } from './types';

const newestFirst = (a: PipelineRun, b: PipelineRun) =>
  (b.spec?.executionDate ?? b.metadata.created ?? '').localeCompare(a.spec?.executionDate ?? a.metadata.created ?? '') ||
  (b.metadata.created ?? '').localeCompare(a.metadata.created ?? '');

/** zone: the pipeline's time zone, shown beside each execution date on
 *  hover (the date a schedule or backfill picked is a day there). */
export function RunHistory({ project, pipeline, zone }: { project: string; pipeline: string; zone?: string }) {
  const t = useT();
  const { items, loading, error } = useWatchedList<PipelineRun>(runsPath(project), { labelSelector: `pipeline=${pipeline}` });
  const base = `/p/${encodeURIComponent(project)}/pipelines/${encodeURIComponent(pipeline)}/runs/`;
  return (
    <>
      {error && <Alert type="warning" message={error} style={{ marginBottom: 8 }} />}
      <Table<PipelineRun> size="small" loading={loading} rowKey={(r) => r.metadata.name} dataSource={[...items].sort(newestFirst)}
        pagination={{ pageSize: 20 }} locale={{ emptyText: t('pipelines.runs.none') }}
        columns={[
          { title: t('common.name'), key: 'name', render: (_, r) => <Link to={base + encodeURIComponent(r.metadata.name)}>{r.metadata.name}</Link> },
          { title: t('pipelines.run.executionDate'), key: 'date', render: (_, r) => <Time value={r.spec?.executionDate} zone={zone} /> },
          { title: t('pipelines.run.trigger'), key: 'trigger', render: (_, r) => t(`pipelines.trigger.${r.spec?.trigger ?? 'manual'}`) },
          { title: t('pipelines.run.phase'), key: 'phase', render: (_, r) => {
            const p = r.status?.phase ?? 'Queued';
            return <Tag color={PHASE_COLOR[p]}>{t(`pipelines.phase.${p}`)}</Tag>;
          } },
          { title: t('pipelines.run.progress'), key: 'progress', render: (_, r) => r.status?.progress ?? '—' },
          { title: t('pipelines.run.started'), key: 'started', render: (_, r) => <Time value={r.status?.started} /> },
          { title: t('pipelines.run.finished'), key: 'finished', render: (_, r) => <Time value={r.status?.finished} /> },
        ]} scroll={{ x: 'max-content' }} />
    </>
  );
}
