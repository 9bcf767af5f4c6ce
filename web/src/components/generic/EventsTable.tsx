// EventsTable — audit and plugin events of an object, a project or the
// platform, newest first: filters on type, verb, user, kind and text (in
// the page), "older" paging through the server's `before` cursor.

import { useCallback, useEffect, useMemo, useState } from 'react';
import { Alert, Button, Input, Space, Table, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { api, errorMessage } from '../../api/client';
import { useT } from '../../i18n';
import './messages';
import { FilterSelect } from './FilterSelect';
import { Time } from './Time';

export interface CubeEvent {
  metadata: { created: string; project?: string };
  kind?: string;
  involvedObject?: { kind: string; name: string; project?: string; uid?: string };
  type?: string;
  reason?: string;
  message?: string;
  verb?: string;
  user?: string;
  result?: number;
}

interface EventList {
  items: CubeEvent[];
  metadata?: { before?: string };
}

interface Props {
  /** …/events URL: an object's, a project's or /api/v1/events. */
  path: string;
  /** Hide the object column (the object's own page). */
  hideObject?: boolean;
  pageSize?: number;
}

/** Events of a path, with the cursor for older ones. */
export function useEvents(path: string, limit = 100) {
  const [items, setItems] = useState<CubeEvent[] | null>(null);
  const [before, setBefore] = useState<string | undefined>();
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    async (cursor?: string) => {
      try {
        const d = await api.get<EventList>(path, { query: { limit, before: cursor } });
        setItems((prev) => (cursor ? [...(prev ?? []), ...d.items] : d.items));
        setBefore(d.metadata?.before);
        setError(null);
      } catch (e) {
        setError(errorMessage(e));
        setItems((prev) => prev ?? []);
      }
    },
    [path, limit],
  );
  useEffect(() => {
    setItems(null);
    void load();
  }, [load]);
  return { items, error, more: before ? () => load(before) : undefined, reload: () => load() };
}

export function EventsTable({ path, hideObject, pageSize = 20 }: Props) {
  const t = useT();
  const { items, error, more, reload } = useEvents(path);
  const [type, setType] = useState<string | undefined>();
  const [verb, setVerb] = useState<string | undefined>();
  const [text, setText] = useState('');

  const verbs = useMemo(() => [...new Set((items ?? []).map((e) => e.verb).filter(Boolean))] as string[], [items]);
  const shown = useMemo(() => {
    const q = text.toLowerCase();
    return (items ?? []).filter(
      (e) =>
        (!type || e.type === type) &&
        (!verb || e.verb === verb) &&
        (!q ||
          [e.user, e.reason, e.message, e.involvedObject?.kind, e.involvedObject?.name].some((s) => s?.toLowerCase().includes(q))),
    );
  }, [items, type, verb, text]);

  const cols: ColumnsType<CubeEvent> = [
    {
      title: t('generic.events.col.time'),
      key: 'time',
      width: 90,
      render: (_, e) => <Time value={e.metadata.created} relative />,
    },
    {
      title: t('generic.events.col.type'),
      key: 'type',
      width: 100,
      render: (_, e) => <Tag color={e.type === 'Warning' ? 'orange' : 'blue'}>{e.type}</Tag>,
    },
    { title: t('generic.events.col.reason'), dataIndex: 'reason', key: 'reason', width: 120 },
    ...(hideObject
      ? []
      : [
          {
            title: t('generic.events.col.object'),
            key: 'object',
            render: (_: unknown, e: CubeEvent) =>
              e.involvedObject ? `${e.involvedObject.kind}/${e.involvedObject.name}` : '',
          },
        ]),
    { title: t('generic.events.col.message'), dataIndex: 'message', key: 'message' },
    { title: t('generic.events.col.user'), dataIndex: 'user', key: 'user', width: 140 },
    {
      title: t('generic.events.col.result'),
      key: 'result',
      width: 90,
      render: (_, e) => (e.result ? <Tag color={e.result >= 400 ? 'red' : 'green'}>{e.result}</Tag> : null),
    },
  ];

  return (
    <div>
      <Space wrap style={{ marginBottom: 12 }}>
        <FilterSelect label={t('generic.events.filter.type')} value={type} onChange={setType} values={['Normal', 'Warning']} />
        <FilterSelect label={t('generic.events.filter.verb')} value={verb} onChange={setVerb} values={verbs} />
        <Input
          aria-label={t('generic.events.filter.text')}
          placeholder={t('generic.events.filter.text')}
          allowClear
          value={text}
          onChange={(e) => setText(e.target.value)}
          style={{ width: 260 }}
        />
        <Button onClick={reload}>{t('generic.events.refresh')}</Button>
      </Space>
      {error && <Alert type="error" showIcon message={error} style={{ marginBottom: 12 }} />}
      <Table<CubeEvent>
        rowKey={(e, i) => `${e.metadata.created}-${i}`}
        size="small"
        loading={items === null}
        columns={cols}
        dataSource={shown}
        locale={{ emptyText: t('generic.events.empty') }}
        pagination={{ pageSize, showSizeChanger: false }}
      />
      {more && (
        <Button onClick={more} style={{ marginTop: 8 }}>
          {t('generic.events.older')}
        </Button>
      )}
    </div>
  );
}
