/* proxy_util.c — pure helpers of the reverse proxy: which headers cross,
 * cookie stripping, address checks, the answer head parser and the
 * chunked decoder. No I/O, no locks (unit tested in test_proxy.c). */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proxy_priv.h"

int proxy_hop_header(const char *name)
{
    /* RFC 9110 §7.6.1 connection-specific fields, plus the framing headers
     * the relay rewrites itself (Content-Length, Transfer-Encoding). */
    static const char *const HOP[] = {
        "Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate",
        "Proxy-Authorization", "TE", "Trailer", "Transfer-Encoding", "Upgrade",
        "Content-Length", "Expect",
    };
    for (size_t i = 0; i < sizeof HOP / sizeof HOP[0]; i++)
        if (strcasecmp(name, HOP[i]) == 0)
            return 1;
    return 0;
}

int proxy_connection_lists(const char *connection, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = connection; p && *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        size_t span = strcspn(p, ", \t");
        if (span == n && strncasecmp(p, name, n) == 0)
            return 1;
        p += span;
    }
    return 0;
}

int proxy_strip_cookie(const char *cookie, char *out, size_t outlen)
{
    size_t w = 0;
    for (const char *c = cookie; *c;) {
        while (*c == ' ' || *c == ';')
            c++;
        size_t span = strcspn(c, ";");
        while (span && c[span - 1] == ' ')
            span--;
        if (span && strncmp(c, "cube_session=", 13) && strncmp(c, "cube_app=", 9)) {
            if (w + span + (w ? 2 : 0) + 1 > outlen)
                return -1;
            if (w) {
                out[w++] = ';';
                out[w++] = ' ';
            }
            memcpy(out + w, c, span);
            w += span;
        }
        c += span;
        while (*c && *c != ';')
            c++;
    }
    if (outlen)
        out[w] = '\0';
    return (int)w;
}

int proxy_header_name_ok(const char *name)
{
    if (!name || !*name)
        return 0;
    for (const char *p = name; *p; p++)
        if (!(isalnum((unsigned char)*p) || strchr("!#$%&'*+-.^_`|~", *p)))
            return 0;
    return 1;
}

int proxy_header_value_ok(const char *value)
{
    return value && !strpbrk(value, "\r\n");
}

int proxy_is_numeric_host(const char *host)
{
    unsigned char buf[16];
    return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

int proxy_is_loopback(const char *host)
{
    unsigned char a[16];
    if (inet_pton(AF_INET, host, a) == 1)
        return a[0] == 127;
    if (inet_pton(AF_INET6, host, a) != 1)
        return 0;
    static const unsigned char one[16] = {[15] = 1};
    static const unsigned char mapped[12] = {[10] = 0xff, [11] = 0xff};
    return memcmp(a, one, 16) == 0 || (memcmp(a, mapped, 12) == 0 && a[12] == 127);
}

/* -- answer head ------------------------------------------------------------- */

static const char *find_blank_line(const char *buf, size_t len)
{
    for (size_t i = 0; i + 3 < len; i++)
        if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n')
            return buf + i + 4;
    return NULL;
}

static int parse_status_line(const char *p, const char *eol, struct proxy_head *h)
{
    if (eol - p < 12 || strncmp(p, "HTTP/1.", 7) != 0 || !isdigit((unsigned char)p[7]) ||
        p[8] != ' ')
        return -1;
    h->minor = p[7] - '0';
    for (int i = 9; i < 12; i++)
        if (!isdigit((unsigned char)p[i]))
            return -1;
    if (eol - p > 12 && p[12] != ' ')
        return -1;
    h->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
    return h->status >= 100 && h->status <= 599 ? 0 : -1;
}

int proxy_parse_head(const char *buf, size_t len, struct proxy_head *h)
{
    const char *end = find_blank_line(buf, len);
    if (!end)
        return len > PROXY_HEAD_MAX ? -1 : 0;
    h->n = 0; /* h->h[] is filled as far as n: no need to clear 3 KiB */
    h->len = (size_t)(end - buf);
    const char *p = buf, *eol = strstr(p, "\r\n");
    if (parse_status_line(p, eol, h) < 0)
        return -1;
    for (p = eol + 2; p < end - 2; p = eol + 2) {
        eol = p;
        while (eol[0] != '\r' || eol[1] != '\n')
            eol++;
        const char *colon = memchr(p, ':', (size_t)(eol - p));
        if (!colon || colon == p || *p == ' ' || *p == '\t')
            return -1; /* no obsolete line folding */
        if (h->n == sizeof h->h / sizeof h->h[0])
            return -1;
        const char *v = colon + 1, *ve = eol;
        while (v < ve && (*v == ' ' || *v == '\t'))
            v++;
        while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
            ve--;
        h->h[h->n].name = p;
        h->h[h->n].nlen = (size_t)(colon - p);
        h->h[h->n].value = v;
        h->h[h->n].vlen = (size_t)(ve - v);
        h->n++;
    }
    return 1;
}

const char *proxy_head_get(const struct proxy_head *h, const char *name, char *out,
                           size_t outlen)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < h->n; i++)
        if (h->h[i].nlen == n && strncasecmp(h->h[i].name, name, n) == 0) {
            size_t v = h->h[i].vlen < outlen - 1 ? h->h[i].vlen : outlen - 1;
            memcpy(out, h->h[i].value, v);
            out[v] = '\0';
            return out;
        }
    return NULL;
}

