// KindPages — the generic pages every kind gets: list, detail, create and
// edit, for project kinds under /p/:project/k/:plural and cluster kinds
// under /k/:plural. "new" is the create form (so an object named "new" has
// no generic detail page of its own); ":name/edit" is the edit form.

import { useRef, type ReactNode } from 'react';
import { Alert, Breadcrumb, Button, Space, Typography } from 'antd';
import { Link, useNavigate, useParams } from 'react-router-dom';
import type { CubeObject, KindInfo } from '../../api/types';
import { errorMessage } from '../../api/client';
import { useT } from '../../i18n';
import { PageSkeleton } from '../../shell/PageSkeleton';
import { ResourceTable } from '../../components/generic/ResourceTable';
import { ResourceEditor } from '../../components/generic/ResourceEditor';
import { ObjectDetail, useLiveObject } from '../../components/generic/ObjectDetail';
import { useKind } from '../../components/generic/resources';
import { kindObjectPath } from '../registry';
import './messages';

/** The generic list path of a kind (these pages, not a dedicated one). */
export function genericListPath(k: Pick<KindInfo, 'plural' | 'scope'>, project?: string): string {
  return k.scope === 'project' && project ? `/p/${encodeURIComponent(project)}/k/${k.plural}` : `/k/${k.plural}`;
}

/** Resolves :plural and :project, and renders body once the kind is known. */
function WithKind({ children }: { children: (k: KindInfo, project?: string) => ReactNode }) {
  const t = useT();
  const { plural, project } = useParams();
  const { kind, kinds, error } = useKind(plural);
  if (error) return <Alert type="error" showIcon message={errorMessage(error)} />;
  if (!kinds) return <PageSkeleton />;
  if (!kind) return <Alert type="warning" showIcon message={t('kinds.unknown', { plural: plural ?? '' })} />;
  if (kind.scope === 'project' && !project) return <Alert type="info" showIcon message={t('kinds.needProject', { kind: kind.kind })} />;
  return <>{children(kind, kind.scope === 'project' ? project : undefined)}</>;
}

function Crumbs({ kind, project, name, last }: { kind: KindInfo; project?: string; name?: string; last?: string }) {
  const items: { title: ReactNode }[] = [];
  if (project) items.push({ title: project });
  items.push({ title: <Link to={genericListPath(kind, project)}>{kind.plural}</Link> });
  if (name) items.push({ title: last ? <Link to={`${genericListPath(kind, project)}/${encodeURIComponent(name)}`}>{name}</Link> : name });
  if (last) items.push({ title: last });
  return <Breadcrumb items={items} style={{ marginBottom: 12 }} />;
}

export function KindListPage() {
  const t = useT();
  const navigate = useNavigate();
  return (
    <WithKind>
      {(kind, project) => (
        <div>
          <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 8 }}>
            <div>
              <Typography.Title level={3} style={{ margin: 0 }}>
                {kind.kind}
              </Typography.Title>
              <Typography.Text type="secondary">{kind.description}</Typography.Text>
            </div>
            <Button type="primary" onClick={() => navigate(`${genericListPath(kind, project)}/new`)}>
              {t('kinds.create', { kind: kind.kind })}
            </Button>
          </Space>
          <ResourceTable kind={kind} project={project} />
        </div>
      )}
    </WithKind>
  );
}

/** Where an object's page is after saving: its dedicated page if it has one. */
function objectPage(kind: KindInfo, obj: CubeObject, project?: string): string {
  return kindObjectPath(kind, obj.metadata.name, project) ?? `${genericListPath(kind, project)}/${obj.metadata.name}`;
}

export function KindNewPage() {
  const t = useT();
  const navigate = useNavigate();
  return (
    <WithKind>
      {(kind, project) => (
        <div>
          <Crumbs kind={kind} project={project} name={t('kinds.new', { kind: kind.kind })} />
          <Typography.Title level={3}>{t('kinds.new', { kind: kind.kind })}</Typography.Title>
          <ResourceEditor
            kind={kind}
            project={project}
            onSaved={(o) => navigate(objectPage(kind, o, project))}
            onCancel={() => navigate(genericListPath(kind, project))}
          />
        </div>
      )}
    </WithKind>
  );
}

function EditBody({ kind, project, name }: { kind: KindInfo; project?: string; name: string }) {
  const t = useT();
  const navigate = useNavigate();
  const { obj: live, error } = useLiveObject(kind, project, name);
  // Edit the version first read: a later change by someone else must give
  // 409 on save, not be overwritten silently.
  const snap = useRef<CubeObject | null>(null);
  if (!snap.current && live) snap.current = live;
  const obj = snap.current;
  if (error) return <Alert type="error" showIcon message={errorMessage(error)} />;
  if (!obj) return <PageSkeleton />;
  return (
    <div>
      <Crumbs kind={kind} project={project} name={name} last={t('generic.detail.edit')} />
      <Typography.Title level={3}>{t('kinds.edit', { name })}</Typography.Title>
      <ResourceEditor
        key={obj.metadata.uid}
        kind={kind}
        project={project}
        initial={obj}
        onSaved={(o) => navigate(objectPage(kind, o, project))}
        onCancel={() => navigate(-1)}
      />
    </div>
  );
}

export function KindEditPage() {
  const { name = '' } = useParams();
  return <WithKind>{(kind, project) => <EditBody kind={kind} project={project} name={name} />}</WithKind>;
}

export function KindDetailPage() {
  const { name = '' } = useParams();
  return (
    <WithKind>
      {(kind, project) => (
        <div>
          <Crumbs kind={kind} project={project} name={name} />
          <ObjectDetail
            kind={kind}
            project={project}
            name={name}
            listPath={genericListPath(kind, project)}
            editPath={`${genericListPath(kind, project)}/${encodeURIComponent(name)}/edit`}
          />
        </div>
      )}
    </WithKind>
  );
}
