/* tmpl_time.c — date parsing and formatting for the template filters:
 * small strptime/strftime subsets in the C locale, with no global state.
 *
 * Conversions: %Y (year, 4 digits), %y (2 digits, 1969-2068 on input),
 * %m, %d, %e, %H, %M, %S, %j (day of year), %b/%h and %B (English month
 * names), %a and %A (English day names, output only), %u (1 = Monday),
 * %w (0 = Sunday), %F (%Y-%m-%d), %T (%H:%M:%S), %s (Unix seconds, UTC,
 * output only) and %%. Anything else is an error.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "civil.h"
#include "tmpl_internal.h"

static const char *const months[] = {"January", "February", "March", "April", "May", "June",
                                     "July", "August", "September", "October", "November",
                                     "December"};
static const char *const days[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday",
                                   "Friday", "Saturday"};

static bool valid_date(const struct pl_tmpl_time *t)
{
    return t->month >= 1 && t->month <= 12 && t->day >= 1 &&
           t->day <= pl_days_in_month(t->year, t->month) && t->hour >= 0 && t->hour <= 23 &&
           t->minute >= 0 && t->minute <= 59 && t->second >= 0 && t->second <= 60;
}

/* Exactly n digits at *s. */
static bool digits(const char **s, int n, long long *out)
{
    long long v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*s)[i]))
            return false;
        v = v * 10 + ((*s)[i] - '0');
    }
    *s += n;
    *out = v;
    return true;
}

bool pl_tmpl_parse_iso(const char *s, struct pl_tmpl_time *t)
{
    long long y, mo, d, h = 0, mi = 0, sec = 0;
    memset(t, 0, sizeof *t);
    if (!digits(&s, 4, &y) || *s++ != '-' || !digits(&s, 2, &mo) || *s++ != '-' ||
        !digits(&s, 2, &d))
        return false;
    if (*s == 'T' || *s == ' ') {
        s++;
        if (!digits(&s, 2, &h) || *s++ != ':' || !digits(&s, 2, &mi))
            return false;
        if (*s == ':' && (s++, !digits(&s, 2, &sec)))
            return false;
        t->has_time = true;
    }
    t->year = y, t->month = (int)mo, t->day = (int)d;
    t->hour = (int)h, t->minute = (int)mi, t->second = (int)sec;
    t->rest = s;
    if (*s != '\0' && (!t->has_time || strspn(s, "0123456789.:+-Z") != strlen(s)))
        return false;
    return valid_date(t);
}

static int match_name(const char **s, const char *const *names, int count)
{
    for (int i = 0; i < count; i++) {
        size_t n = strlen(names[i]);
        if (strncasecmp(*s, names[i], n) == 0) {
            *s += n;
            return i;
        }
        if (strncasecmp(*s, names[i], 3) == 0) {
            *s += 3;
            return i;
        }
    }
    return -1;
}

/* Up to max digits (at least one) at *s. */
static bool number(const char **s, int max, long long *out)
{
    int n = 0;
    while (n < max && isdigit((unsigned char)(*s)[n]))
        n++;
    return n > 0 && digits(s, n, out);
}

/* Expands %F and %T; false when the result does not fit. */
static bool expand(const char *fmt, char *out, size_t outlen)
{
    size_t n = 0;
    for (; *fmt; fmt++) {
        const char *piece = NULL;
        if (fmt[0] == '%' && (fmt[1] == 'F' || fmt[1] == 'T'))
            piece = *++fmt == 'F' ? "%Y-%m-%d" : "%H:%M:%S";
        else if (fmt[0] == '%' && fmt[1] != '\0') {
            if (n + 2 >= outlen)
                return false;
            out[n++] = *fmt++;
        }
        size_t len = piece ? strlen(piece) : 1;
        if (n + len >= outlen)
            return false;
        memcpy(out + n, piece ? piece : fmt, len);
        n += len;
    }
    out[n] = '\0';
    return true;
}

