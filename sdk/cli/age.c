/* age.c — see age.h. */
#include "age.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads exactly n digits. Returns the value or -1. */
static int digits(const char **p, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (!isdigit((unsigned char)**p))
            return -1;
        v = v * 10 + (**p - '0');
    }
    return v;
}

/* Parses the zone suffix: Z, or +hh:mm / -hh:mm. Returns 0 and the offset
 * east of UTC in seconds, or -1. */
static int zone(const char *p, long *offset)
{
    if ((*p == 'Z' || *p == 'z') && !p[1]) {
        *offset = 0;
        return 0;
    }
    if (*p != '+' && *p != '-')
        return -1;
    int sign = *p++ == '-' ? -1 : 1;
    int hh = digits(&p, 2);
    if (hh < 0 || *p++ != ':')
        return -1;
    int mm = digits(&p, 2);
    if (mm < 0 || *p)
        return -1;
    *offset = sign * (hh * 3600L + mm * 60L);
    return 0;
}

int age_parse_time(const char *s, time_t *out)
{
    struct tm tm = {0};
    const char *p = s;
    int f[6];
    static const char seps[] = "--T::";
    for (int i = 0; i < 6; i++) {
        f[i] = digits(&p, i == 0 ? 4 : 2);
        if (f[i] < 0)
            return -1;
        if (i < 5 && *p != seps[i] && !(i == 2 && (*p == 't' || *p == ' ')))
            return -1;
        if (i < 5)
            p++;
    }
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return -1;
        while (isdigit((unsigned char)*p))
            p++;   /* sub-second precision does not show in an age */
    }
    long offset;
    if (zone(p, &offset) || f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > 31 ||
        f[3] > 23 || f[4] > 59 || f[5] > 60)
        return -1;
    tm.tm_year = f[0] - 1900;
    tm.tm_mon = f[1] - 1;
    tm.tm_mday = f[2];
    tm.tm_hour = f[3];
    tm.tm_min = f[4];
    tm.tm_sec = f[5];
    *out = timegm(&tm) - offset;
    return 0;
}

void age_format(double seconds, char *out, size_t outlen)
{
    static const struct { double unit; char suffix; } steps[] = {
        {365 * 86400.0, 'y'}, {86400, 'd'}, {3600, 'h'}, {60, 'm'},
    };
    if (seconds < 0)
        seconds = 0;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (seconds >= steps[i].unit) {
            snprintf(out, outlen, "%lld%c",
                     (long long)(seconds / steps[i].unit), steps[i].suffix);
            return;
        }
    }
    snprintf(out, outlen, "%llds", (long long)seconds);
}

void age_of(const cJSON *v, time_t now, char *out, size_t outlen)
{
    time_t t;
    if (cJSON_IsNumber(v))
        t = (time_t)v->valuedouble;
    else if (!cJSON_IsString(v) || age_parse_time(v->valuestring, &t))
        t = (time_t)-1;
    if (t == (time_t)-1) {
        snprintf(out, outlen, "<unknown>");
        return;
    }
    age_format(difftime(now, t), out, outlen);
}

int age_parse_duration(const char *s, double *secs)
{
    static const char units[] = "smhd";
    static const double scale[] = {1, 60, 3600, 86400};
    double total = 0;
    const char *p = s;
    if (!*p)
        return -1;
    while (*p) {
        char *end;
        if (!isdigit((unsigned char)*p))
            return -1;
        double v = strtod(p, &end);
        const char *u = *end ? strchr(units, *end) : NULL;
        if (!*end && p == s) {   /* a bare number: seconds */
            *secs = v;
            return 0;
        }
        if (!u || !*end)
            return -1;
        total += v * scale[u - units];
        p = end + 1;
    }
    *secs = total;
    return 0;
}
