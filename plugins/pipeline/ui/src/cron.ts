// cron.ts — a first check of a schedule before the server's (which is the
// judge: it answers 422 naming the field). "once", an @alias, or five
// fields of digits, names, *, lists, ranges and steps.
const ALIASES = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
const FIELD = /^(\*|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/\d+)?(,(\*|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/\d+)?)*$/;

export function scheduleError(s: string): string | null {
  const v = s.trim();
  if (v === '' || v === 'once') return null;
  if (v.startsWith('@')) return ALIASES.includes(v.toLowerCase()) ? null : 'pipelines.schedule.badAlias';
  const fields = v.split(/\s+/);
  if (fields.length !== 5) return 'pipelines.schedule.fiveFields';
  return fields.every((f) => FIELD.test(f)) ? null : 'pipelines.schedule.badField';
}
