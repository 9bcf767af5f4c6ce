// Time — an instant as people read it: the viewer's local time, with the
// UTC value (and, given `zone`, the time in that zone, e.g. a pipeline's)
// in the hover title. `relative` shows the age ("5m") instead, with the
// local and UTC times on hover. Absent values show "—".
import { Typography } from 'antd';
import { formatInZone, formatTime, formatUtc } from '../../pages/common/format';
import { age } from './resources';

export interface TimeProps {
  value: number | string | undefined | null;
  /** An IANA zone whose wall-clock time matters too (a schedule's). */
  zone?: string;
  relative?: boolean;
}

export function timeTitle(value: TimeProps['value'], zone?: string): string {
  const utc = formatUtc(value);
  const inZone = zone && zone !== 'UTC' ? formatInZone(value, zone) : '';
  return [inZone, utc].filter(Boolean).join(' · ');
}

export function Time({ value, zone, relative }: TimeProps) {
  const utc = formatUtc(value);
  if (!utc) return <Typography.Text type="secondary">{value ? String(value) : '—'}</Typography.Text>;
  const iso = typeof value === 'number' ? new Date(value * 1000).toISOString() : new Date(value!).toISOString();
  const local = formatTime(value);
  const title = relative ? `${local} · ${timeTitle(value, zone)}` : timeTitle(value, zone);
  return (
    <time dateTime={iso} title={title} data-utc={utc} style={{ whiteSpace: 'nowrap' }}>
      {relative ? age(iso) : local}
    </time>
  );
}
