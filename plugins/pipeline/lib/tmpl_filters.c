/* tmpl_filters.c — the template filters: ds_add(days), ds_format(in, out),
 * format(out), upper, lower, default(value). Each takes the value so far
 * (a string) and returns a new one; none has side effects. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "civil.h"
#include "tmpl_internal.h"

#define MAX_FORMATTED 1024

typedef char *filter_fn(const struct pl_tmpl_arg *args, const char *in, char *err, size_t errlen);

static char *change_case(const char *in, int (*conv)(int))
{
    char *out = strdup(in);
    for (char *p = out; p && *p; p++)
        *p = (char)conv((unsigned char)*p);
    return out;
}

static char *f_upper(const struct pl_tmpl_arg *a, const char *in, char *err, size_t errlen)
{
    return change_case(in, toupper);
}

static char *f_lower(const struct pl_tmpl_arg *a, const char *in, char *err, size_t errlen)
{
    return change_case(in, tolower);
}

static char *f_default(const struct pl_tmpl_arg *a, const char *in, char *err, size_t errlen)
{
    return strdup(in && *in ? in : a[0].text);
}

static bool parse_days(const struct pl_tmpl_arg *a, long *days)
{
    char *end;
    errno = 0;
    *days = strtol(a->text, &end, 10);
    return a->is_number && *end == '\0' && errno == 0 && *days >= -3660000 && *days <= 3660000;
}

static char *f_ds_add(const struct pl_tmpl_arg *a, const char *in, char *err, size_t errlen)
{
    long n;
    struct pl_tmpl_time t;
    if (!parse_days(&a[0], &n)) {
        snprintf(err, errlen, "filter ds_add: \"%s\" is not a whole number of days", a[0].text);
        return NULL;
    }
    if (!pl_tmpl_parse_iso(in, &t)) {
        snprintf(err, errlen, "filter ds_add: \"%.64s\" is not a date (YYYY-MM-DD or ISO "
                 "date-time)", in);
        return NULL;
    }
    int64_t y;
    int m, d;
    pl_civil_from_days(pl_days_from_civil(t.year, t.month, t.day) + n, &y, &m, &d);
    if (y < 0 || y > 9999) {
        snprintf(err, errlen, "filter ds_add: the date leaves years 0-9999");
        return NULL;
    }
    /* Keep the time and zone of a date-time; only the date moves. */
    size_t len = strlen(in) + 1;
    char *out = malloc(len);
    if (out) {
        snprintf(out, len, "%04lld-%02d-%02d%s", (long long)y, m, d, in + 10);
    }
    return out;
}

static char *formatted(const struct pl_tmpl_time *t, const char *fmt, const char *filter,
                       char *err, size_t errlen)
{
    char buf[MAX_FORMATTED];
    if (!pl_tmpl_strftime(t, fmt, buf, sizeof buf)) {
        snprintf(err, errlen, "filter %s: bad or too long format \"%.64s\" (supported: %%Y %%y "
                 "%%m %%d %%e %%H %%M %%S %%j %%b %%B %%a %%A %%u %%w %%F %%T %%s %%%%)", filter,
                 fmt);
        return NULL;
    }
    return strdup(buf);
}

static char *f_ds_format(const struct pl_tmpl_arg *a, const char *in, char *err, size_t errlen)
{
    struct pl_tmpl_time t;
    if (!pl_tmpl_strptime(in, a[0].text, &t)) {
        snprintf(err, errlen, "filter ds_format: \"%.64s\" does not match the format \"%.64s\"",
                 in, a[0].text);
        return NULL;
    }
    return formatted(&t, a[1].text, "ds_format", err, errlen);
}

static char *f_format(const struct pl_tmpl_arg *a, const char *in, char *err, size_t errlen)
{
    struct pl_tmpl_time t;
    if (!pl_tmpl_parse_iso(in, &t)) {
        snprintf(err, errlen, "filter format: \"%.64s\" is not a date (YYYY-MM-DD or ISO "
                 "date-time)", in);
        return NULL;
    }
    return formatted(&t, a[0].text, "format", err, errlen);
}

static const struct filter {
    const char *name;
    int nargs;
    bool number_arg;  /* the arguments are numbers (else strings) */
    filter_fn *fn;
} filters[] = {
    {"upper", 0, false, f_upper},         {"lower", 0, false, f_lower},
    {"default", 1, false, f_default},     {"ds_add", 1, true, f_ds_add},
    {"ds_format", 2, false, f_ds_format}, {"format", 1, false, f_format},
};

char *pl_tmpl_filter(const char *name, const struct pl_tmpl_arg *args, int nargs,
                     const char *in, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        const struct filter *f = &filters[i];
        if (strcmp(f->name, name) != 0)
            continue;
        if (nargs != f->nargs) {
            snprintf(err, errlen, "filter %s takes %d argument%s, got %d", name, f->nargs,
                     f->nargs == 1 ? "" : "s", nargs);
            return NULL;
        }
        for (int k = 0; k < nargs; k++)
            if (args[k].is_number != f->number_arg && !(f->fn == f_default)) {
                snprintf(err, errlen, "filter %s: argument %d must be a %s", name, k + 1,
                         f->number_arg ? "number" : "quoted string");
                return NULL;
            }
        if (!in && f->fn != f_default) {  /* callers report the variable first */
            snprintf(err, errlen, "filter %s: undefined value", name);
            return NULL;
        }
        char *out = f->fn(args, in, err, errlen);
        if (!out && err[0] == '\0')
            snprintf(err, errlen, "out of memory");
        return out;
    }
    snprintf(err, errlen, "unknown filter \"%.64s\" (known: ds_add, ds_format, format, upper, "
             "lower, default)", name);
    return NULL;
}
