// ResourceEditor — create or edit an object of any kind: a form generated
// from the kind's schema, or its YAML, switchable either way. It POSTs (new)
// or PUTs (edit, with the resourceVersion it read) and puts the server's
// validation errors on the field they name; what no field shows goes above
// the form, with the server's message.

import { useMemo, useState } from 'react';
import { Alert, Button, Form, Input, Segmented, Space } from 'antd';
import { api, ApiError, errorMessage, resourcePath } from '../../api/client';
import type { CubeObject, KindInfo } from '../../api/types';
import { useT } from '../../i18n';
import './messages';
import { fieldKind, fromFormValues, toFormValues, defaultsFor, type JsonSchema } from './schema';
import { resolveField } from './fieldPath';
import { ContainerErrors, ObjectFields, SchemaField, pathKey } from './SchemaForm';
import { specSchema } from './resources';
import { lineOfField, objectToYaml, yamlToObject } from './yamlText';

/** The schema of the whole object as the form edits it (metadata + spec). */
export function editorSchema(kind: KindInfo): JsonSchema {
  return {
    type: 'object',
    properties: {
      metadata: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', maxLength: 63 },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
      spec: specSchema(kind),
    },
  };
}

/** The object a new form starts from: schema defaults. */
export function newObject(kind: KindInfo): CubeObject {
  return { metadata: { name: '' }, spec: (defaultsFor(specSchema(kind)) as Record<string, unknown>) ?? {} };
}

interface Props {
  kind: KindInfo;
  project?: string;
  /** The object to edit; absent: create a new one. */
  initial?: CubeObject;
  onSaved(obj: CubeObject): void;
  onCancel?(): void;
}

/** Strips the "spec.x: " the server puts before a field's message. */
function bareMessage(field: string, message: string): string {
  return message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message;
}

