/* cron.c — parsing of 5-field cron expressions into bitmasks.
 *
 * Grammar, per field: a comma-separated list of items; an item is "*", a
 * value, or a range "a-b", each optionally followed by "/step" ("a/step"
 * means "a-max/step", as croniter reads it). Month fields take JAN..DEC,
 * day-of-week fields SUN..SAT, in any case; day-of-week 7 is Sunday, and
 * a day-of-week range ending in 0 ("FRI-SUN") ends in 7. "*" in the
 * day-of-week field spans 0-7, so "* /2" there is 0,2,4,6.
 *
 * Day matching: when both day fields are restricted (allow fewer than all
 * their values), a day matches if either matches (Vixie cron's OR rule);
 * otherwise both must match. "Restricted" is judged on the expanded set,
 * as croniter does: "1-31" or "* /1" count as unrestricted. (Vixie cron
 * instead looks at whether the field text starts with '*', so it reads
 * "* /2" as unrestricted; we follow croniter, the reference our tests
 * compare against.)
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cron_internal.h"

enum { F_MIN, F_HOUR, F_DOM, F_MON, F_DOW, F_COUNT };

static const struct field_desc {
    const char *name;
    int lo, hi;
} fields[F_COUNT] = {
    {"minute", 0, 59}, {"hour", 0, 23}, {"day-of-month", 1, 31},
    {"month", 1, 12}, {"day-of-week", 0, 7},
};

static const char *const month_names[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                          "jul", "aug", "sep", "oct", "nov", "dec"};
static const char *const day_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

static const struct alias {
    const char *name, *expansion;
} aliases[] = {
    {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
    {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"}, {"@midnight", "0 0 * * *"},
    {"@hourly", "0 * * * *"},
};

/* Reads one value (digits or a name) at *p; -1 with err set on failure. */
static int parse_value(const char **p, int f, char *err, size_t errlen)
{
    const char *s = *p;
    if (isdigit((unsigned char)*s)) {
        long v = 0;
        while (isdigit((unsigned char)*s)) {
            if (v < 100000)
                v = v * 10 + (*s - '0');
            s++;
        }
        if (v < fields[f].lo || v > fields[f].hi) {
            int n = (int)(s - *p);
            snprintf(err, errlen, "%s: %.*s is out of range %d-%d", fields[f].name,
                     n > 20 ? 20 : n, *p, fields[f].lo, fields[f].hi);
            return -1;
        }
        *p = s;
        return (int)v;
    }
    if (isalpha((unsigned char)*s) && (f == F_MON || f == F_DOW)) {
        size_t n = 0;
        while (isalpha((unsigned char)s[n]))
            n++;
        const char *const *names = f == F_MON ? month_names : day_names;
        int count = f == F_MON ? 12 : 7;
        for (int i = 0; n == 3 && i < count; i++)
            if (strncasecmp(s, names[i], 3) == 0) {
                *p = s + 3;
                return f == F_MON ? i + 1 : i;
            }
        snprintf(err, errlen, "%s: unknown name \"%.*s\"", fields[f].name, (int)(n > 20 ? 20 : n),
                 s);
        return -1;
    }
    if (*s == '\0' || *s == ',')
        snprintf(err, errlen, "%s: empty list item", fields[f].name);
    else
        snprintf(err, errlen, "%s: unexpected '%c'", fields[f].name, *s);
    return -1;
}

