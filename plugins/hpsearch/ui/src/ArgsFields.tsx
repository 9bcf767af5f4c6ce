// ArgsFields — one field per argument of the chosen tuner or assessor
// (tunerArgs.ts); an empty field leaves the plugin's default.
import { Checkbox, Input, Space, Typography } from 'antd';
import type { ArgSpec } from './tunerArgs';

export function ArgsFields({ specs, values, onChange }: {
  specs: ArgSpec[];
  values: Record<string, string | boolean | undefined>;
  onChange(v: Record<string, string | boolean | undefined>): void;
}) {
  if (!specs.length) return null;
  return (
    <Space wrap>
      {specs.map((s) => s.kind === 'bool' ? (
        <Checkbox key={s.name} checked={values[s.name] === undefined ? Boolean(s.def) : values[s.name] === true}
          onChange={(e) => onChange({ ...values, [s.name]: e.target.checked })}>{s.name}</Checkbox>
      ) : (
        <Space key={s.name} direction="vertical" size={0}>
          <Typography.Text type="secondary">{s.name}{s.required ? ' *' : ''}</Typography.Text>
          <Input aria-label={s.name} style={{ width: 150 }} inputMode="decimal"
            placeholder={s.def === undefined ? '' : String(s.def)} value={(values[s.name] as string) ?? ''}
            onChange={(e) => onChange({ ...values, [s.name]: e.target.value })} />
        </Space>
      ))}
    </Space>
  );
}
