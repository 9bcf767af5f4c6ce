/* cron_internal.h — the parsed form of a cron expression and the time-zone
 * queries the tick search needs. Internal to the pipeline library. */
#ifndef PL_CRON_INTERNAL_H
#define PL_CRON_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "cron.h"

/* One bit per allowed value: minutes 0..59, hours 0..23, days of month
 * 1..31, months 1..12, days of week 0..6 (Sunday = 0; 7 is folded to 0). */
struct pl_cron {
    uint64_t minutes;
    uint32_t hours;
    uint32_t doms;
    uint16_t months;
    uint8_t dows;
    bool dom_all, dow_all;  /* the field allows every value */
};

#define PL_ALL_HOURS 0xFFFFFFu

/* Seconds east of UTC in force at instant t. */
int32_t pl_tz_offset_at(const pl_tz *tz, int64_t t);
/* The last transition at or before t (INT64_MIN when none) and the first
 * after t (INT64_MAX when none). */
int64_t pl_tz_prev_transition(const pl_tz *tz, int64_t t);
int64_t pl_tz_next_transition(const pl_tz *tz, int64_t t);

#endif
