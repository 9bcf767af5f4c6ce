// phase.tsx — an experiment's or a trial's phase as a coloured tag.
import { Tag } from 'antd';
import { useT } from '@cube/console-sdk';

const COLOR: Record<string, string> = {
  Pending: 'default', Running: 'processing', Succeeded: 'success', Failed: 'error',
  EarlyStopped: 'warning', Stopped: 'default',
};

export function PhaseTag({ phase }: { phase?: string }) {
  const t = useT();
  const p = phase || 'Pending';
  return <Tag color={COLOR[p] ?? 'default'}>{t(`hpsearch.phase.${p}`)}</Tag>;
}

/** A value for a table cell: 4 significant digits, "—" when none. */
export const fmt = (v: unknown) =>
  typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toPrecision(4)) : v === null || v === undefined ? '—' : String(v);
