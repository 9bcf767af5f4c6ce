// FamilyPage — one model family: its versions (live) and their metrics
// side by side as a bar chart.
import { Alert, Empty, Space, Typography } from 'antd';
import { useMemo } from 'react';
import { EChart, Link, useParams, useT, useWatchedList } from '@cube/console-sdk';
import { modelsPath } from './api';
import { families, metricsOption, numericMetricNames } from './families';
import type { Model } from './types';
import { VersionsTable } from './VersionsTable';

export default function FamilyPage() {
  const t = useT();
  const { project = '', family = '' } = useParams();
  const { items, error } = useWatchedList<Model>(modelsPath(project), { labelSelector: `model=${family}` });
  const fam = families(items.filter((m) => m.spec?.name === family))[0];
  const versions = fam?.versions ?? [];
  // redrawn when a version or a metric changes, not on every list event
  const key = versions.map((v) => `${v.metadata.name}:${v.spec?.version}:${JSON.stringify(v.spec?.metrics ?? {})}`).join('|');
  const option = useMemo(() => metricsOption(versions, (v) => `v${v.spec?.version}`), [key]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <div style={{ padding: 24 }}>
      <Space direction="vertical" style={{ width: '100%' }}>
        <Link to={`/p/${project}/models`}>{t('models.back')}</Link>
        <Typography.Title level={3} style={{ margin: 0 }}>{family}</Typography.Title>
        {error && <Alert type="warning" message={error} />}
        <VersionsTable project={project} versions={versions} />
        <Typography.Title level={5}>{t('models.metricsChart')}</Typography.Title>
        {numericMetricNames(versions).length
          ? <EChart option={option} label={t('models.metricsChart')} />
          : <Empty description={t('models.noMetrics')} />}
      </Space>
    </div>
  );
}
