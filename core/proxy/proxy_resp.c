/* proxy_resp.c — the upstream's answer on its way out: the head (read
 * without holding the HTTP thread: the request parks until bytes come),
 * the body streamed through an MHD content reader (never buffered whole;
 * chunked bodies are decoded here and re-chunked by MHD), and a 101 that
 * hands both sockets to the relay thread. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "ctx/ctx.h"
#include "http/http_req.h"
#include "base/log.h"
#include "proxy_priv.h"
#include "base/clock.h"

enum { BODY_NONE, BODY_LENGTH, BODY_CHUNKED, BODY_CLOSE };

/* The answer's body reader; owned by the MHD response (freed by its
 * free callback), linked to the request while both live. */
struct proxy_body {
    struct cube_proxies *px;
    struct proxy_conn *up;
    struct MHD_Connection *mhd;
    struct proxy_call *call;           /* NULL once the request completed */
    int mode;
    uint64_t left;                     /* BODY_LENGTH */
    struct proxy_chunked dec;
    int eof, done, keepalive, failed;
    uint64_t bytes;                    /* sent to the caller */
    size_t off, len;                   /* raw bytes waiting in buf */
    size_t cap;
    char *buf;
};

/* What a 101 needs until the upgrade handler runs. */
struct proxy_upgrade {
    struct proxy_conn *up;
    char *pending;                     /* upstream bytes after the head */
    size_t pending_len;
};

static int finished(struct proxy_body *b)
{
    if ((b->mode == BODY_LENGTH && !b->left) || (b->mode == BODY_CHUNKED && b->dec.done) ||
        b->mode == BODY_NONE || (b->mode == BODY_CLOSE && b->eof && !b->len))
        b->done = 1;
    return b->done;
}

/* Moves buffered raw bytes into out; the count produced, -1 on bad framing. */
static ssize_t drain(struct proxy_body *b, char *out, size_t max)
{
    size_t used, made;
    if (b->mode == BODY_CHUNKED) {
        if (proxy_chunked_decode(&b->dec, b->buf + b->off, b->len, &used, out, max, &made) < 0)
            return -1;
    } else {
        made = used = b->len < max ? b->len : max;
        if (b->mode == BODY_LENGTH && used > b->left)
            made = used = (size_t)b->left;
        memcpy(out, b->buf + b->off, made);
        if (b->mode == BODY_LENGTH)
            b->left -= made;
    }
    b->off += used;
    b->len -= used;
    if (!b->len)
        b->off = 0;
    return (ssize_t)made;
}

static ssize_t body_read(void *cls, uint64_t pos, char *out, size_t max)
{
    (void)pos;
    struct proxy_body *b = cls;
    if (b->up->wake == PROXY_WAKE_STOP)
        goto fail;
    for (;;) {
        if (finished(b))
            return MHD_CONTENT_READER_END_OF_STREAM;
        if (b->len) {
            ssize_t n = drain(b, out, max);
            if (n < 0)
                goto fail;
            if (n > 0) {
                b->bytes += (uint64_t)n;
                return n;
            }
            continue;
        }
        if (b->eof)
            goto fail; /* the upstream ended before the body did */
        ssize_t n = recv(b->up->fd, b->buf, b->cap, MSG_DONTWAIT);
        if (n > 0) {
            b->len = (size_t)n;
        } else if (n == 0) {
            b->eof = 1;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (proxy_loop_park(b->px->loop, b->up, b->mhd, 0) < 0)
                goto fail;
            return 0;
        } else if (errno != EINTR) {
            goto fail;
        }
    }
fail:
    b->failed = 1;
    return MHD_CONTENT_READER_END_WITH_ERROR;
}

static void body_free(void *cls)
{
    struct proxy_body *b = cls;
    if (b->call) {
        b->call->req->resp_bytes = b->bytes;
        b->call->body_failed = b->failed;
        b->call->body = NULL;
    }
    if (!b->failed && finished(b) && b->keepalive && !b->len)
        proxy_conn_put(b->px, b->up);
    else
        proxy_conn_close(b->px, b->up);
    free(b->buf);
    free(b);
}

/* -- the answer head ------------------------------------------------------------ */

