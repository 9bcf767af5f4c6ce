/* cron_next.c — the next tick of a cron expression in a time zone.
 *
 * Ticks are wall-clock minutes in the zone. How they map to instants:
 *  - An ordinary wall-clock time fires once, at its instant.
 *  - A wall-clock time that does not exist (skipped by a spring-forward
 *    transition, e.g. 02:30 on 2024-03-10 in America/New_York) fires at
 *    the instant it names under the offset in force before the
 *    transition, i.e. shifted forward by the length of the gap (02:30 EST
 *    = 03:30 EDT). Jobs are delayed, never lost. croniter and Python's
 *    zoneinfo (fold=0) give the same instant.
 *  - A wall-clock time that occurs twice (repeated by a fall-back
 *    transition) fires at its first occurrence only, unless the hour field
 *    allows every hour: then it fires at both ("every 15 minutes" keeps
 *    firing through the repeated hour, "daily at 01:30" runs once). This
 *    is Vixie cron's rule for fixed-time versus wildcard jobs.
 *
 * Search: the time line is cut at the zone's transitions into segments of
 * constant offset. Within one, wall time is instant + offset, so the
 * earliest matching wall time is found by a calendar search over bitmasks
 * that skips whole months, days and hours. A segment's wall range is
 * extended through a following gap (the forward-shift rule) and trimmed of
 * repeated times when the hour field is restricted. The answer is the
 * smallest candidate over the segments up to the first that starts after
 * the best candidate so far.
 */
#include <stdbool.h>

#include "civil.h"
#include "cron_internal.h"

#define DAY 86400
#define HORIZON ((int64_t)5 * 366 * DAY)   /* "none in the next 5 years" */
#define MAX_INSTANT ((int64_t)1 << 40)     /* ~34,000 years: no overflow below */
#define MAX_GAP ((int64_t)2 * DAY)         /* longest gap a zone may skip */

/* The lowest set bit of mask at or above bit `from`, or -1. */
static int next_bit(uint64_t mask, int from)
{
    if (from > 63)
        return -1;
    mask &= ~0ull << from;
    return mask ? __builtin_ctzll(mask) : -1;
}

static bool day_matches(const pl_cron *c, int64_t days, int d)
{
    bool dom = c->doms >> d & 1;
    bool dow = c->dows >> pl_weekday(days) & 1;
    if (!c->dom_all && !c->dow_all)
        return dom || dow;
    return dom && dow;
}

/* The first day of the next allowed month after (y, m). */
static int64_t next_month_start(const pl_cron *c, int64_t y, int m)
{
    int nm = next_bit(c->months, m + 1);
    if (nm < 0 || nm > 12)
        return pl_days_from_civil(y + 1, next_bit(c->months, 1), 1);
    return pl_days_from_civil(y, nm, 1);
}

/* The earliest matching wall-clock minute w with lo <= w < hi, wall times
 * counted in seconds on a zone-less calendar. */
static bool wall_next(const pl_cron *c, int64_t lo, int64_t hi, int64_t *out)
{
    int64_t w = pl_floordiv(lo + 59, 60) * 60;
    while (w < hi) {
        int64_t days = pl_floordiv(w, DAY), y;
        int sod = (int)(w - days * DAY), m, d;
        pl_civil_from_days(days, &y, &m, &d);
        if (!(c->months >> m & 1)) {
            w = next_month_start(c, y, m) * DAY;
            continue;
        }
        if (!day_matches(c, days, d)) {
            w = (days + 1) * DAY;
            continue;
        }
        int h = next_bit(c->hours, sod / 3600);
        if (h < 0) {
            w = (days + 1) * DAY;
            continue;
        }
        int from = h == sod / 3600 ? sod % 3600 / 60 : 0;
        int min = next_bit(c->minutes, from);
        if (min < 0) {
            w = days * DAY + (int64_t)(h + 1) * 3600;
            continue;
        }
        w = days * DAY + (int64_t)h * 3600 + min * 60;
        if (w >= hi)
            return false;
        *out = w;
        return true;
    }
    return false;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The best candidate of the segment [start, end) of offset off, for ticks
 * strictly after `after`; INT64_MAX when none. */
static int64_t segment_candidate(const pl_cron *c, const pl_tz *tz, int64_t start, int64_t end,
                                 int32_t off, int64_t after, int64_t limit)
{
    int64_t lo = pl_floordiv(after + off, 60) * 60 + 60;
    if (start != INT64_MIN) {
        lo = max64(lo, start + off);
        int32_t before = pl_tz_offset_at(tz, start - 1);
        if (before > off && c->hours != PL_ALL_HOURS)
            lo = max64(lo, start + before);  /* skip the repeated times */
    }
    int64_t hi = limit + off + 1;
    if (end != INT64_MAX) {
        int32_t next = pl_tz_offset_at(tz, end);
        int64_t seg_hi = end + (next > off ? next : off);  /* through a gap */
        if (seg_hi < hi)
            hi = seg_hi;
    }
    int64_t w;
    return wall_next(c, lo, hi, &w) ? w - off : INT64_MAX;
}

int64_t pl_cron_next(const pl_cron *c, const pl_tz *tz, int64_t after)
{
    if (!c || after < -MAX_INSTANT || after > MAX_INSTANT)
        return -1;
    int64_t limit = after + HORIZON, best = INT64_MAX;
    if (!tz) {
        int64_t w;
        return wall_next(c, pl_floordiv(after, 60) * 60 + 60, limit + 1, &w) ? w : -1;
    }
    /* Start a little early: a gap just before `after` may shift ticks past it. */
    int64_t probe = after - MAX_GAP;
    int64_t start = pl_tz_prev_transition(tz, probe);
    for (;;) {
        int64_t end = pl_tz_next_transition(tz, probe);
        int32_t off = pl_tz_offset_at(tz, probe);
        int64_t cand = segment_candidate(c, tz, start, end, off, after, limit);
        if (cand < best)
            best = cand;
        if (end == INT64_MAX || end >= best || end > limit)
            break;
        start = probe = end;
    }
    return best <= limit ? best : -1;
}