export function ResourceEditor({ kind, project, initial, onSaved, onCancel }: Props) {
  const t = useT();
  const [form] = Form.useForm();
  const schema = useMemo(() => editorSchema(kind), [kind]);
  const start = useMemo(() => initial ?? newObject(kind), [initial, kind]);
  const [mode, setMode] = useState<'form' | 'yaml'>('form');
  const [yamlText, setYamlText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [containerErrors, setContainerErrors] = useState<Record<string, string[]>>({});
  const [saving, setSaving] = useState(false);
  const editing = !!initial;
  const specKind = fieldKind(specSchema(kind));

  /** The object the form describes now (throws on a bad JSON field). */
  const fromForm = (): CubeObject => {
    const v = fromFormValues(schema, form.getFieldsValue(true)) as CubeObject;
    return {
      apiVersion: 'cube/v1',
      kind: kind.kind,
      metadata: { ...start.metadata, ...v?.metadata, labels: v?.metadata?.labels ?? {} },
      spec: v?.spec ?? {},
    };
  };

  const switchMode = (m: 'form' | 'yaml') => {
    setError(null);
    try {
      if (m === 'yaml') setYamlText(objectToYaml(fromForm()));
      else {
        const obj = yamlToObject(yamlText);
        form.resetFields();
        form.setFieldsValue(toFormValues(schema, { metadata: obj.metadata ?? {}, spec: obj.spec ?? {} }) as object);
      }
      setMode(m);
    } catch (e) {
      setError(t('generic.form.yamlInvalid', { message: errorMessage(e) }));
    }
  };

  const showServerError = (e: unknown) => {
    if (!(e instanceof ApiError)) {
      setError(errorMessage(e));
      return;
    }
    if (e.status === 409 && editing) {
      setError(`${e.message} — ${t('generic.form.conflict')}`);
      return;
    }
    if (e.field && mode === 'yaml') {
      const line = lineOfField(yamlText, e.field);
      setError(line ? `${e.message} (${t('generic.form.yamlLine', { line })})` : e.message);
      return;
    }
    setError(e.message);
    if (!e.field) return;
    const hit = resolveField(e.field, schema, form.getFieldsValue(true));
    if (!hit) return;
    const msg = bareMessage(e.field, e.message);
    const k = fieldKind(hit.schema);
    if (k === 'object' || k === 'array' || k === 'map') setContainerErrors({ [pathKey(hit.name)]: [msg] });
    else form.setFields([{ name: hit.name, errors: [msg] }]);
  };

  const submit = async () => {
    setError(null);
    setContainerErrors({});
    let obj: CubeObject;
    try {
      if (mode === 'yaml') {
        const doc = yamlToObject(yamlText);
        obj = { ...doc, apiVersion: 'cube/v1', kind: kind.kind, metadata: { ...start.metadata, ...doc.metadata } } as CubeObject;
      } else {
        await form.validateFields();
        obj = fromForm();
      }
    } catch (e) {
      if (e instanceof Error) setError(mode === 'yaml' ? t('generic.form.yamlInvalid', { message: e.message }) : e.message);
      return;
    }
    setSaving(true);
    try {
      const saved = editing
        ? await api.put<CubeObject>(resourcePath(kind.plural, project, obj.metadata.name), obj)
        : await api.post<CubeObject>(resourcePath(kind.plural, project), obj);
      onSaved(saved);
    } catch (e) {
      showServerError(e);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div>
      <Segmented
        aria-label={t('generic.form.mode')}
        value={mode}
        onChange={(v) => switchMode(v as 'form' | 'yaml')}
        options={[
          { value: 'form', label: t('generic.form.modeForm') },
          { value: 'yaml', label: t('generic.form.modeYaml') },
        ]}
        style={{ marginBottom: 16 }}
      />
      {error && <Alert type="error" showIcon message={t('generic.form.failed')} description={error} style={{ marginBottom: 16 }} role="alert" />}
      <ContainerErrors.Provider value={containerErrors}>
        <Form
          form={form}
          layout="vertical"
          name={`edit-${kind.plural}`}
          initialValues={toFormValues(schema, { metadata: start.metadata, spec: start.spec }) as object}
          onFinish={submit}
          style={{ display: mode === 'form' ? undefined : 'none', maxWidth: 880 }}
        >
          <Form.Item
            name={['metadata', 'name']}
            label={t('generic.form.name')}
            required
            extra={t('generic.form.nameHelp')}
            rules={[{ required: true, message: t('generic.form.required', { field: t('generic.form.name') }) }]}
          >
            <Input disabled={editing} maxLength={63} />
          </Form.Item>
          <SchemaField
            name={['metadata', 'labels']}
            path={['metadata', 'labels']}
            schema={{ type: 'object', additionalProperties: { type: 'string' } }}
            label={t('generic.form.labels')}
          />
          {specKind === 'object' ? (
            <ObjectFields schema={specSchema(kind)} name={['spec']} path={['spec']} />
          ) : (
            <SchemaField name={['spec']} path={['spec']} schema={specSchema(kind)} label={t('generic.form.spec')} />
          )}
        </Form>
      </ContainerErrors.Provider>
      {mode === 'yaml' && (
        <Input.TextArea
          aria-label={t('generic.form.yaml')}
          value={yamlText}
          onChange={(e) => setYamlText(e.target.value)}
          autoSize={{ minRows: 16, maxRows: 40 }}
          spellCheck={false}
          style={{ fontFamily: 'monospace', maxWidth: 880 }}
        />
      )}
      {/* disabled, not antd's `loading`: its spinner adds "loading" to the
          button's accessible name and can linger after the request ends. */}
      <Space style={{ marginTop: 16 }}>
        <Button type="primary" disabled={saving} aria-busy={saving} onClick={() => (mode === 'form' ? form.submit() : void submit())}>
          {editing ? t('generic.form.save') : t('generic.form.create')}
        </Button>
        {onCancel && <Button onClick={onCancel}>{t('generic.form.cancel')}</Button>}
      </Space>
    </div>
  );
}
