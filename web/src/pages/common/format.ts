// format.ts — how the console shows times and sizes. Times are shown in
// the viewer's own time zone; the UTC value goes in the hover title
// (components/generic/Time.tsx), and a pipeline's zone beside it where
// that zone decides when things run.

function toDate(v: number | string | undefined | null): Date | null {
  if (v === undefined || v === null || v === '') return null;
  const d = typeof v === 'number' ? new Date(v * 1000) : new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A time given as epoch seconds or an ISO string, in the browser's zone
 *  ("2026-11-25 10:30"); "—" when absent, the text itself when unparsable. */
export function formatTime(v: number | string | undefined | null): string {
  const d = toDate(v);
  if (!d) return v === undefined || v === null || v === '' ? '—' : String(v);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The same instant in UTC: "2026-11-25 02:30:00 UTC"; "" when absent. */
export function formatUtc(v: number | string | undefined | null): string {
  const d = toDate(v);
  if (!d) return '';
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC`;
}

/** The instant's wall-clock time in an IANA zone ("2026-11-25 10:30
 *  Asia/Shanghai"); "" when absent or the zone is unknown to the browser. */
export function formatInZone(v: number | string | undefined | null, zone: string): string {
  const d = toDate(v);
  if (!d) return '';
  try {
    const parts = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
    }).formatToParts(d);
    const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
    return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')} ${zone}`;
  } catch {
    return '';
  }
}

/** The viewer's own zone, e.g. "Europe/Berlin" (UTC when unknown). */
export function localZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}