/* Parses one list item at *p into *mask. */
static int parse_item(const char **p, int f, uint64_t *mask, char *err, size_t errlen)
{
    int lo, hi;
    bool star = **p == '*', ranged = false;
    if (star) {
        lo = fields[f].lo, hi = fields[f].hi;
        (*p)++;
    } else {
        if ((lo = parse_value(p, f, err, errlen)) < 0)
            return -1;
        hi = lo;
        if (**p == '-') {
            (*p)++;
            ranged = true;
            if ((hi = parse_value(p, f, err, errlen)) < 0)
                return -1;
            if (f == F_DOW && hi == 0 && lo > 0)
                hi = 7;
            if (hi < lo) {
                snprintf(err, errlen, "%s: range %d-%d is backwards", fields[f].name, lo, hi);
                return -1;
            }
        }
    }
    int step = 1;
    if (**p == '/') {
        (*p)++;
        if (!isdigit((unsigned char)**p)) {
            snprintf(err, errlen, "%s: a step needs a number after '/'", fields[f].name);
            return -1;
        }
        long v = 0;
        while (isdigit((unsigned char)**p)) {
            if (v < 100000)
                v = v * 10 + (**p - '0');
            (*p)++;
        }
        if (v < 1 || v > fields[f].hi) {
            snprintf(err, errlen, "%s: step %ld is out of range 1-%d", fields[f].name, v,
                     fields[f].hi);
            return -1;
        }
        step = (int)v;
        if (!star && !ranged)
            hi = fields[f].hi;  /* "a/n" means "a-max/n" */
    }
    for (int v = lo; v <= hi; v += step)
        *mask |= 1ull << (f == F_DOW && v == 7 ? 0 : v);
    return 0;
}

static int parse_field(const char *text, size_t len, int f, uint64_t *mask, char *err,
                       size_t errlen)
{
    char buf[128];
    if (len >= sizeof buf) {
        snprintf(err, errlen, "%s: field too long", fields[f].name);
        return -1;
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    const char *p = buf;
    *mask = 0;
    for (;;) {
        if (parse_item(&p, f, mask, err, errlen) < 0)
            return -1;
        if (*p == '\0')
            return 0;
        if (*p != ',') {
            snprintf(err, errlen, "%s: unexpected '%c'", fields[f].name, *p);
            return -1;
        }
        p++;
    }
}

static const char *expand_alias(const char *expr, char *err, size_t errlen)
{
    size_t n = strcspn(expr, " \t\n");
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strlen(aliases[i].name) == n && strncasecmp(expr, aliases[i].name, n) == 0) {
            if (expr[n + strspn(expr + n, " \t\n")] != '\0')
                break;
            return aliases[i].expansion;
        }
    snprintf(err, errlen, "unknown alias \"%.*s\" (use @yearly, @annually, @monthly, "
             "@weekly, @daily, @midnight or @hourly)", (int)(n > 20 ? 20 : n), expr);
    return NULL;
}

pl_cron *pl_cron_parse(const char *expr, char *err, size_t errlen)
{
    if (!expr) {
        snprintf(err, errlen, "no cron expression");
        return NULL;
    }
    expr += strspn(expr, " \t\n");
    if (*expr == '@' && !(expr = expand_alias(expr, err, errlen)))
        return NULL;
    uint64_t masks[F_COUNT];
    int f = 0;
    const char *p = expr;
    while (*(p += strspn(p, " \t\n")) != '\0') {
        size_t len = strcspn(p, " \t\n");
        if (f == F_COUNT) {
            snprintf(err, errlen, "expected 5 fields (minute hour day-of-month month "
                     "day-of-week), got more");
            return NULL;
        }
        if (parse_field(p, len, f, &masks[f], err, errlen) < 0)
            return NULL;
        f++;
        p += len;
    }
    if (f != F_COUNT) {
        snprintf(err, errlen, "expected 5 fields (minute hour day-of-month month "
                 "day-of-week), got %d", f);
        return NULL;
    }
    pl_cron *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->minutes = masks[F_MIN];
    c->hours = (uint32_t)masks[F_HOUR];
    c->doms = (uint32_t)masks[F_DOM];
    c->months = (uint16_t)masks[F_MON];
    c->dows = (uint8_t)masks[F_DOW];
    c->dom_all = c->doms == 0xFFFFFFFEu;
    c->dow_all = c->dows == 0x7F;
    return c;
}

void pl_cron_free(pl_cron *c)
{
    free(c);
}