/* -- chunked bodies ---------------------------------------------------------- */

enum { CH_SIZE = 0, CH_EXT, CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF, CH_TRAILER,
       CH_TRAILER_LINE, CH_TRAILER_LF, CH_END_LF };

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One byte of framing (everything but chunk data). 0 or -1. */
static int chunk_frame_byte(struct proxy_chunked *c, char b)
{
    switch (c->state) {
    case CH_SIZE:
        if (hexval(b) >= 0) {
            if (c->left >> 56)
                return -1;
            c->left = c->left * 16 + (uint64_t)hexval(b);
            return 0;
        }
        if (b == ';' || b == ' ' || b == '\t') {
            c->state = CH_EXT;
            return 0;
        }
        if (b != '\r')
            return -1;
        c->state = CH_SIZE_LF;
        return 0;
    case CH_EXT:
        if (b == '\r')
            c->state = CH_SIZE_LF;
        return 0;
    case CH_SIZE_LF:
        if (b != '\n')
            return -1;
        c->state = c->left ? CH_DATA : CH_TRAILER;
        return 0;
    case CH_DATA_CR:
        c->state = CH_DATA_LF;
        return b == '\r' ? 0 : -1;
    case CH_DATA_LF:
        c->state = CH_SIZE;
        c->left = 0;
        return b == '\n' ? 0 : -1;
    case CH_TRAILER: /* at a line start: CR ends the trailers */
        c->state = b == '\r' ? CH_END_LF : CH_TRAILER_LINE;
        return 0;
    case CH_TRAILER_LINE:
        if (b == '\r')
            c->state = CH_TRAILER_LF;
        return 0;
    case CH_TRAILER_LF:
        c->state = CH_TRAILER;
        return b == '\n' ? 0 : -1;
    case CH_END_LF:
        if (b != '\n')
            return -1;
        c->done = 1;
        return 0;
    }
    return -1;
}

int proxy_chunked_decode(struct proxy_chunked *c, const char *in, size_t inlen, size_t *used,
                         char *out, size_t outmax, size_t *made)
{
    size_t i = 0, o = 0;
    while (i < inlen && !c->done) {
        if (c->state == CH_DATA) {
            size_t n = inlen - i;
            if (n > c->left)
                n = (size_t)c->left;
            if (n > outmax - o)
                n = outmax - o;
            if (!n)
                break; /* out is full */
            memcpy(out + o, in + i, n);
            i += n;
            o += n;
            c->left -= n;
            if (!c->left)
                c->state = CH_DATA_CR;
            continue;
        }
        if (chunk_frame_byte(c, in[i++]) < 0)
            return -1;
    }
    *used = i;
    *made = o;
    return 0;
}
