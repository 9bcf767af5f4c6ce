/* tz_rule.c — POSIX TZ strings ("EST5EDT,M3.2.0,M11.1.0",
 * "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0") as TZif v2+ footers carry them:
 * they give the offsets for instants after the file's last transition.
 * Includes the v3 extensions (hours -167..167 in rule times). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "civil.h"
#include "tz_internal.h"

#define DAY 86400

static const char *skip_name(const char *s)
{
    if (*s == '<') {
        const char *e = strchr(s, '>');
        return e && e - s >= 4 ? e + 1 : NULL;
    }
    const char *p = s;
    while (isalpha((unsigned char)*p))
        p++;
    return p - s >= 3 ? p : NULL;
}

static const char *parse_num(const char *s, int max, int *out)
{
    if (!isdigit((unsigned char)*s))
        return NULL;
    int v = 0;
    while (isdigit((unsigned char)*s)) {
        v = v * 10 + (*s++ - '0');
        if (v > max)
            return NULL;
    }
    *out = v;
    return s;
}

/* [+-]hh[:mm[:ss]] into seconds; max_hours bounds hh. */
static const char *parse_hms(const char *s, int max_hours, int32_t *out)
{
    int sign = 1, h, m = 0, sec = 0;
    if (*s == '+' || *s == '-')
        sign = *s++ == '-' ? -1 : 1;
    if (!(s = parse_num(s, max_hours, &h)))
        return NULL;
    if (*s == ':' && !(s = parse_num(s + 1, 59, &m)))
        return NULL;
    if (*s == ':' && !(s = parse_num(s + 1, 59, &sec)))
        return NULL;
    *out = sign * (h * 3600 + m * 60 + sec);
    return s;
}

static const char *parse_date(const char *s, struct pl_tz_date *d)
{
    if (*s == 'J') {
        d->kind = 'J';
        if (!(s = parse_num(s + 1, 365, &d->n)) || d->n < 1)
            return NULL;
    } else if (*s == 'M') {
        d->kind = 'M';
        if (!(s = parse_num(s + 1, 12, &d->month)) || d->month < 1 || *s != '.' ||
            !(s = parse_num(s + 1, 5, &d->week)) || d->week < 1 || *s != '.' ||
            !(s = parse_num(s + 1, 6, &d->wday)))
            return NULL;
    } else {
        d->kind = 'N';
        if (!(s = parse_num(s, 365, &d->n)))
            return NULL;
    }
    d->secs = 7200;
    if (*s == '/' && !(s = parse_hms(s + 1, 167, &d->secs)))
        return NULL;
    return s;
}

int pl_tz_rule_parse(const char *s, struct pl_tz_rule *r)
{
    int32_t posix;
    memset(r, 0, sizeof *r);
    if (!(s = skip_name(s)) || !(s = parse_hms(s, 24, &posix)))
        return -1;
    r->std_off = -posix;  /* POSIX counts west */
    if (*s == '\0')
        return 0;
    if (!(s = skip_name(s)))
        return -1;
    r->dst_off = r->std_off + 3600;
    if (*s != ',' && *s != '\0') {
        if (!(s = parse_hms(s, 24, &posix)))
            return -1;
        r->dst_off = -posix;
    }
    if (*s != ',')  /* DST without a rule: POSIX leaves it to the system; we refuse */
        return -1;
    if (!(s = parse_date(s + 1, &r->start)) || *s != ',' || !(s = parse_date(s + 1, &r->end)))
        return -1;
    r->has_dst = true;
    return *s == '\0' ? 0 : -1;
}

/* The day (since the epoch) a rule date falls on in year y. */
static int64_t date_day(const struct pl_tz_date *d, int64_t y)
{
    int64_t jan1 = pl_days_from_civil(y, 1, 1);
    if (d->kind == 'J')  /* Feb 29 is never counted */
        return jan1 + d->n - 1 + (pl_is_leap(y) && d->n > 59);
    if (d->kind == 'N')
        return jan1 + d->n;
    int64_t first = pl_days_from_civil(y, d->month, 1);
    int64_t day = first + (d->wday - pl_weekday(first) + 7) % 7 + (d->week - 1) * 7;
    int64_t last = first + pl_days_in_month(y, d->month) - 1;
    while (day > last)
        day -= 7;
    return day;
}

/* The two transitions of year y in instant order, with the offset each
 * brings in. */
static void year_transitions(const struct pl_tz_rule *r, int64_t y, int64_t t[2], int32_t off[2])
{
    int64_t on = date_day(&r->start, y) * DAY + r->start.secs - r->std_off;
    int64_t off_t = date_day(&r->end, y) * DAY + r->end.secs - r->dst_off;
    if (on <= off_t) {
        t[0] = on, off[0] = r->dst_off, t[1] = off_t, off[1] = r->std_off;
    } else {
        t[0] = off_t, off[0] = r->std_off, t[1] = on, off[1] = r->dst_off;
    }
}

static int64_t year_of(int64_t t)
{
    int64_t y;
    int m, d;
    pl_civil_from_days(pl_floordiv(t, DAY), &y, &m, &d);
    return y;
}

/* The transitions of the years before, of and after t's (two each, in
 * instant order), with the offset each brings in. */
#define AROUND 6
static void transitions_around(const struct pl_tz_rule *r, int64_t t, int64_t ts[AROUND],
                               int32_t offs[AROUND])
{
    int64_t y = year_of(t);
    for (int k = 0; k < AROUND / 2; k++)
        year_transitions(r, y - 1 + k, ts + 2 * k, offs + 2 * k);
}

/* The latest transition at or before t among years around t, and its offset. */
static int64_t rule_last(const struct pl_tz_rule *r, int64_t t, int32_t *offset)
{
    int64_t best = INT64_MIN, ts[AROUND];
    int32_t offs[AROUND];
    *offset = r->std_off;
    transitions_around(r, t, ts, offs);
    for (int i = 0; i < AROUND; i++)
        if (ts[i] <= t && ts[i] >= best)
            best = ts[i], *offset = offs[i];
    return best;
}

int32_t pl_tz_rule_offset_at(const struct pl_tz_rule *r, int64_t t)
{
    int32_t off = r->std_off;
    if (r->has_dst)
        rule_last(r, t, &off);
    return off;
}

int64_t pl_tz_rule_prev(const struct pl_tz_rule *r, int64_t t)
{
    int32_t off;
    return r->has_dst ? rule_last(r, t, &off) : INT64_MIN;
}

int64_t pl_tz_rule_next(const struct pl_tz_rule *r, int64_t t)
{
    if (!r->has_dst)
        return INT64_MAX;
    int64_t best = INT64_MAX, ts[AROUND];
    int32_t offs[AROUND];
    transitions_around(r, t, ts, offs);
    for (int i = 0; i < AROUND; i++)
        if (ts[i] > t && ts[i] < best)
            best = ts[i];
    return best;
}
