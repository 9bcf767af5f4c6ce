/* civil.h — proleptic Gregorian calendar arithmetic on plain integers
 * (no libc time functions, no global state). Internal to the pipeline
 * library. Algorithms after Howard Hinnant's "chrono-compatible low-level
 * date algorithms". */
#ifndef PL_CIVIL_H
#define PL_CIVIL_H

#include <stdbool.h>
#include <stdint.h>

/* Days since 1970-01-01 of y-m-d (m 1..12, d 1..31). */
static inline int64_t pl_days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static inline void pl_civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static inline bool pl_is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static inline int pl_days_in_month(int64_t y, int m)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && pl_is_leap(y) ? 29 : days[m - 1];
}

/* 0 = Sunday .. 6 = Saturday for a day count since 1970-01-01 (a Thursday). */
static inline int pl_weekday(int64_t days)
{
    int64_t w = (days + 4) % 7;
    return (int)(w < 0 ? w + 7 : w);
}

/* Floor division, for negative instants. */
static inline int64_t pl_floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

#endif
