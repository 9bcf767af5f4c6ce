// format.ts — how the console shows times and sizes.

/** A time given as epoch seconds or an ISO string, in the browser's zone. */
export function formatTime(v: number | string | undefined | null): string {
  if (v === undefined || v === null || v === '') return '—';
  const d = typeof v === 'number' ? new Date(v * 1000) : new Date(v);
  if (Number.isNaN(d.getTime())) return String(v);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
