/* cron.h — cron expressions and time zones for pipeline schedules.
 *
 * Contract (the pipeline plugin relies on it):
 *  - pl_cron_parse: 5 fields (minute hour day-of-month month day-of-week)
 *    with lists, ranges, steps (a-b/n, * /n), month names JAN..DEC and day
 *    names SUN..SAT (any case), 7 meaning Sunday, and the aliases @yearly,
 *    @annually, @monthly, @weekly, @daily, @midnight, @hourly. When both
 *    day fields are restricted a day matches either (Vixie cron). Returns
 *    NULL with a message naming the bad field in err.
 *  - pl_tz_load: an IANA zone ("Asia/Shanghai", "UTC") from the system's
 *    zoneinfo files ($TZDIR, else /usr/share/zoneinfo; TZif v1-v3, read
 *    without touching the process's TZ or localtime state); NULL with a
 *    message in err.
 *  - pl_cron_next: the first tick strictly after `after` (Unix seconds),
 *    matched against wall-clock time in tz (NULL: UTC); -1 when there is
 *    none in the next 5 years (e.g. Feb 30). DST behaviour is documented in
 *    cron_next.c: a wall-clock time skipped by a spring-forward change
 *    fires shifted forward by the gap (02:30 -> 03:30); one repeated by a
 *    fall-back change fires once, unless the hour field is '*'. Ticks are
 *    whole minutes; `after` may have seconds.
 *  - pl_tz_day_start: the first instant of the civil day y-m-d in tz
 *    (NULL: UTC), i.e. of its local midnight; where a change skips
 *    midnight, the first instant after the gap. m 1..12, d 1..31 (d past
 *    the month's end rolls over, so d+1 of the last day is the next day).
 * Objects are immutable after creation and safe to share between threads.
 */
#ifndef PL_CRON_H
#define PL_CRON_H

#include <stddef.h>
#include <stdint.h>

typedef struct pl_cron pl_cron;
typedef struct pl_tz pl_tz;

pl_cron *pl_cron_parse(const char *expr, char *err, size_t errlen);
void pl_cron_free(pl_cron *c);

pl_tz *pl_tz_load(const char *name, char *err, size_t errlen);
void pl_tz_free(pl_tz *tz);

int64_t pl_cron_next(const pl_cron *c, const pl_tz *tz, int64_t after);

int64_t pl_tz_day_start(const pl_tz *tz, int64_t y, int m, int d);

#endif
