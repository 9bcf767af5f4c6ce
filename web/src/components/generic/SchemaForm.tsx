// SchemaForm — antd form items generated from a kind's JSON Schema:
// scalars (string, number, integer, boolean), enums as selects, nested
// objects as fieldsets, arrays and maps as lists with add/remove, simple
// scalar unions as one text input (schema.ts coerces the text back), and
// anything else as JSON text. Labels come from titles or property names,
// help text from descriptions, required marks from `required`.
//
// Items are named by their path in the form's values; inside Form.List
// antd wants names relative to the list row, so each field gets both the
// relative `name` it registers and the absolute `path` used for errors.

import { createContext, useContext, type ReactNode } from 'react';
import { Button, Form, Input, InputNumber, Select, Space, Switch, Typography, type FormListFieldData } from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { useT } from '../../i18n';
import { fieldKind, labelOf, mapValueSchema, unionBranches, type JsonSchema } from './schema';
import type { NamePath } from './fieldPath';

/** Errors of containers (objects, arrays, maps), keyed by their path joined with '.'. */
export const ContainerErrors = createContext<Record<string, string[]>>({});

export function pathKey(path: NamePath): string {
  return path.join('.');
}

interface FieldProps {
  /** Name relative to the enclosing Form.List row (or absolute outside lists). */
  name: NamePath;
  /** Absolute path in the form's values. */
  path: NamePath;
  schema: JsonSchema;
  label: string;
  required?: boolean;
  /** Accessible name when the item shows no label (list rows). */
  ariaLabel?: string;
  disabled?: boolean;
}

function Help({ schema }: { schema: JsonSchema }) {
  return schema.description ? <>{schema.description}</> : null;
}

function ContainerError({ path }: { path: NamePath }) {
  const errs = useContext(ContainerErrors)[pathKey(path)];
  if (!errs?.length) return null;
  return (
    <div role="alert" className="ant-form-item-explain-error" style={{ color: '#ff4d4f' }}>
      {errs.join('; ')}
    </div>
  );
}

/** The input widget of a scalar schema node. */
function scalarWidget(schema: JsonSchema, ariaLabel: string | undefined, required: boolean, disabled?: boolean): ReactNode {
  const kind = fieldKind(schema);
  const common = { 'aria-label': ariaLabel, disabled };
  switch (kind) {
    case 'enum': {
      const opts = (schema.enum ?? [schema.const]).map((v) => ({ value: v as string, label: String(v) }));
      return <Select {...common} options={opts} allowClear={!required} style={{ minWidth: 160 }} />;
    }
    case 'integer':
    case 'number':
      return (
        <InputNumber
          {...common}
          precision={kind === 'integer' ? 0 : undefined}
          min={schema.minimum ?? schema.exclusiveMinimum}
          max={schema.maximum ?? schema.exclusiveMaximum}
          style={{ minWidth: 160 }}
        />
      );
    case 'boolean':
      return <Switch {...common} />;
    case 'text':
      return <Input.TextArea {...common} autoSize={{ minRows: 2, maxRows: 12 }} />;
    case 'json':
      return <Input.TextArea {...common} autoSize={{ minRows: 2, maxRows: 12 }} spellCheck={false} style={{ fontFamily: 'monospace' }} />;
    case 'union': {
      const types = (unionBranches(schema) ?? []).map((b) => b.type ?? 'enum').join(' | ');
      return <Input {...common} placeholder={types} />;
    }
    default:
      return <Input {...common} maxLength={schema.maxLength} />;
  }
}

function ScalarField({ name, schema, label, required, ariaLabel, disabled }: FieldProps) {
  const t = useT();
  const kind = fieldKind(schema);
  const rules = required
    ? [{ required: true, message: t('generic.form.required', { field: label }) }]
    : [];
  return (
    <Form.Item
      name={name}
      label={ariaLabel ? undefined : label}
      required={required}
      rules={rules}
      extra={ariaLabel ? undefined : <Help schema={schema} />}
      valuePropName={kind === 'boolean' ? 'checked' : 'value'}
      style={ariaLabel ? { marginBottom: 0, flex: 1 } : undefined}
    >
      {scalarWidget(schema, ariaLabel, !!required, disabled)}
    </Form.Item>
  );
}

