// JobTokens — the API tokens Cube issued for one Job (its CUBE_TOKEN, one
// per start of a replica), from GET /api/v1/auth/tokens?job=<project>/<name>:
// when each was made and until when it works. No Revoke: cutting a running
// Job off the API is done by stopping the Job. For the Job's detail page.
import { Table, Tag, Typography } from 'antd';
import { useApi } from '../../api/hooks';
import { registerMessages, useT } from '../../i18n';
import { Time } from '../../components/generic/Time';
import { ErrorAlert } from '../common/ErrorAlert';
import type { TokenInfo } from './Tokens';
import messages from './messages';

registerMessages(messages);

export function jobTokensPath(project: string, job: string): string {
  return `/api/v1/auth/tokens?job=${encodeURIComponent(`${project}/${job}`)}`;
}

export default function JobTokens({ project, job }: { project: string; job: string }) {
  const t = useT();
  const list = useApi<{ items: TokenInfo[] }>(jobTokensPath(project, job));
  const now = Date.now() / 1000;
  return (
    <div data-testid="job-tokens">
      <Typography.Paragraph type="secondary">{t('tokens.job.intro')}</Typography.Paragraph>
      <ErrorAlert error={list.error} onRetry={list.reload} />
      <Table<TokenInfo>
        rowKey="id"
        size="small"
        loading={list.loading && !list.data}
        dataSource={list.data?.items ?? []}
        locale={{ emptyText: t('tokens.job.empty') }}
        pagination={false}
        scroll={{ x: 'max-content' }}
        columns={[
          { title: t('tokens.created'), dataIndex: 'created', render: (v: number) => <Time value={v} /> },
          {
            title: t('tokens.expires'),
            dataIndex: 'expires',
            render: (v: number) => (v <= now ? <Tag color="red">{t('tokens.expired')}</Tag> : <Time value={v} />),
          },
        ]}
      />
    </div>
  );
}
