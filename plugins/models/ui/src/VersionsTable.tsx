// VersionsTable — a family's versions: version, stage, phase, framework,
// size, digest, each metric in a column of its own (side by side), where
// it came from, when; promote, deploy, delete.
import { Table, Typography } from 'antd';
import { formatTime, Link, useT } from '@cube/console-sdk';
import { VersionActions } from './actions';
import { fmtBytes, fmtMetric, metricNames, sourcePath, sourceText } from './families';
import { PhaseTag, StageTag } from './StageTag';
import type { Model } from './types';

export function VersionsTable({ project, versions }: { project: string; versions: Model[] }) {
  const t = useT();
  const metrics = metricNames(versions).slice(0, 8);
  return (
    <Table<Model> rowKey={(m) => m.metadata.name} dataSource={versions} size="small" pagination={false}
      scroll={{ x: true }}
      columns={[
        { title: t('models.field.version'), key: 'version', render: (_, m) =>
          <Link to={`/p/${project}/models/${encodeURIComponent(m.metadata.name)}`}>{`v${m.spec?.version ?? '?'}`}</Link> },
        { title: t('models.field.stage'), key: 'stage', render: (_, m) => <StageTag stage={m.status?.stage} /> },
        { title: t('models.field.phase'), key: 'phase', render: (_, m) => <PhaseTag status={m.status} /> },
        { title: t('models.field.framework'), key: 'framework', render: (_, m) => m.spec?.framework },
        { title: t('models.field.size'), key: 'size', render: (_, m) => fmtBytes(m.status?.size) },
        { title: t('models.field.sha256'), key: 'sha', render: (_, m) => m.status?.sha256
          ? <Typography.Text code copyable={{ text: m.status.sha256 }}>{m.status.sha256.slice(0, 12)}</Typography.Text> : '—' },
        ...metrics.map((k) => ({ title: k, key: `metric-${k}`, render: (_: unknown, m: Model) => fmtMetric(m.spec?.metrics?.[k]) })),
        { title: t('models.field.source'), key: 'source', render: (_, m) => {
          const to = sourcePath(project, m.spec?.source);
          return to ? <Link to={to}>{sourceText(m.spec?.source)}</Link> : sourceText(m.spec?.source);
        } },
        { title: t('models.field.registered'), key: 'registered', render: (_, m) => formatTime(m.status?.registered ?? m.metadata.created) },
        { title: t('common.actions'), key: 'actions', render: (_, m) => <VersionActions project={project} model={m} /> },
      ]} />
  );
}