function Fieldset({ label, required, schema, path, children }: { label: string; required?: boolean; schema: JsonSchema; path: NamePath; children: ReactNode }) {
  return (
    <fieldset style={{ border: '1px solid #f0f0f0', borderRadius: 6, padding: '8px 12px', marginBottom: 16 }}>
      <legend style={{ fontSize: 14, width: 'auto', margin: 0, padding: '0 4px', border: 0 }}>
        {required && <span style={{ color: '#ff4d4f', marginRight: 4 }}>*</span>}
        {label}
      </legend>
      {schema.description && (
        <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
          {schema.description}
        </Typography.Paragraph>
      )}
      <ContainerError path={path} />
      {children}
    </fieldset>
  );
}

/** The properties of an object schema as fields under name/path. */
export function ObjectFields({ schema, name, path, disabled }: { schema: JsonSchema; name: NamePath; path: NamePath; disabled?: boolean }) {
  const required = new Set(schema.required ?? []);
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([prop, sub]) => (
        <SchemaField
          key={prop}
          name={[...name, prop]}
          path={[...path, prop]}
          schema={sub}
          label={labelOf(prop, sub)}
          required={required.has(prop)}
          disabled={disabled}
        />
      ))}
    </>
  );
}

/** A list in a fieldset: each row's own items (row), then its remove
 *  button; below them a button that appends newItem(). */
function ListRows({ name, path, schema, label, required, newItem, row }: FieldProps & {
  newItem: () => unknown;
  row: (f: FormListFieldData, i: number) => ReactNode;
}) {
  const t = useT();
  return (
    <Fieldset label={label} required={required} schema={schema} path={path}>
      <Form.List name={name}>
        {(fields, { add, remove }) => (
          <>
            {fields.map((f, i) => (
              <Space key={f.key} align="start" style={{ display: 'flex', marginBottom: 8 }}>
                {row(f, i)}
                <Button
                  icon={<DeleteOutlined aria-hidden />}
                  aria-label={t('generic.form.removeItem', { item: `${label} ${i + 1}` })}
                  onClick={() => remove(f.name)}
                />
              </Space>
            ))}
            <Button type="dashed" icon={<PlusOutlined aria-hidden />} onClick={() => add(newItem())}>
              {t('generic.form.add', { field: label })}
            </Button>
          </>
        )}
      </Form.List>
    </Fieldset>
  );
}

function ArrayField(props: FieldProps) {
  const { path, label } = props;
  const items = props.schema.items ?? { type: 'string' };
  const scalar = !['object', 'array', 'map'].includes(fieldKind(items));
  return (
    <ListRows
      {...props}
      newItem={() => (fieldKind(items) === 'string' ? '' : undefined)}
      row={(f, i) =>
        scalar ? (
          <ScalarField name={[f.name]} path={[...path, i]} schema={items} label={label} ariaLabel={`${label} ${i + 1}`} />
        ) : (
          <div style={{ flex: 1, minWidth: 'min(400px, 100%)' }}>
            <SchemaField name={[f.name]} path={[...path, i]} schema={items} label={`${label} ${i + 1}`} />
          </div>
        )
      }
    />
  );
}

function MapField(props: FieldProps) {
  const t = useT();
  const { path, label } = props;
  const vs = mapValueSchema(props.schema);
  return (
    <ListRows
      {...props}
      newItem={() => ({ key: '', value: undefined })}
      row={(f, i) => (
        <>
          <Form.Item name={[f.name, 'key']} style={{ marginBottom: 0 }}>
            <Input aria-label={t('generic.form.key', { field: label, n: i + 1 })} placeholder={t('generic.form.keyPlaceholder')} />
          </Form.Item>
          <ScalarField
            name={[f.name, 'value']}
            path={[...path, i, 'value']}
            schema={vs}
            label={label}
            ariaLabel={t('generic.form.value', { field: label, n: i + 1 })}
          />
        </>
      )}
    />
  );
}

/** One schema node: dispatches on its kind. */
export function SchemaField(props: FieldProps) {
  const kind = fieldKind(props.schema);
  if (kind === 'object')
    return (
      <Fieldset label={props.label} required={props.required} schema={props.schema} path={props.path}>
        <ObjectFields schema={props.schema} name={props.name} path={props.path} disabled={props.disabled} />
      </Fieldset>
    );
  if (kind === 'array') return <ArrayField {...props} />;
  if (kind === 'map') return <MapField {...props} />;
  return <ScalarField {...props} />;
}
