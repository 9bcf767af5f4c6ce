/* tz.c — IANA time zones from TZif files (RFC 8536, versions 1 to 3).
 *
 * Files come from $TZDIR or /usr/share/zoneinfo. Only the file is read:
 * no setenv("TZ"), no localtime(), no global state, so zones load and
 * answer from any thread. From a v2+ file we read the 64-bit section and
 * the footer's POSIX TZ rule, which covers instants past the last listed
 * transition; a v1 file gives its 32-bit table only. Leap-second ("right/")
 * zones are refused: cron ticks are civil time. "UTC", "Etc/UTC", "GMT" and
 * "Etc/GMT" work even where no zoneinfo is installed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "civil.h"
#include "tz_internal.h"

#define MAX_FILE (512 * 1024)
#define MAX_TRANSITIONS 20000

struct reader {
    const unsigned char *p, *end;
};

static bool take(struct reader *r, size_t n, const unsigned char **out)
{
    if ((size_t)(r->end - r->p) < n)
        return false;
    *out = r->p;
    r->p += n;
    return true;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const unsigned char *p)
{
    return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

struct header {
    char version;
    uint32_t isut, isstd, leap, time, type, chars;
};

static bool read_header(struct reader *r, struct header *h)
{
    const unsigned char *p;
    if (!take(r, 44, &p) || memcmp(p, "TZif", 4) != 0)
        return false;
    h->version = (char)p[4];
    h->isut = be32(p + 20), h->isstd = be32(p + 24), h->leap = be32(p + 28);
    h->time = be32(p + 32), h->type = be32(p + 36), h->chars = be32(p + 40);
    return h->time <= MAX_TRANSITIONS && h->type >= 1 && h->type <= 256 && h->chars <= 4096 &&
           h->leap <= 4096 && h->isut <= 256 && h->isstd <= 256;
}

static size_t body_size(const struct header *h, size_t tsize)
{
    return h->time * tsize + h->time + h->type * 6 + h->chars + h->leap * (tsize + 4) +
           h->isstd + h->isut;
}

/* Reads the transition table of a body whose times are tsize bytes wide. */
static const char *read_body(struct reader *r, const struct header *h, size_t tsize, pl_tz *tz)
{
    const unsigned char *times, *idx, *types, *rest;
    if (!take(r, h->time * tsize, &times) || !take(r, h->time, &idx) ||
        !take(r, h->type * 6, &types) ||
        !take(r, h->chars + h->leap * (tsize + 4) + h->isstd + h->isut, &rest))
        return "truncated file";
    if (h->leap > 0)
        return "leap-second zones are not supported";
    tz->times = malloc((h->time + 1) * sizeof *tz->times);
    tz->offsets = malloc((h->time + 1) * sizeof *tz->offsets);
    if (!tz->times || !tz->offsets)
        return "out of memory";
    for (uint32_t i = 0; i < h->type; i++) {
        int32_t off = (int32_t)be32(types + 6 * i);
        if (off < -89999 || off > 93599)
            return "UTC offset out of range";
    }
    tz->first_offset = (int32_t)be32(types);
    for (uint32_t i = 0; i < h->time; i++) {
        int64_t t = tsize == 8 ? be64(times + 8 * i) : (int32_t)be32(times + 4 * i);
        if (idx[i] >= h->type)
            return "bad time type index";
        if (i > 0 && t <= tz->times[i - 1])
            return "transitions out of order";
        tz->times[i] = t;
        tz->offsets[i] = (int32_t)be32(types + 6 * idx[i]);
    }
    tz->count = (int32_t)h->time;
    return NULL;
}

static const char *parse_tzif(const unsigned char *data, size_t len, pl_tz *tz)
{
    struct reader r = {data, data + len};
    struct header h;
    const unsigned char *skip;
    if (!read_header(&r, &h))
        return "not a TZif file";
    if (h.version == '\0')
        return read_body(&r, &h, 4, tz);
    if (!take(&r, body_size(&h, 4), &skip) || !read_header(&r, &h))
        return "truncated file";
    const char *why = read_body(&r, &h, 8, tz);
    if (why)
        return why;
    /* Footer: "\n" POSIX-TZ "\n"; an empty one means no rule. */
    const unsigned char *nl;
    if (r.p < r.end && *r.p == '\n' && (nl = memchr(r.p + 1, '\n', (size_t)(r.end - r.p - 1))) &&
        nl > r.p + 1) {
        char rule[128];
        size_t n = (size_t)(nl - r.p - 1);
        if (n >= sizeof rule)
            return "footer too long";
        memcpy(rule, r.p + 1, n);
        rule[n] = '\0';
        if (pl_tz_rule_parse(rule, &tz->rule) < 0)
            return "unsupported footer rule";
        tz->has_rule = true;
    }
    return NULL;
}

