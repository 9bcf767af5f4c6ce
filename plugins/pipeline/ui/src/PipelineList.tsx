// PipelineList — the project's pipelines, live: schedule, task count, last
// run and next tick; run, copy, export and delete; new and import.
import { PlusOutlined, UploadOutlined } from '@ant-design/icons';
import { Alert, Button, message, Popconfirm, Space, Table, Typography } from 'antd';
import { useState } from 'react';
import { Link, Time, useNavigate, useParams } from '@cube/console-sdk';
import { errorMessage } from '@cube/console-sdk';
import { useWatchedList } from '@cube/console-sdk';
import { useT } from '@cube/console-sdk';
import { askCopy, exportFile, newPipelineUrl, pipelineUrl, runAndOpen } from './actions';
import { deletePipeline, pipelinesPath } from './api';
import { ImportModal } from './ImportModal';
import type { Pipeline } from './types';

export default function PipelineList() {
  const t = useT();
  const project = useParams().project!;
  const navigate = useNavigate();
  const [importing, setImporting] = useState(false);
  const { items, loading, error } = useWatchedList<Pipeline>(pipelinesPath(project));
  const rows = [...items].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));

  return (
    <div>
      <Space wrap style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }}>
        <Typography.Title level={3} style={{ margin: 0 }}>{t('pipelines.title')}</Typography.Title>
        <Space>
          <Button icon={<UploadOutlined />} onClick={() => setImporting(true)}>{t('pipelines.import.title')}</Button>
          <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(newPipelineUrl(project))}>
            {t('pipelines.new')}
          </Button>
        </Space>
      </Space>
      {error && <Alert type="warning" message={error} style={{ marginBottom: 8 }} />}
      <Table<Pipeline> rowKey={(p) => p.metadata.name} loading={loading} dataSource={rows} size="middle"
        locale={{ emptyText: t('pipelines.none') }} pagination={{ pageSize: 20 }} scroll={{ x: 'max-content' }}
        columns={[
          { title: t('common.name'), key: 'name', render: (_, p) => <Link to={pipelineUrl(project, p.metadata.name)}>{p.metadata.name}</Link> },
          { title: t('pipelines.field.description'), key: 'description', ellipsis: true, render: (_, p) => p.spec?.description ?? '' },
          { title: t('pipelines.schedule.cron'), key: 'schedule', render: (_, p) => (p.spec?.paused ? `${p.spec?.schedule ?? 'once'} (${t('pipelines.schedule.paused')})` : p.spec?.schedule ?? 'once') },
          { title: t('pipelines.field.tasks'), key: 'tasks', render: (_, p) => p.spec?.tasks?.length ?? 0 },
          { title: t('pipelines.field.lastRun'), key: 'lastRun', render: (_, p) => p.status?.lastRun
            ? (
              <Space direction="vertical" size={0}>
                <Link to={`${pipelineUrl(project, p.metadata.name)}/runs/${encodeURIComponent(p.status.lastRun)}`}>{p.status.lastRun}</Link>
                {p.status.lastRunCreated && <Typography.Text type="secondary" style={{ fontSize: 12 }}><Time value={p.status.lastRunCreated} /></Typography.Text>}
              </Space>
            ) : '—' },
          { title: t('pipelines.field.nextTick'), key: 'nextTick', render: (_, p) => p.status?.nextTick && !p.spec?.paused
            ? <Time value={p.status.nextTick} zone={p.spec?.timezone} /> : '—' },
          {
            title: t('common.actions'), key: 'actions', render: (_, p) => (
              <Space size="small" wrap>
                <Button size="small" onClick={() => runAndOpen(project, p.metadata.name, navigate, t)}>{t('pipelines.action.run')}</Button>
                <Button size="small" onClick={() => askCopy(project, p.metadata.name, navigate, t)}>{t('common.copy')}</Button>
                <Button size="small" onClick={() => exportFile(project, p.metadata.name)}>{t('pipelines.action.export')}</Button>
                <Popconfirm title={t('common.confirmDelete', { name: p.metadata.name })} okText={t('common.yes')} cancelText={t('common.no')}
                  onConfirm={() => deletePipeline(project, p.metadata.name).catch((e) => message.error(errorMessage(e)))}>
                  <Button size="small" danger>{t('common.delete')}</Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]} />
      <ImportModal project={project} open={importing} onClose={() => setImporting(false)}
        onDone={(p) => { setImporting(false); navigate(pipelineUrl(project, p.metadata.name)); }} />
    </div>
  );
}