bool pl_tmpl_strptime(const char *s, const char *format, struct pl_tmpl_time *t)
{
    char fmt[512];
    long long v, yday = 0;
    if (!expand(format, fmt, sizeof fmt))
        return false;
    const char *f = fmt;
    memset(t, 0, sizeof *t);
    t->year = 1900, t->month = 1, t->day = 1;
    for (; *f; f++) {
        if (*f != '%') {
            if (*s++ != *f)
                return false;
            continue;
        }
        int i;
        switch (*++f) {
        case 'Y': if (!number(&s, 4, &v)) return false; t->year = v; break;
        case 'y': if (!digits(&s, 2, &v)) return false; t->year = v < 69 ? 2000 + v : 1900 + v; break;
        case 'm': if (!number(&s, 2, &v)) return false; t->month = (int)v; break;
        case 'd': case 'e': if (!number(&s, 2, &v)) return false; t->day = (int)v; break;
        case 'H': if (!number(&s, 2, &v)) return false; t->hour = (int)v; t->has_time = true; break;
        case 'M': if (!number(&s, 2, &v)) return false; t->minute = (int)v; t->has_time = true; break;
        case 'S': if (!number(&s, 2, &v)) return false; t->second = (int)v; t->has_time = true; break;
        case 'j': if (!number(&s, 3, &v) || v < 1 || v > 366) return false; yday = v; break;
        case 'b': case 'h': case 'B':
            if ((i = match_name(&s, months, 12)) < 0) return false;
            t->month = i + 1;
            break;
        case '%': if (*s++ != '%') return false; break;
        default: return false;
        }
    }
    if (*s != '\0')
        return false;
    if (yday > 0) {
        int64_t y;
        pl_civil_from_days(pl_days_from_civil(t->year, 1, 1) + yday - 1, &y, &t->month, &t->day);
        if (y != t->year)
            return false;
    }
    t->rest = "";
    return valid_date(t);
}

struct out {
    char *p;
    size_t left;
};

static bool put(struct out *o, const char *text, size_t n)
{
    if (n >= o->left)
        return false;
    memcpy(o->p, text, n);
    o->p += n, o->left -= n;
    *o->p = '\0';
    return true;
}

static bool putf(struct out *o, const char *fmt, long long v)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, fmt, v);
    return n > 0 && put(o, buf, (size_t)n);
}

bool pl_tmpl_strftime(const struct pl_tmpl_time *t, const char *format, char *outbuf,
                      size_t outlen)
{
    char fmt[512];
    if (outlen == 0 || !expand(format, fmt, sizeof fmt))
        return false;
    struct out o = {outbuf, outlen};
    *outbuf = '\0';
    int64_t day = pl_days_from_civil(t->year, t->month, t->day);
    int wday = pl_weekday(day);
    for (const char *f = fmt; *f; f++) {
        if (*f != '%') {
            if (!put(&o, f, 1))
                return false;
            continue;
        }
        bool ok;
        switch (*++f) {
        case 'Y': ok = putf(&o, "%04lld", t->year); break;
        case 'y': ok = putf(&o, "%02lld", (t->year % 100 + 100) % 100); break;
        case 'm': ok = putf(&o, "%02lld", t->month); break;
        case 'd': ok = putf(&o, "%02lld", t->day); break;
        case 'e': ok = putf(&o, "%2lld", t->day); break;
        case 'H': ok = putf(&o, "%02lld", t->hour); break;
        case 'M': ok = putf(&o, "%02lld", t->minute); break;
        case 'S': ok = putf(&o, "%02lld", t->second); break;
        case 'j': ok = putf(&o, "%03lld", day - pl_days_from_civil(t->year, 1, 1) + 1); break;
        case 'b': case 'h': ok = put(&o, months[t->month - 1], 3); break;
        case 'B': ok = put(&o, months[t->month - 1], strlen(months[t->month - 1])); break;
        case 'a': ok = put(&o, days[wday], 3); break;
        case 'A': ok = put(&o, days[wday], strlen(days[wday])); break;
        case 'u': ok = putf(&o, "%lld", wday == 0 ? 7 : wday); break;
        case 'w': ok = putf(&o, "%lld", wday); break;
        case 's':
            ok = putf(&o, "%lld", day * 86400 + t->hour * 3600 + t->minute * 60 + t->second);
            break;
        case '%': ok = put(&o, "%", 1); break;
        default: ok = false;
        }
        if (!ok)
            return false;
    }
    return true;
}
