/* util.c — Slurm hostlists, shell quoting, `scontrol -o` fields, clocks,
 * the group list's links. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm.h"

int64_t sl_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t sl_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sl_dns_label(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return 0;
    return 1;
}

int sl_shquote(char *buf, size_t cap, const char *s)
{
    size_t n = strlen(buf);
    if (n + 1 >= cap)
        return -1;
    buf[n++] = '\'';
    for (; *s; s++) {
        const char *piece = *s == '\'' ? "'\\''" : NULL;
        size_t k = piece ? 4 : 1;
        if (n + k + 2 >= cap)
            return -1;
        if (piece)
            memcpy(buf + n, piece, k);
        else
            buf[n] = *s;
        n += k;
    }
    buf[n++] = '\'';
    buf[n] = '\0';
    return 0;
}

void sl_kv_field(const char *line, const char *key, char *out, size_t len)
{
    size_t kl = strlen(key);
    const char *p = line;
    out[0] = '\0';
    while ((p = strstr(p, key))) {
        if ((p == line || p[-1] == ' ') && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t n = strcmp(key, "Reason") == 0 ? strcspn(v, "\n") : strcspn(v, " \n");
            if (n >= len)
                n = len - 1;
            memcpy(out, v, n);
            out[n] = '\0';
            return;
        }
        p += kl;
    }
}

/* Appends prefix + each number of a bracket range "1-3,5" (zero padding
 * kept) to names; returns the new count or -1. */
static int expand_range(const char *prefix, size_t plen, const char *r, size_t rlen,
                        const char *suffix, char **names, int n, int max)
{
    char spec[256];
    if (rlen >= sizeof spec)
        return -1;
    memcpy(spec, r, rlen);
    spec[rlen] = '\0';
    char *save = NULL;
    for (char *t = strtok_r(spec, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(t, '-'), *end;
        long a = strtol(t, &end, 10), b = a;
        int width = (int)(dash ? (size_t)(dash - t) : strlen(t));
        if (end == t)
            return -1;
        if (dash && ((b = strtol(dash + 1, &end, 10)) < a || *end))
            return -1;
        if (!dash && *end)
            return -1;
        for (long v = a; v <= b; v++) {
            char name[160];
            if (n >= max || (int)snprintf(name, sizeof name, "%.*s%0*ld%s", (int)plen, prefix,
                                          width, v, suffix) >= (int)sizeof name)
                return -1;
            if (!(names[n] = strdup(name)))
                return -1;
            n++;
        }
    }
    return n;
}

int sl_hostlist_expand(const char *list, char **names, int max)
{
    int n = 0;
    const char *p = list;
    while (p && *p) {
        size_t len = 0;
        int depth = 0;
        while (p[len] && (depth || p[len] != ',')) {   /* one item: up to a top-level ',' */
            depth += p[len] == '[' ? 1 : p[len] == ']' ? -1 : 0;
            len++;
        }
        const char *lb = memchr(p, '[', len);
        if (lb) {
            const char *rb = memchr(lb, ']', len - (size_t)(lb - p));
            char suffix[64];
            size_t sl = rb ? len - (size_t)(rb + 1 - p) : 0;
            if (!rb || sl >= sizeof suffix || memchr(rb + 1, '[', sl))
                return -1;
            memcpy(suffix, rb + 1, sl);
            suffix[sl] = '\0';
            n = expand_range(p, (size_t)(lb - p), lb + 1, (size_t)(rb - lb - 1), suffix, names,
                             n, max);
            if (n < 0)
                return -1;
        } else if (len) {
            if (n >= max || !(names[n] = strndup(p, len)))
                return -1;
            n++;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return n;
}

struct sl_group **sl_group_link(struct sl *s, struct sl_group *g, struct sl_group **hint)
{
    if (*hint == g)
        return hint;
    struct sl_group **pp = &s->groups;
    while (*pp && *pp != g)
        pp = &(*pp)->next;
    return pp;
}
