/* tmpl_internal.h — pieces shared by the template renderer and its
 * filters. Internal to the pipeline library. */
#ifndef PL_TMPL_INTERNAL_H
#define PL_TMPL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#define PL_TMPL_MAX_ARGS 4
#define PL_TMPL_MAX_LITERAL 256

/* A filter argument: a string or number literal, as written. */
struct pl_tmpl_arg {
    bool is_number;
    char text[PL_TMPL_MAX_LITERAL];
};

/* Applies filter `name` to `in` (NULL: the value is undefined, which only
 * default() accepts). Returns a malloc()ed string, or NULL with err set
 * (naming the filter). */
char *pl_tmpl_filter(const char *name, const struct pl_tmpl_arg *args, int nargs,
                     const char *in, char *err, size_t errlen);

/* Dates for the filters: "YYYY-MM-DD" or an ISO date-time
 * "YYYY-MM-DD[T ]HH:MM[:SS[.frac]][Z|+hh:mm|-hh:mm]". */
struct pl_tmpl_time {
    long long year;
    int month, day, hour, minute, second;
    bool has_time;
    const char *rest;  /* what follows the seconds (fraction, zone) */
};

bool pl_tmpl_parse_iso(const char *s, struct pl_tmpl_time *t);
/* strptime/strftime subsets (C locale, no global state); see tmpl_time.c. */
bool pl_tmpl_strptime(const char *s, const char *fmt, struct pl_tmpl_time *t);
bool pl_tmpl_strftime(const struct pl_tmpl_time *t, const char *fmt, char *out, size_t outlen);

#endif
