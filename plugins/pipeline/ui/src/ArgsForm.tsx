// ArgsForm — a task's args edited in a form generated from its template's
// args schema: int/float -> text box checked as a number (so a "{{ … }}"
// template fits), bool -> switch, enum -> select, multiple -> multi-select,
// text/dict/list/json -> text area, others -> text box. `describe` is the
// help under a field, `require` marks it required, `range` and `choice`
// are checked as the user types. Every change reports the typed args and
// the fields in error; serverErrors (flag -> message, e.g. from a 422) are
// shown on their fields until the field changes. With `upstream` (the tasks
// before this one), a text or number field offers the OutputPicker, which
// inserts {{ tasks.<task>.outputs.<key> }} into it.
import { Form, Input, Select, Switch, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useT } from '@cube/console-sdk';
import { argFields, argsFromForm, formValues, parseValue, type ArgError, type ArgField } from './argsSchema';
import { OutputPicker } from './OutputPicker';
import { withRef, type UpstreamOutputs } from './outputRefs';
import type { ArgsSchema } from './types';

/** Fields a reference fits in: free text (a number field takes one too). */
const TAKES_REF = new Set(['input', 'textarea', 'json', 'number']);

export interface ArgsFormProps {
  schema: ArgsSchema | undefined;
  args: Record<string, unknown> | undefined;
  onChange(args: Record<string, unknown>, errors: Record<string, ArgError>): void;
  serverErrors?: Record<string, string>;
  disabled?: boolean;
  upstream?: UpstreamOutputs[];
}

function widget(f: ArgField, disabled?: boolean) {
  const placeholder = f.spec.placeholder || (f.spec.default !== undefined && f.spec.default !== '' ? String(f.spec.default) : undefined);
  const options = (f.spec.choice ?? []).map((c) => ({ value: c, label: String(c) }));
  switch (f.kind) {
    case 'switch':
      return <Switch disabled={disabled} />;
    case 'select':
      return <Select options={options} disabled={disabled} allowClear={!f.required} />;
    case 'multiselect':
      return <Select mode="multiple" options={options} disabled={disabled} />;
    case 'textarea':
      return <Input.TextArea autoSize={{ minRows: 2, maxRows: 12 }} placeholder={placeholder} disabled={disabled} />;
    case 'json':
      return (
        <Input.TextArea autoSize={{ minRows: 2, maxRows: 12 }} placeholder={placeholder ?? '{}'} disabled={disabled}
          style={{ fontFamily: 'monospace' }} />
      );
    case 'number':
      return <Input inputMode="decimal" placeholder={placeholder} disabled={disabled} />;
    default:
      return <Input placeholder={placeholder} disabled={disabled} />;
  }
}

export function ArgsForm({ schema, args, onChange, serverErrors, disabled, upstream = [] }: ArgsFormProps) {
  const t = useT();
  const [form] = Form.useForm();
  const fields = useMemo(() => argFields(schema), [schema]);
  const initial = useMemo(() => formValues(schema, args ?? {}), [schema]); // eslint-disable-line
  const [touched, setTouched] = useState<Set<string>>(new Set());
  useEffect(() => setTouched(new Set()), [serverErrors]);

  if (!fields.length) return <Typography.Text type="secondary">{t('pipelines.args.none')}</Typography.Text>;
  const groups = [...new Set(fields.map((f) => f.group))];
  const message = (e: ArgError) => t(e.key, e.vars);
  const insert = (flag: string, ref: string) => {
    form.setFieldValue(flag, withRef(form.getFieldValue(flag), ref));
    setTouched((s) => new Set([...s, flag]));
    void form.validateFields([flag]).catch(() => undefined);
    const { args: out, errors } = argsFromForm(schema, form.getFieldsValue());
    onChange(out, errors);
  };

  return (
    <Form
      form={form}
      layout="vertical"
      size="small"
      initialValues={initial}
      onValuesChange={(changed, all) => {
        setTouched((s) => new Set([...s, ...Object.keys(changed)]));
        const { args: out, errors } = argsFromForm(schema, all);
        onChange(out, errors);
      }}
    >
      {groups.map((g) => (
        <section key={g} aria-label={g}>
          <Typography.Title level={5} style={{ marginTop: 8 }}>{g}</Typography.Title>
          {fields.filter((f) => f.group === g).map((f) => {
            const server = !touched.has(f.flag) ? serverErrors?.[f.flag] : undefined;
            const picker = !disabled && f.spec.editable !== 0 && TAKES_REF.has(f.kind) && upstream.length > 0
              ? <OutputPicker upstream={upstream} field={f.flag} onPick={(ref) => insert(f.flag, ref)} /> : null;
            return (
              <Form.Item
                key={f.flag}
                name={f.flag}
                label={f.spec.label ? `${f.spec.label} (${f.flag})` : f.flag}
                required={f.required}
                valuePropName={f.kind === 'switch' ? 'checked' : 'value'}
                extra={picker || f.spec.describe ? <>{f.spec.describe}{f.spec.describe && picker ? ' ' : ''}{picker}</> : undefined}
                validateStatus={server ? 'error' : undefined}
                help={server}
                rules={[{
                  validator: async (_, v) => {
                    const [, err] = parseValue(f, v);
                    if (err) throw new Error(message(err));
                  },
                }]}
              >
                {widget(f, disabled || f.spec.editable === 0)}
              </Form.Item>
            );
          })}
        </section>
      ))}
    </Form>
  );
}
