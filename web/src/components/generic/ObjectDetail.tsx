// ObjectDetail — one object of any kind, kept live through the kind's watch:
// header with edit, delete (confirmed) and the kind's actions as buttons;
// tabs for the overview (metadata, spec, status), events and YAML. Pages of
// a kind of their own (jobs) add tabs and an overview above.

import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { Alert, Button, Descriptions, Popconfirm, Space, Tabs, Tag, Typography, message } from 'antd';
import { useNavigate } from 'react-router-dom';
import { stringify } from 'yaml';
import { api, ApiError, errorMessage, resourcePath } from '../../api/client';
import type { CubeObject, KindInfo } from '../../api/types';

type KindAction = NonNullable<KindInfo['actions']>[number];
import { PageSkeleton } from '../../shell/PageSkeleton';
import { useI18n, useT } from '../../i18n';
import './messages';
import { EventsTable } from './EventsTable';
import { useLiveList } from './liveList';
import { age } from './resources';
import { kindLabel } from './kindNames';
import { PhaseTag } from './PhaseTag';
import { Time } from './Time';

/** The object, fetched then kept current by the kind's watch. */
export function useLiveObject(kind: KindInfo, project: string | undefined, name: string) {
  const proj = kind.scope === 'project' ? project : undefined;
  const [first, setFirst] = useState<CubeObject | null>(null);
  const [error, setError] = useState<ApiError | Error | null>(null);
  useEffect(() => {
    setFirst(null);
    setError(null);
    api.get<CubeObject>(resourcePath(kind.plural, proj, name)).then(setFirst, setError);
  }, [kind.plural, proj, name]);
  const { items } = useLiveList(first ? resourcePath(kind.plural, proj) : null);
  const live = items?.find((o) => o.metadata.name === name);
  const deleted = items !== null && !live && first !== null;
  return { obj: live ?? first, error, deleted };
}

/** A value as readable text: scalars as they are, the rest as YAML. */
export function ValueView({ value }: { value: unknown }) {
  if (value === undefined || value === null) return <Typography.Text type="secondary">—</Typography.Text>;
  if (typeof value !== 'object') return <>{String(value)}</>;
  return (
    <pre style={{ margin: 0, fontSize: 12, whiteSpace: 'pre-wrap' }}>{stringify(value, { lineWidth: 0 }).trimEnd()}</pre>
  );
}

/** A spec or status object as a two-column table of its top-level fields. */
export function FieldsView({ title, value }: { title: string; value?: Record<string, unknown> }) {
  const entries = Object.entries(value ?? {});
  return (
    <Descriptions title={title} bordered size="small" column={1} style={{ marginBottom: 16 }}>
      {entries.map(([k, v]) => (
        <Descriptions.Item key={k} label={k}>
          {k === 'phase' ? <PhaseTag phase={String(v)} /> : <ValueView value={v} />}
        </Descriptions.Item>
      ))}
    </Descriptions>
  );
}

interface Props {
  kind: KindInfo;
  project?: string;
  name: string;
  /** Where the list is (after delete). */
  listPath: string;
  /** Where the edit form is. */
  editPath?: string;
  /** Shown above the tabs (e.g. a job's status summary). */
  summary?: (obj: CubeObject) => ReactNode;
  /** More tabs, first after the overview. */
  tabs?: (obj: CubeObject) => { key: string; label: string; children: ReactNode }[];
  /** Buttons before the kind's actions. */
  extraActions?: (obj: CubeObject) => ReactNode;
  /** Kind actions the page draws itself (e.g. the jobs page's stop). */
  hideActions?: string[];
}

/** The kind's actions as buttons that POST (or GET) the sub-resource. */
function ActionButtons({ kind, project, obj, hide }: { kind: KindInfo; project?: string; obj: CubeObject; hide?: string[] }) {
  const t = useT();
  const [busy, setBusy] = useState<string | null>(null);
  const run = async (a: KindAction) => {
    setBusy(a.name);
    try {
      const path = resourcePath(kind.plural, kind.scope === 'project' ? project : undefined, obj.metadata.name, a.name);
      await (a.method === 'GET' ? api.get(path) : api.post(path, {}));
      message.success(t('generic.detail.actionDone', { action: a.name }));
    } catch (e) {
      message.error(errorMessage(e));
    } finally {
      setBusy(null);
    }
  };
  return (
    <>
      {(kind.actions ?? []).filter((a) => !hide?.includes(a.name)).map((a) => (
        <Button key={a.name} title={a.summary} disabled={busy === a.name} aria-busy={busy === a.name} onClick={() => void run(a)}>
          {a.name.charAt(0).toUpperCase() + a.name.slice(1)}
        </Button>
      ))}
    </>
  );
}

