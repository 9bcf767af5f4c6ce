// VersionPage — one registered version: stage and phase, promote, deploy
// and delete; what it is (framework, digests, size, where its files are,
// the file a runtime loads), where it came from (a link to the run), its
// metrics and parameters; its files (download; upload more while its
// stage is none), its stage history and events. Live through the watch.
import { Alert, Descriptions, Space, Table, Tabs, Typography } from 'antd';
import { EventsTable, formatTime, Link, useNavigate, useParams, useT, useWatchedList } from '@cube/console-sdk';
import { filePath, modelsPath } from './api';
import { VersionActions } from './actions';
import { fmtBytes, fmtMetric, sourcePath, sourceText } from './families';
import { PhaseTag, StageTag } from './StageTag';
import type { Model, ModelFile, ModelSpec } from './types';
import { UploadFiles } from './UploadFiles';

export default function VersionPage() {
  const t = useT();
  const navigate = useNavigate();
  const { project = '', name = '' } = useParams();
  const { items, error } = useWatchedList<Model>(modelsPath(project));
  const m = items.find((x) => x.metadata.name === name);
  if (!m) return <div style={{ padding: 24 }}>{error ? <Alert type="warning" message={error} /> : null}</div>;
  const st = m.status ?? {};
  const spec = m.spec ?? ({ name: m.metadata.name, framework: "custom" } as ModelSpec);
  const to = sourcePath(project, spec.source);
  const uploads = !spec.path && (st.stage ?? 'none') === 'none';

  return (
    <div style={{ padding: 24 }}>
      <Space direction="vertical" style={{ width: '100%' }}>
        <Link to={`/p/${project}/models/_family/${encodeURIComponent(spec.name)}`}>{spec.name}</Link>
        <Space style={{ width: '100%', justifyContent: 'space-between' }}>
          <Space>
            <Typography.Title level={3} style={{ margin: 0 }}>{`${spec.name} v${spec.version ?? '?'}`}</Typography.Title>
            <StageTag stage={st.stage} />
            <PhaseTag status={st} />
          </Space>
          <VersionActions project={project} model={m} onDeleted={() => navigate(`/p/${project}/models`)} />
        </Space>
        {st.phase === 'Failed' && <Alert type="error" message={`${st.field ? st.field + ': ' : ''}${st.message ?? ''}`} />}
        {st.phase === 'AwaitingUpload' && st.message && <Alert type="info" message={st.message} />}
        <Descriptions size="small" column={3} bordered>
          <Descriptions.Item label={t('models.field.name')}>{m.metadata.name}</Descriptions.Item>
          <Descriptions.Item label={t('models.field.framework')}>
            {spec.framework}{spec.pytorch ? ` (${spec.pytorch.format ?? 'torchscript'}${spec.pytorch.class ? ', ' + spec.pytorch.class : ''})` : ''}
          </Descriptions.Item>
          <Descriptions.Item label={t('models.field.owner')}>{m.metadata.owner}</Descriptions.Item>
          <Descriptions.Item label={t('models.field.size')}>{fmtBytes(st.size)}</Descriptions.Item>
          <Descriptions.Item label={t('models.field.format')}>{st.format ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('models.field.registered')}>{formatTime(st.registered ?? m.metadata.created)}</Descriptions.Item>
          <Descriptions.Item label={t('models.field.sha256')} span={3}>
            {st.sha256 ? <Typography.Text code copyable>{st.sha256}</Typography.Text> : '—'}</Descriptions.Item>
          <Descriptions.Item label={t('models.field.md5')} span={3}>{st.md5 ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('models.field.root')}>{st.root ?? spec.path ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('models.field.entry')}>{st.entry ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('models.field.source')}>
            {to ? <Link to={to}>{sourceText(spec.source)}</Link> : sourceText(spec.source)}</Descriptions.Item>
          <Descriptions.Item label={t('models.field.deployments')} span={3}>
            {st.deployments?.length ? st.deployments.join(', ') : '—'}</Descriptions.Item>
          <Descriptions.Item label={t('models.field.describe')} span={3}>{spec.describe ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('models.field.metrics')} span={3}>
            {Object.entries(spec.metrics ?? {}).map(([k, v]) => `${k}: ${fmtMetric(v)}`).join(', ') || '—'}</Descriptions.Item>
        </Descriptions>
        <Tabs items={[
          { key: 'files', label: t('models.files'), children: (
            <Space direction="vertical" style={{ width: '100%' }}>
              {uploads && <UploadFiles project={project} model={m} />}
              <Table<ModelFile> rowKey="path" dataSource={st.files ?? []} size="small" pagination={false}
                columns={[
                  { title: t('models.field.file'), key: 'path', render: (_, f) =>
                    <a href={filePath(project, name, f.path)} download>{f.path}</a> },
                  { title: t('models.field.size'), key: 'size', render: (_, f) => fmtBytes(f.size) },
                  { title: t('models.field.format'), key: 'format', render: (_, f) => f.format ?? '' },
                  { title: t('models.field.sha256'), key: 'sha', render: (_, f) => <Typography.Text code>{f.sha256.slice(0, 16)}</Typography.Text> },
                ]} />
            </Space>) },
          { key: 'history', label: t('models.history'), children: (
            <Table rowKey={(h) => `${h.at}-${h.stage}`} dataSource={[...(st.stageHistory ?? [])].reverse()} size="small" pagination={false}
              columns={[
                { title: t('models.field.stage'), key: 'stage', render: (_, h) => <StageTag stage={h.stage} /> },
                { title: t('models.field.from'), key: 'from', render: (_, h) => <StageTag stage={h.from} /> },
                { title: t('models.field.by'), key: 'by', render: (_, h) => h.by },
                { title: t('models.field.at'), key: 'at', render: (_, h) => formatTime(h.at) },
              ]} />) },
          { key: 'events', label: t('models.events'), children: <EventsTable path={modelsPath(project, name, 'events')} hideObject /> },
          { key: 'spec', label: t('models.spec'), children:
            <pre style={{ background: '#fafafa', padding: 12, overflow: 'auto' }}>{JSON.stringify(spec, null, 2)}</pre> },
        ]} />
      </Space>
    </div>
  );
}