static int skip_header(const struct proxy_head *h, size_t i, const char *connection)
{
    char name[64];
    if (h->h[i].nlen >= sizeof name)
        return 0;
    memcpy(name, h->h[i].name, h->h[i].nlen);
    name[h->h[i].nlen] = '\0';
    if (!strcasecmp(name, "Set-Cookie")) {   /* an upstream may not set Cube's cookies */
        const char *v = h->h[i].value;
        size_t n = h->h[i].vlen;
        while (n && *v == ' ')
            v++, n--;
        return (n >= 13 && !strncmp(v, "cube_session=", 13)) ||
               (n >= 9 && !strncmp(v, "cube_app=", 9));
    }
    return proxy_hop_header(name) || proxy_connection_lists(connection, name) ||
           !strcasecmp(name, "X-Request-Id");
}

/* Copies the answer's end-to-end headers onto resp. */
static void copy_headers(struct MHD_Response *resp, const struct proxy_head *h)
{
    char connection[256] = "";
    proxy_head_get(h, "Connection", connection, sizeof connection);
    char name[256], value[1024];   /* most headers: copied here, not allocated */
    for (size_t i = 0; i < h->n; i++) {
        if (skip_header(h, i, connection))
            continue;
        size_t nlen = h->h[i].nlen, vlen = h->h[i].vlen;
        char *n = nlen < sizeof name ? name : malloc(nlen + 1);
        char *v = vlen < sizeof value ? value : malloc(vlen + 1);
        if (n && v) {
            memcpy(n, h->h[i].name, nlen);
            n[nlen] = '\0';
            memcpy(v, h->h[i].value, vlen);
            v[vlen] = '\0';
            MHD_add_response_header(resp, n, v);
        }
        if (n != name)
            free(n);
        if (v != value)
            free(v);
    }
}

static int body_mode(struct proxy_call *call, const struct proxy_head *h, uint64_t *size)
{
    char te[128], cl[32];
    *size = MHD_SIZE_UNKNOWN;
    int no_body = call->head_only || h->status == 204 || h->status == 304 ||
                  h->status < 200;
    if (proxy_head_get(h, "Transfer-Encoding", te, sizeof te) && strcasestr(te, "chunked"))
        return no_body ? BODY_NONE : BODY_CHUNKED;
    if (proxy_head_get(h, "Content-Length", cl, sizeof cl)) {
        char *end;
        unsigned long long n = strtoull(cl, &end, 10);
        if (end == cl || *end)
            return -1;
        *size = n;
        return no_body ? BODY_NONE : BODY_LENGTH;
    }
    return no_body ? BODY_NONE : BODY_CLOSE;
}

/* A small answer that arrived whole with its head goes out as one buffer
 * (one write, no content reader) and the connection back to the pool. */
static int answer_whole(struct proxy_call *call, const struct proxy_head *h, size_t size,
                        int keepalive)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        size, call->in + h->len, MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return cube_http_answer_error(call->req, 503, "Unavailable", "out of memory");
    if (keepalive && call->in_len - h->len == size)
        proxy_conn_put(call->px, call->up);
    else
        proxy_conn_close(call->px, call->up);
    call->up = NULL;
    call->req->resp_bytes = size;
    copy_headers(resp, h);
    return cube_http_queue(call->req, h->status, resp);
}

