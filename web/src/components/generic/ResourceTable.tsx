// ResourceTable — the live list of a kind's objects: the kind's printer
// columns, a label-selector filter (sent to the server), a name filter,
// client-side paging, and updates through the watch stream.

import { useMemo, useState, type ReactNode } from 'react';
import { Alert, Input, Space, Table, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { Link } from 'react-router-dom';
import { resourcePath } from '../../api/client';
import type { CubeObject, KindInfo } from '../../api/types';
import { kindObjectPath } from '../../pages/registry';
import { useT } from '../../i18n';
import './messages';
import { evalJsonPath } from './resources';
import { MAX_ITEMS, useLiveList } from './liveList';
import { PhaseTag } from './PhaseTag';
import { Time } from './Time';

/** Renders one printer-column value by its declared type. */
export function renderCell(v: unknown, type?: string, name?: string): ReactNode {
  if (v === undefined || v === null || v === '') return <Typography.Text type="secondary">—</Typography.Text>;
  if (type === 'date') return <Time value={String(v)} relative />;
  if (typeof v === 'boolean') return v ? '✓' : '✗';
  if (/phase|state|status/i.test(name ?? '') && typeof v === 'string') return <PhaseTag phase={v} />;
  if (typeof v === 'object') return <code>{JSON.stringify(v)}</code>;
  return String(v);
}

interface Props {
  kind: KindInfo;
  project?: string;
  /** Extra filter applied to the items (e.g. the jobs page's phase). */
  filter?: (o: CubeObject) => boolean;
  /** Columns after the name (default: the kind's printer columns). */
  columns?: ColumnsType<CubeObject>;
  /** Controls shown beside the filters. */
  toolbar?: ReactNode;
}

export function ResourceTable({ kind, project, filter, columns, toolbar }: Props) {
  const t = useT();
  const [selector, setSelector] = useState('');
  const [nameFilter, setNameFilter] = useState('');
  const path = kind.scope === 'project' && !project ? null : resourcePath(kind.plural, kind.scope === 'project' ? project : undefined);
  const { items, error, truncated } = useLiveList(path, selector);

  const shown = useMemo(() => {
    const list = (items ?? []).filter((o) => (!nameFilter || o.metadata.name.includes(nameFilter)) && (!filter || filter(o)));
    return list.sort((a, b) => (b.metadata.created ?? '').localeCompare(a.metadata.created ?? ''));
  }, [items, nameFilter, filter]);

  const cols: ColumnsType<CubeObject> = [
    {
      title: t('generic.table.name'),
      key: 'name',
      render: (_, o) => {
        const to = kindObjectPath(kind, o.metadata.name, project);
        return to ? <Link to={to}>{o.metadata.name}</Link> : o.metadata.name;
      },
    },
    ...(columns ??
      (kind.printerColumns ?? []).map((c) => ({
        title: c.name,
        key: c.jsonPath,
        render: (_: unknown, o: CubeObject) => renderCell(evalJsonPath(o, c.jsonPath), c.type, c.name),
      }))),
    {
      title: t('generic.table.age'),
      key: 'age',
      render: (_, o) => <Time value={o.metadata.created} relative />,
    },
  ];

  return (
    <div>
      <Space wrap style={{ marginBottom: 12 }}>
        <Input.Search
          aria-label={t('generic.table.labelSelector')}
          placeholder={t('generic.table.labelSelectorPlaceholder')}
          addonBefore={t('generic.table.labelSelector')}
          allowClear
          onSearch={(v) => setSelector(v.trim())}
          style={{ width: 380, maxWidth: '100%' }}
        />
        <Input
          aria-label={t('generic.table.search')}
          placeholder={t('generic.table.search')}
          allowClear
          value={nameFilter}
          onChange={(e) => setNameFilter(e.target.value)}
          style={{ width: 220, maxWidth: '100%' }}
        />
        {toolbar}
      </Space>
      {error && <Alert type="error" showIcon message={error} style={{ marginBottom: 12 }} />}
      {truncated && <Alert type="warning" showIcon message={t('generic.table.truncated', { n: MAX_ITEMS })} style={{ marginBottom: 12 }} />}
      <Table<CubeObject>
        rowKey={(o) => o.metadata.name}
        size="middle"
        loading={items === null && !error}
        columns={cols}
        dataSource={shown}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: t('generic.table.empty') }}
        pagination={{ defaultPageSize: 20, showSizeChanger: true, showTotal: (n) => t('generic.table.total', { n }) }}
      />
    </div>
  );
}
