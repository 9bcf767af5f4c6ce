/* nv_json.c — the little JSON accel-nvidia needs without a JSON library: a
 * growing text buffer with string escaping, and a parser for the array of
 * device ids pin_env receives. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv.h"

/* Makes room for add more bytes plus the NUL; 0 or -1. */
static int room(struct nv_buf *b, size_t add)
{
    if (b->oom)
        return -1;
    if (b->len + add + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + add + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void nv_printf(struct nv_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || room(b, (size_t)n) < 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void nv_json_str(struct nv_buf *b, const char *s)
{
    nv_printf(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            nv_printf(b, "\\%c", c);
        else if (c < 0x20)
            nv_printf(b, "\\u%04x", c);
        else
            nv_printf(b, "%c", c);
    }
    nv_printf(b, "\"");
}

char *nv_take(struct nv_buf *b)
{
    if (b->oom || room(b, 0) < 0) {
        free(b->p);
        memset(b, 0, sizeof *b);
        return NULL;
    }
    b->p[b->len] = '\0';
    char *p = b->p;
    memset(b, 0, sizeof *b);
    return p;
}

static const char *ws(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* Reads one "<digits>" string at p into *out; the position after, or NULL. */
static const char *index_str(const char *p, unsigned *out)
{
    if (*p++ != '"' || !isdigit((unsigned char)*p))
        return NULL;
    unsigned long v = 0;
    for (; isdigit((unsigned char)*p); p++)
        if ((v = v * 10 + (unsigned long)(*p - '0')) > 100000)
            return NULL;
    if (*p++ != '"')
        return NULL;
    *out = (unsigned)v;
    return p;
}

int nv_parse_ids(const char *json, unsigned *idx, int max)
{
    const char *p = json ? ws(json) : "";
    int n = 0;
    if (*p++ != '[')
        return -1;
    p = ws(p);
    if (*p == ']')
        return *ws(p + 1) ? -1 : 0;
    for (;;) {
        if (n == max || !(p = index_str(ws(p), &idx[n++])))
            return -1;
        p = ws(p);
        if (*p == ']')
            return *ws(p + 1) ? -1 : n;
        if (*p++ != ',')
            return -1;
    }
}

void nv_fmt_bytes(unsigned long long bytes, char *out, size_t len)
{
    static const char *const UNITS[] = {"Ki", "Mi", "Gi", "Ti", "Pi"};
    int u = -1;
    while (u < 4 && bytes && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    snprintf(out, len, "%llu%s", bytes, u < 0 ? "" : UNITS[u]);
}
