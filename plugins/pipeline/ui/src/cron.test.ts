import { scheduleError } from './cron';

it('accepts once, aliases and five fields; names what is wrong otherwise', () => {
  for (const ok of ['once', '', '@daily', '*/15 * * * *', '0 9 * * MON-FRI', '0 0 1,15 JAN *', '5 4 * * 7'])
    expect(scheduleError(ok)).toBeNull();
  expect(scheduleError('@sometimes')).toBe('pipelines.schedule.badAlias');
  expect(scheduleError('* * *')).toBe('pipelines.schedule.fiveFields');
  expect(scheduleError('* * * * ?')).toBe('pipelines.schedule.badField');
});
