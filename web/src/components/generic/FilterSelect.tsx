// FilterSelect — the clearable select of a list's filter bar: one value of
// a few strings, or none (cleared: undefined). Its label is both the
// placeholder and the accessible name.

import { Select } from 'antd';

interface Props {
  label: string;
  value: string | undefined;
  onChange: (value: string | undefined) => void;
  values: readonly string[];
}

export function FilterSelect({ label, value, onChange, values }: Props) {
  return (
    <Select
      aria-label={label}
      placeholder={label}
      allowClear
      value={value}
      onChange={onChange}
      style={{ width: 150 }}
      options={values.map((v) => ({ value: v, label: v }))}
    />
  );
}