static int answer_body(struct proxy_call *call, const struct proxy_head *h)
{
    uint64_t size;
    int mode = body_mode(call, h, &size);
    if (mode < 0)
        return cube_http_answer_error(call->req, 502, "BadGateway",
                                      "the upstream's answer is malformed");
    size_t extra = call->in_len - h->len;
    char conn[128] = "";
    proxy_head_get(h, "Connection", conn, sizeof conn);
    int keepalive = mode != BODY_CLOSE && h->minor >= 1 && !proxy_connection_lists(conn, "close");
    if (mode == BODY_LENGTH && size <= extra && size <= PROXY_IO_BLOCK)
        return answer_whole(call, h, (size_t)size, keepalive);
    struct proxy_body *b = calloc(1, sizeof *b);
    if (b) /* bytes read with the head may exceed one block */
        b->cap = extra > PROXY_IO_BLOCK ? extra : PROXY_IO_BLOCK;
    if (!b || !(b->buf = malloc(b->cap))) {
        free(b);
        return cube_http_answer_error(call->req, 503, "Unavailable", "out of memory");
    }
    b->px = call->px;
    b->up = call->up;
    b->mhd = call->req->conn;
    b->mode = mode;
    b->left = mode == BODY_LENGTH ? size : 0;
    b->keepalive = keepalive;
    memcpy(b->buf, call->in + h->len, extra);
    b->len = extra;
    if (mode == BODY_NONE && call->head_only && size == MHD_SIZE_UNKNOWN)
        size = 0;
    struct MHD_Response *resp = MHD_create_response_from_callback(
        mode == BODY_NONE && !call->head_only ? 0 : size, PROXY_IO_BLOCK, body_read, b,
        body_free);
    if (!resp) {
        free(b->buf);
        free(b);
        return cube_http_answer_error(call->req, 503, "Unavailable", "out of memory");
    }
    call->up = NULL; /* the body owns it now */
    b->call = call;
    call->body = b;
    copy_headers(resp, h);
    return cube_http_queue(call->req, h->status, resp);
}

/* MHD's upgrade handler: the 101 went out; splice the two sockets. Runs
 * before the request completes, so the call is still alive. */
static void on_upgrade(void *cls, struct MHD_Connection *connection, void *con_cls,
                       const char *extra_in, size_t extra_len, MHD_socket sock,
                       struct MHD_UpgradeResponseHandle *urh)
{
    (void)con_cls;
    struct proxy_call *call = cls;
    struct proxy_upgrade *u = call->upg;
    struct proxy_conn *up = u->up;
    u->up = NULL;
    proxy_loop_forget(call->px->loop, up);
    int fd = up->fd;
    free(up);
    if (proxy_loop_relay(call->px->loop, sock, connection, urh, fd, extra_in, extra_len, u->pending,
                         u->pending_len) < 0)
        cube_log(CUBE_LOG_WARN, "proxy", "%s: cannot relay the upgraded connection",
                 call->req->path);
}

static int answer_upgrade(struct proxy_call *call, const struct proxy_head *h)
{
    char upgrade[128];
    struct proxy_upgrade *u = calloc(1, sizeof *u);
    size_t extra = call->in_len - h->len;
    if (!u || !proxy_head_get(h, "Upgrade", upgrade, sizeof upgrade) ||
        (extra && !(u->pending = malloc(extra)))) {
        free(u);
        return cube_http_answer_error(call->req, 502, "BadGateway",
                                      "the upstream switched protocols without Upgrade");
    }
    if (extra)
        memcpy(u->pending, call->in + h->len, extra);
    u->pending_len = extra;
    u->up = call->up;
    call->up = NULL;
    call->upg = u;
    struct MHD_Response *resp = MHD_create_response_for_upgrade(on_upgrade, call);
    if (!resp)
        return cube_http_answer_error(call->req, 503, "Unavailable", "out of memory");
    copy_headers(resp, h);
    MHD_add_response_header(resp, "Upgrade", upgrade);
    return cube_http_queue(call->req, 101, resp);
}

/* -- waiting for the head ---------------------------------------------------------- */

static int answer_head(struct proxy_call *call, const struct proxy_head *h)
{
    if (h->status == 101 && call->upgrade)
        return answer_upgrade(call, h);
    if (h->status == 101)
        return cube_http_answer_error(call->req, 502, "BadGateway",
                                      "the upstream switched protocols unasked");
    return answer_body(call, h);
}

/* Reads what the upstream sent; 1 for bytes, 0 for EOF, -1 for none yet
 * (EAGAIN), -2 for an error. */
static int read_more(struct proxy_call *call)
{
    if (call->in_cap - call->in_len < 4096) {
        size_t cap = call->in_cap ? call->in_cap * 2 : 8192;
        char *g = cap > 2 * PROXY_HEAD_MAX + 8192 ? NULL : realloc(call->in, cap);
        if (!g)
            return -2;
        call->in = g;
        call->in_cap = cap;
    }
    ssize_t n = recv(call->up->fd, call->in + call->in_len, call->in_cap - call->in_len,
                     MSG_DONTWAIT);
    if (n > 0) {
        call->in_len += (size_t)n;
        return 1;
    }
    if (n == 0)
        return 0;
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? -1 : -2;
}

