/* util.c — time, naming and error helpers of the pipeline plugin (the JSON
 * member helpers are libcube-util's, <cube/util/json.h>). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipeline.h"

int pl_json_same_order(const cJSON *a, const cJSON *b)
{
    if (a == b)
        return 1;
    if (!a || !b || (a->type & 0xff) != (b->type & 0xff))
        return 0;
    if (cJSON_IsNumber(a))
        return a->valuedouble == b->valuedouble;
    if (cJSON_IsString(a) || cJSON_IsRaw(a))
        return a->valuestring && b->valuestring && !strcmp(a->valuestring, b->valuestring);
    if (!cJSON_IsArray(a) && !cJSON_IsObject(a))
        return 1;
    const cJSON *x = a->child, *y = b->child;
    for (; x && y; x = x->next, y = y->next)
        if ((cJSON_IsObject(a) && (!x->string || !y->string || strcmp(x->string, y->string))) ||
            !pl_json_same_order(x, y))
            return 0;
    return !x && !y;
}

void pl_join_name(const char *a, const char *b, char *out, size_t len)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la + 1 + lb <= PL_NAME_MAX) {
        snprintf(out, len, "%s-%s", a, b);
        return;
    }
    unsigned h = 2166136261u;
    for (const char *s = a; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    for (const char *s = b; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    /* keep the end of b (the distinguishing part), then a's start */
    if (lb > 30)
        b += lb - 30, lb = 30;
    int keep = (int)(PL_NAME_MAX - 10 - lb);
    if (keep < 1)
        keep = 1;
    snprintf(out, len, "%.*s-%08x-%s", keep, a, h, b);
    /* a name may not end or start with '-': the hash is hex, b starts
     * with an alphanumeric unless we cut it there */
    if (out[strlen(out) - 1] == '-')
        out[strlen(out) - 1] = 'x';
}

static int digits(const char **s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++, (*s)++) {
        if (**s < '0' || **s > '9')
            return -1;
        v = v * 10 + (**s - '0');
    }
    *out = v;
    return 0;
}

int64_t pl_time_parse(const char *s)
{
    struct tm tm = {0};
    int y, mo, d, h = 0, mi = 0, sec = 0, off = 0;
    if (!s || digits(&s, 4, &y) || *s++ != '-' || digits(&s, 2, &mo) || *s++ != '-' ||
        digits(&s, 2, &d))
        return -1;
    if (*s == 'T' || *s == ' ') {
        s++;
        if (digits(&s, 2, &h) || *s++ != ':' || digits(&s, 2, &mi))
            return -1;
        if (*s == ':' && (s++, digits(&s, 2, &sec)))
            return -1;
        if (*s == '.')
            for (s++; *s >= '0' && *s <= '9'; s++)
                ;
        if (*s == 'Z')
            s++;
        else if (*s == '+' || *s == '-') {
            int sign = *s++ == '-' ? -1 : 1, oh, om = 0;
            if (digits(&s, 2, &oh))
                return -1;
            if (*s == ':')
                s++;
            if (*s && digits(&s, 2, &om))
                return -1;
            off = sign * (oh * 3600 + om * 60);
        }
    }
    if (*s || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return -1;
    tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d;
    tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = sec;
    time_t t = timegm(&tm);
    return (int64_t)t - off;
}

void pl_time_format(int64_t t, char *out, size_t len)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int64_t pl_now(void)
{
    return (int64_t)time(NULL);
}

void pl_now_text(char *out, size_t len)
{
    pl_time_format(pl_now(), out, len);
}

double pl_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int pl_fail(char *field, size_t flen, char *msg, size_t mlen, const char *f,
            const char *fmt, ...)
{
    va_list ap;
    snprintf(field, flen, "%s", f);
    va_start(ap, fmt);
    vsnprintf(msg, mlen, fmt, ap);
    va_end(ap);
    return -1;
}