static bool valid_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 100 || name[0] == '/' || strstr(name, ".."))
        return false;
    return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_+-") == n;
}

/* Names of UTC that work without zoneinfo files. */
static bool is_utc(const char *name)
{
    return strcmp(name, "UTC") == 0 || strcmp(name, "Etc/UTC") == 0 ||
           strcmp(name, "GMT") == 0 || strcmp(name, "Etc/GMT") == 0;
}

static unsigned char *read_file(const char *path, size_t *len, const char **why)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *why = errno == ENOENT || errno == ENOTDIR ? "unknown time zone"
               : errno == EACCES ? "permission denied" : "cannot read the zone file";
        return NULL;
    }
    struct stat st;
    size_t want = fstat(fileno(f), &st) == 0 && st.st_size > 0 && st.st_size < MAX_FILE
                      ? (size_t)st.st_size + 1 : MAX_FILE;
    unsigned char *buf = malloc(want);
    size_t n = buf ? fread(buf, 1, want, f) : 0;
    bool too_big = buf && n == want;
    fclose(f);
    *why = !buf ? "out of memory" : too_big || n == 0 ? "not a TZif file" : NULL;
    if (*why) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

pl_tz *pl_tz_load(const char *name, char *err, size_t errlen)
{
    if (!name || !valid_name(name)) {
        snprintf(err, errlen, "time zone \"%.100s\": not a valid zone name", name ? name : "");
        return NULL;
    }
    const char *dir = getenv("TZDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
    const char *why = NULL;
    size_t len = 0;
    unsigned char *data = read_file(path, &len, &why);
    if (!data && is_utc(name) && strcmp(why, "unknown time zone") == 0) {
        pl_tz *utc = calloc(1, sizeof *utc);  /* no zoneinfo installed: UTC needs none */
        if (!utc)
            snprintf(err, errlen, "out of memory");
        return utc;
    }
    pl_tz *tz = data ? calloc(1, sizeof *tz) : NULL;
    if (data && !tz)
        why = "out of memory";
    if (tz && (why = parse_tzif(data, len, tz)) != NULL) {
        pl_tz_free(tz);
        tz = NULL;
    }
    free(data);
    if (!tz)
        snprintf(err, errlen, "time zone \"%s\": %s", name, why);
    return tz;
}

void pl_tz_free(pl_tz *tz)
{
    if (!tz)
        return;
    free(tz->times);
    free(tz->offsets);
    free(tz);
}

/* The index of the last transition at or before t, or -1. */
static int32_t last_at_or_before(const pl_tz *tz, int64_t t)
{
    int32_t lo = 0, hi = tz->count;  /* answer in [lo - 1, hi - 1] */
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (tz->times[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

/* Past the table (or without one) the footer rule, if any, decides. */
static bool rule_applies(const pl_tz *tz, int32_t i)
{
    return tz->has_rule && i == tz->count - 1;
}

int32_t pl_tz_offset_at(const pl_tz *tz, int64_t t)
{
    int32_t i = last_at_or_before(tz, t);
    if (rule_applies(tz, i) && (i < 0 || pl_tz_rule_prev(&tz->rule, t) > tz->times[i]))
        return pl_tz_rule_offset_at(&tz->rule, t);
    return i < 0 ? tz->first_offset : tz->offsets[i];
}

int64_t pl_tz_prev_transition(const pl_tz *tz, int64_t t)
{
    int32_t i = last_at_or_before(tz, t);
    int64_t table = i < 0 ? INT64_MIN : tz->times[i];
    if (rule_applies(tz, i)) {
        int64_t rule = pl_tz_rule_prev(&tz->rule, t);
        return rule > table ? rule : table;
    }
    return table;
}

int64_t pl_tz_next_transition(const pl_tz *tz, int64_t t)
{
    int32_t i = last_at_or_before(tz, t);
    if (i + 1 < tz->count)
        return tz->times[i + 1];
    return tz->has_rule ? pl_tz_rule_next(&tz->rule, t) : INT64_MAX;
}

int64_t pl_tz_day_start(const pl_tz *tz, int64_t y, int m, int d)
{
    int64_t local = pl_days_from_civil(y, m, 1) * 86400 + (int64_t)(d - 1) * 86400;
    if (!tz)
        return local;
    /* The instant whose wall clock reads `local`: the offset in force then
     * is one of those around local - offset; try the one before first, so
     * a repeated midnight gives its earlier instant. */
    int32_t before = pl_tz_offset_at(tz, local - 86400);
    int64_t guess = local - before;
    int32_t off = pl_tz_offset_at(tz, guess);
    if (off == before)
        return guess;
    int64_t t = local - off;
    /* midnight fell in a gap: the day starts where the gap ends, at the
     * change that lies before `guess` */
    return pl_tz_offset_at(tz, t) == off ? t : pl_tz_prev_transition(tz, guess);
}
