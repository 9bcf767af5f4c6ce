/* http_query.c — the request target's query string.
 *
 * libmicrohttpd splits the query itself into one record per argument, kept
 * in the connection's fixed memory pool; when a long query exhausts the
 * pool (some 700 short arguments by default), 0.9.75 queues an error but
 * then goes on waiting for header lines, and the client gets no answer
 * until the connection times out. So cubed keeps the query whole instead:
 * the early URI callback, which runs after MHD has found the '?' and
 * before it parses what follows, copies the query and leaves MHD an empty
 * one. Lookups split and decode the copy; the proxy relays it as it came.
 * The same callback refuses a request target with whitespace or control
 * bytes in it (RFC 9112 §3.2), which MHD tolerates and which would change
 * meaning when relayed upstream. */
#include <stdlib.h>
#include <string.h>

#include "http_req.h"
#include "router.h"

/* 1 when the target has a byte a request line may not carry. */
static int bad_target_byte(const char *uri)
{
    for (const unsigned char *p = (const unsigned char *)uri; *p; p++)
        if (*p <= ' ' || *p == 0x7f)
            return 1;
    return 0;
}

static size_t count_params(const char *q)
{
    size_t n = *q ? 1 : 0;
    for (; *q; q++)
        n += *q == '&';
    return n;
}

void *cube_http_uri_early(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    (void)conn;
    cube_req *req = calloc(1, sizeof *req);
    if (!req || !uri)
        return req;
    if (bad_target_byte(uri)) {
        req->early_status = 400;
        req->early_why = "the request target contains whitespace or control characters";
    }
    /* MHD's argument parser reads from q + 1 after this returns; the
     * buffer is MHD's own, writable request line (the const is the
     * callback's promise to callers that only log). */
    char *q = strchr(uri, '?');
    if (!q)
        return req;
    req->query = strdup(q + 1);
    if (!req->query) {
        req->early_status = 503;
        req->early_why = "out of memory";
    } else if (!req->early_status && count_params(req->query) > CUBE_HTTP_MAX_QUERY_PARAMS) {
        req->early_status = 414;
        req->early_why = "the query has too many parameters";
    }
    q[1] = '\0';
    return req;
}

/* Decodes a query key or value in place ('+' is a space); -1 when a
 * percent escape is malformed or decodes to NUL. */
static int decode(char *s)
{
    for (char *p = s; *p; p++)
        if (*p == '+')
            *p = ' ';
    return cube_percent_decode(s);
}

/* The piece's value as a new request-owned string, or NULL. */
static const char *keep(cube_req *req, const char *value, size_t len)
{
    struct cube_scratch *s = malloc(sizeof *s + len + 1);
    if (!s)
        return NULL;
    memcpy(s->text, value, len);
    s->text[len] = '\0';
    if (decode(s->text) < 0) {
        free(s);
        return NULL;
    }
    s->next = req->scratch;
    req->scratch = s;
    return s->text;
}

const char *cube_req_query(cube_req *req, const char *name)
{
    char key[256];
    for (const char *p = req->query; p && *p;) {
        size_t n = strcspn(p, "&");
        size_t kn = strcspn(p, "=&");
        if (kn < sizeof key) {
            memcpy(key, p, kn);
            key[kn] = '\0';
            if (decode(key) == 0 && strcmp(key, name) == 0)
                return kn < n ? keep(req, p + kn + 1, n - kn - 1) : keep(req, "", 0);
        }
        p += n + (p[n] == '&');
    }
    return NULL;
}

const char *cube_req_query_raw(const cube_req *req)
{
    return req->query && *req->query ? req->query : NULL;
}
