/* tz_internal.h — a loaded time zone: the TZif transition table plus the
 * POSIX TZ rule that extends it past its last transition. Internal. */
#ifndef PL_TZ_INTERNAL_H
#define PL_TZ_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "cron_internal.h"

/* A POSIX TZ rule date: Jn (1..365, no Feb 29), n (0..365) or Mm.w.d. */
struct pl_tz_date {
    char kind;  /* 'J', 'N' or 'M' */
    int n, month, week, wday;
    int32_t secs;  /* local time of day of the change, -167h..167h */
};

struct pl_tz_rule {
    int32_t std_off, dst_off;  /* seconds east of UTC */
    bool has_dst;
    struct pl_tz_date start, end;  /* start of DST (in standard time), end (in DST) */
};

struct pl_tz {
    int32_t count;     /* transitions */
    int64_t *times;    /* ascending */
    int32_t *offsets;  /* offset in force from times[i] on */
    int32_t first_offset;  /* before times[0] */
    bool has_rule;
    struct pl_tz_rule rule;
};

/* Parses a POSIX TZ string (a TZif footer); 0 or -1. */
int pl_tz_rule_parse(const char *s, struct pl_tz_rule *r);
/* Rule-only queries (the rule must exist); see cron_internal.h. */
int32_t pl_tz_rule_offset_at(const struct pl_tz_rule *r, int64_t t);
int64_t pl_tz_rule_prev(const struct pl_tz_rule *r, int64_t t);
int64_t pl_tz_rule_next(const struct pl_tz_rule *r, int64_t t);

#endif
