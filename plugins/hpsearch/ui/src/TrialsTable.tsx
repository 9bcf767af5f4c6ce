// TrialsTable — an experiment's trials: number, phase, final value
// (sortable), one column per parameter, duration, source; rows can be
// selected for the curves chart, and each links to its log.
import { Button, Table, Tooltip } from 'antd';
import { useT } from '@cube/console-sdk';
import { paramColumns, paramOf } from './charts';
import { fmt, PhaseTag } from './phase';
import type { Direction, Trial } from './types';

export function TrialsTable({ trials, direction, selected, onSelect, onLogs }: {
  trials: Trial[];
  direction: Direction;
  selected: number[];
  onSelect(n: number[]): void;
  onLogs(t: Trial): void;
}) {
  const t = useT();
  const cols = paramColumns(trials);
  const byValue = (a: Trial, b: Trial) => (a.value ?? -Infinity) - (b.value ?? -Infinity);
  return (
    <Table<Trial> rowKey="trial" size="small" dataSource={trials} pagination={{ pageSize: 50 }} scroll={{ x: true }}
      rowSelection={{ selectedRowKeys: selected, onChange: (keys) => onSelect(keys as number[]) }}
      columns={[
        { title: '#', dataIndex: 'trial', key: 'trial', sorter: (a, b) => a.trial - b.trial, defaultSortOrder: 'ascend' },
        { title: t('hpsearch.field.phase'), key: 'phase', render: (_, r) =>
          r.message ? <Tooltip title={r.message}><span><PhaseTag phase={r.phase} /></span></Tooltip> : <PhaseTag phase={r.phase} /> },
        { title: t('hpsearch.field.value'), key: 'value', sorter: byValue,
          defaultSortOrder: undefined, sortDirections: direction === 'maximize' ? ['descend', 'ascend'] : ['ascend', 'descend'],
          render: (_, r) => fmt(r.value) },
        ...cols.map((c) => ({ title: c, key: `p:${c}`, render: (_: unknown, r: Trial) => fmt(paramOf(r, c)) })),
        { title: t('hpsearch.field.steps'), key: 'steps', render: (_, r) => r.lastStep || '—' },
        { title: t('hpsearch.field.duration'), key: 'duration', render: (_, r) =>
          typeof r.durationSeconds === 'number' ? `${r.durationSeconds} s` : '—' },
        { title: t('hpsearch.field.source'), key: 'source', render: (_, r) => t(`hpsearch.source.${r.source}`) },
        { title: t('hpsearch.field.logs'), key: 'logs', render: (_, r) =>
          <Button size="small" type="link" onClick={() => onLogs(r)}>{t('hpsearch.action.logs')}</Button> },
      ]} />
  );
}
