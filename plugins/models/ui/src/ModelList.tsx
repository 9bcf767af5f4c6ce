// ModelList — the project's model families, live: each with its number of
// versions, latest version, production version and last registration;
// a row opens to its versions (VersionsTable). Register opens the form.
import { PlusOutlined } from '@ant-design/icons';
import { Alert, Button, Space, Table, Typography } from 'antd';
import { formatTime, Link, useNavigate, useParams, useT, useWatchedList } from '@cube/console-sdk';
import { modelsPath } from './api';
import { families } from './families';
import { StageTag } from './StageTag';
import type { Family, Model } from './types';
import { VersionsTable } from './VersionsTable';

export default function ModelList() {
  const t = useT();
  const project = useParams().project!;
  const navigate = useNavigate();
  const { items, loading, error } = useWatchedList<Model>(modelsPath(project));
  const rows = families(items);

  return (
    <div style={{ padding: 24 }}>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }}>
        <Typography.Title level={3} style={{ margin: 0 }}>{t('models.title')}</Typography.Title>
        <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(`/p/${project}/models/_new`)}>
          {t('models.register')}
        </Button>
      </Space>
      {error && <Alert type="warning" message={error} style={{ marginBottom: 8 }} />}
      <Table<Family> rowKey={(f) => f.name} loading={loading} dataSource={rows} size="middle"
        locale={{ emptyText: t('models.none') }} pagination={{ pageSize: 20 }}
        expandable={{ expandedRowRender: (f) => <VersionsTable project={project} versions={f.versions} /> }}
        columns={[
          { title: t('models.family'), key: 'name', render: (_, f) =>
            <Link to={`/p/${project}/models/_family/${encodeURIComponent(f.name)}`}>{f.name}</Link> },
          { title: t('models.versions'), key: 'versions', render: (_, f) => f.versions.length },
          { title: t('models.latest'), key: 'latest', render: (_, f) => (
            <Space size="small">
              <Link to={`/p/${project}/models/${encodeURIComponent(f.latest.metadata.name)}`}>{`v${f.latest.spec?.version ?? '?'}`}</Link>
              <StageTag stage={f.latest.status?.stage} />
            </Space>) },
          { title: t('models.production'), key: 'production', render: (_, f) => f.production
            ? <Link to={`/p/${project}/models/${encodeURIComponent(f.production.metadata.name)}`}>{`v${f.production.spec?.version}`}</Link>
            : t('models.noProduction') },
          { title: t('models.field.framework'), key: 'framework', render: (_, f) => f.latest.spec?.framework },
          { title: t('models.field.registered'), key: 'registered', render: (_, f) =>
            formatTime(f.latest.status?.registered ?? f.latest.metadata.created) },
        ]} />
    </div>
  );
}