export function ObjectDetail({ kind, project, name, listPath, editPath, summary, tabs, extraActions, hideActions }: Props) {
  const { t, lang } = useI18n();
  const navigate = useNavigate();
  const { obj, error, deleted } = useLiveObject(kind, project, name);
  const proj = kind.scope === 'project' ? project : undefined;
  const yamlText = useMemo(() => (obj ? stringify(obj, { lineWidth: 0 }) : ''), [obj]);

  if (error) return <Alert type="error" showIcon message={errorMessage(error)} />;
  if (!obj) return <PageSkeleton />;

  const remove = async () => {
    try {
      await api.del(resourcePath(kind.plural, proj, name));
      message.success(t('generic.detail.deleted', { name }));
      navigate(listPath);
    } catch (e) {
      message.error(errorMessage(e));
    }
  };

  const m = obj.metadata;
  const overview = (
    <>
      <Descriptions bordered size="small" column={2} style={{ marginBottom: 16 }}>
        <Descriptions.Item label={t('generic.table.name')}>{m.name}</Descriptions.Item>
        {m.project && <Descriptions.Item label={t('generic.table.project')}>{m.project}</Descriptions.Item>}
        <Descriptions.Item label={t('generic.detail.owner')}>{m.owner}</Descriptions.Item>
        <Descriptions.Item label={t('generic.detail.created')}>
          <Time value={m.created} /> ({age(m.created)})
        </Descriptions.Item>
        <Descriptions.Item label={t('generic.form.labels')}>
          {Object.entries(m.labels ?? {}).map(([k, v]) => (
            <Tag key={k}>{`${k}=${v}`}</Tag>
          ))}
        </Descriptions.Item>
        <Descriptions.Item label={t('generic.detail.resourceVersion')}>{m.resourceVersion}</Descriptions.Item>
      </Descriptions>
      <FieldsView title={t('generic.form.spec')} value={obj.spec} />
      {obj.status && <FieldsView title={t('generic.detail.status')} value={obj.status} />}
    </>
  );

  return (
    <div>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <Space>
          <Typography.Title level={3} style={{ margin: 0 }}>
            {name}
          </Typography.Title>
          <Tag>{kindLabel(kind, lang, t, false)}</Tag>
          {typeof obj.status?.phase === 'string' && <PhaseTag phase={obj.status.phase} />}
        </Space>
        <Space wrap>
          {extraActions?.(obj)}
          <ActionButtons kind={kind} project={project} obj={obj} hide={hideActions} />
          {editPath && <Button onClick={() => navigate(editPath)}>{t('generic.detail.edit')}</Button>}
          <Popconfirm
            title={t('generic.detail.confirmDelete', { name })}
            okText={t('generic.detail.delete')}
            cancelText={t('generic.form.cancel')}
            okButtonProps={{ danger: true }}
            onConfirm={remove}
          >
            <Button danger>{t('generic.detail.delete')}</Button>
          </Popconfirm>
        </Space>
      </Space>
      {deleted && <Alert type="warning" showIcon message={t('generic.detail.gone')} style={{ marginBottom: 12 }} />}
      {summary?.(obj)}
      <Tabs
        items={[
          { key: 'overview', label: t('generic.detail.overview'), children: overview },
          ...(tabs?.(obj) ?? []),
          {
            key: 'events',
            label: t('generic.detail.events'),
            children: <EventsTable path={resourcePath(kind.plural, proj, name, 'events')} hideObject />,
          },
          {
            key: 'yaml',
            label: t('generic.form.modeYaml'),
            children: (
              <pre aria-label={t('generic.form.modeYaml')} style={{ background: '#fafafa', padding: 12, fontSize: 12, borderRadius: 6, overflow: 'auto' }}>
                {yamlText}
              </pre>
            ),
          },
        ]}
      />
    </div>
  );
}
