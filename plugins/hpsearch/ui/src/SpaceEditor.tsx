// SpaceEditor — the search space as a table of parameters (name, _type, the
// fields of its _value) or, in JSON mode, NNI's JSON itself (nested
// choices). Switching modes carries the space over; the rows mode is
// refused for a space it cannot show.
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Alert, Button, Input, Segmented, Select, Space, Table, Typography } from 'antd';
import { useState } from 'react';
import { useT } from '@cube/console-sdk';
import { emptyRow, fieldsOf, type ParamType, type Row, rowsToSpace, spaceToRows, TYPES } from './spaceRows';
import type { SearchSpace } from './types';

export interface SpaceValue {
  mode: 'rows' | 'json';
  rows: Row[];
  json: string;
}

export const initialSpace: SpaceValue = {
  mode: 'rows',
  rows: [{ name: 'lr', type: 'loguniform', values: ['0.0001', '0.1'] }],
  json: '',
};

/** The space the editor holds, or the key of what is wrong with it. */
export function spaceOf(v: SpaceValue): { space?: SearchSpace; error?: string; row?: number } {
  if (v.mode === 'json') {
    try {
      const s = JSON.parse(v.json);
      if (!s || typeof s !== 'object' || Array.isArray(s)) return { error: 'hpsearch.space.error.object' };
      return { space: s };
    } catch {
      return { error: 'hpsearch.space.error.json' };
    }
  }
  const { space, errors } = rowsToSpace(v.rows);
  if (errors.length) return { error: `hpsearch.space.error.${errors[0].key}`, row: errors[0].row };
  if (!Object.keys(space).length) return { error: 'hpsearch.space.error.empty' };
  return { space };
}

export function SpaceEditor({ value, onChange }: { value: SpaceValue; onChange(v: SpaceValue): void }) {
  const t = useT();
  const [note, setNote] = useState<string | null>(null);
  const setRow = (i: number, r: Partial<Row>) =>
    onChange({ ...value, rows: value.rows.map((x, k) => (k === i ? { ...x, ...r } : x)) });
  const switchMode = (mode: 'rows' | 'json') => {
    setNote(null);
    if (mode === 'json') {
      onChange({ ...value, mode, json: JSON.stringify(rowsToSpace(value.rows).space, null, 2) });
      return;
    }
    const parsed = spaceOf(value);
    const rows = parsed.space ? spaceToRows(parsed.space) : null;
    if (!rows) {
      setNote(t('hpsearch.space.noRows'));
      return;
    }
    onChange({ ...value, mode, rows });
  };
  const problem = spaceOf(value);

  return (
    <Space direction="vertical" style={{ width: '100%' }}>
      <Segmented value={value.mode} onChange={(m) => switchMode(m as 'rows' | 'json')}
        options={[{ label: t('hpsearch.space.rows'), value: 'rows' }, { label: 'JSON', value: 'json' }]} />
      {note && <Alert type="info" message={note} />}
      {value.mode === 'json' ? (
        <Input.TextArea aria-label={t('hpsearch.field.searchSpace')} rows={10} value={value.json}
          style={{ fontFamily: 'monospace' }} onChange={(e) => onChange({ ...value, json: e.target.value })} />
      ) : (
        <Table<Row & { key: number }> size="small" pagination={false}
          dataSource={value.rows.map((r, key) => ({ ...r, key }))}
          columns={[
            { title: t('hpsearch.space.name'), key: 'name', width: 180, render: (_, r) =>
              <Input aria-label={t('hpsearch.space.name')} value={r.name} status={problem.row === r.key ? 'error' : undefined}
                onChange={(e) => setRow(r.key, { name: e.target.value })} /> },
            { title: '_type', key: 'type', width: 160, render: (_, r) =>
              <Select aria-label="_type" value={r.type} style={{ width: '100%' }} options={TYPES.map((x) => ({ value: x, label: x }))}
                onChange={(type: ParamType) => setRow(r.key, { type, values: fieldsOf(type).map((_, k) => r.values[k] ?? '') })} /> },
            { title: '_value', key: 'value', render: (_, r) => (
              <Space wrap>
                {fieldsOf(r.type).map((f, k) => (
                  <Input key={f} aria-label={f} placeholder={t(`hpsearch.space.field.${f}`)} value={r.values[k] ?? ''}
                    style={{ width: f === 'options' ? 320 : 110 }}
                    onChange={(e) => setRow(r.key, { values: fieldsOf(r.type).map((_, j) => (j === k ? e.target.value : r.values[j] ?? '')) })} />
                ))}
              </Space>) },
            { key: 'remove', width: 48, render: (_, r) =>
              <Button aria-label={t('hpsearch.space.remove')} icon={<DeleteOutlined />} size="small"
                onClick={() => onChange({ ...value, rows: value.rows.filter((_, k) => k !== r.key) })} /> },
          ]} />
      )}
      {value.mode === 'rows' && (
        <Button icon={<PlusOutlined />} onClick={() => onChange({ ...value, rows: [...value.rows, emptyRow()] })}>
          {t('hpsearch.space.add')}
        </Button>
      )}
      {problem.error && <Typography.Text type="danger">{t(problem.error)}</Typography.Text>}
      <Typography.Text type="secondary">{t('hpsearch.space.help')}</Typography.Text>
    </Space>
  );
}