/* The upstream closed before answering: a pooled connection it had
 * already given up on is retried once on a fresh one (bodyless only). */
static int retry_fresh(struct proxy_call *call)
{
    if (!call->up->reused || call->retried || call->has_body || call->in_len)
        return 0;
    call->retried = 1;
    char key[sizeof call->up->key], host[64];
    unsigned port;
    memcpy(key, call->up->key, sizeof key);
    proxy_conn_close(call->px, call->up);
    call->up = NULL;
    if (sscanf(key, "%63s %u", host, &port) != 2)
        return 0;
    return proxy_send_head(call, host, port) == 0 ? 1 : -1;
}

/* Parks the request until the upstream sends or the head's deadline
 * passes (0), or answers 503 when the server is stopping (1). */
static int park_for_head(struct proxy_call *call)
{
    uint64_t now = cube_now_ns();
    unsigned left = call->deadline_ns > now
                        ? (unsigned)((call->deadline_ns - now) / 1000000u) + 1 : 1;
    if (proxy_loop_park(call->px->loop, call->up, call->req->conn, left) < 0)
        return cube_http_answer_error(call->req, 503, "Unavailable",
                                      "the server is stopping"), 1;
    return 0;
}

int proxy_resp_try(struct proxy_call *call)
{
    cube_req *req = call->req;
    if (!call->started) {
        call->started = 1;
        call->deadline_ns = cube_now_ns() + (uint64_t)PROXY_HEAD_TIMEOUT_MS * 1000000u;
        /* Just sent: the answer cannot have come yet, so a read now would
         * only say EAGAIN (a system call a request for nothing). Parking on
         * the HTTP thread's own loop costs no hop. */
        if (!call->in_len)
            return park_for_head(call);
    } else if (call->up->wake == PROXY_WAKE_TIMEOUT) {
        return cube_http_answer_error(req, 504, "GatewayTimeout",
                                      "the upstream did not answer in time"), 1;
    } else if (call->up->wake == PROXY_WAKE_STOP) {
        return cube_http_answer_error(req, 503, "Unavailable", "the server is stopping"), 1;
    }
    for (;;) {
        struct proxy_head h;
        int rc = proxy_parse_head(call->in, call->in_len, &h);
        if (rc > 0 && h.status < 200 && h.status != 101) {
            memmove(call->in, call->in + h.len, call->in_len - h.len); /* 100 Continue */
            call->in_len -= h.len;
            continue;
        }
        if (rc > 0) {
            answer_head(call, &h);
            call->from_upstream = req->status == h.status;
            return 1;
        }
        if (rc < 0)
            return cube_http_answer_error(req, 502, "BadGateway",
                                          "the upstream's answer head is malformed"), 1;
        int got = read_more(call);
        if (got > 0)
            continue;
        if (got == 0) {
            int retried = retry_fresh(call);
            if (retried > 0)
                continue;
            if (retried < 0)
                return 1; /* answered 502 */
        }
        if (got == 0 || got == -2)
            return cube_http_answer_error(req, 502, "BadGateway",
                                          "the upstream closed the connection without "
                                          "answering"), 1;
        return park_for_head(call);
    }
}

void cube_proxy_req_done(cube_req *req)
{
    struct proxy_call *call = req->proxy;
    if (!call)
        return;
    proxy_park_forget(call);  /* defensive: MHD does not end suspended requests */
    if (call->body) {
        req->resp_bytes = call->body->bytes;
        call->body_failed = call->body->failed;
        call->body->call = NULL;
    }
    if (call->upg) {
        proxy_conn_close(call->px, call->upg->up);
        free(call->upg->pending);
        free(call->upg);
    }
    proxy_conn_close(call->px, call->up);
    proxy_count(call->px, call->pfx, req->status ? req->status : 499);
    proxy_stats_end(call);
    free(call->mhead.p);
    free(call->mbody.p);
    free(call->head);
    free(call->in);
    free(call);
    req->proxy = NULL;
}
