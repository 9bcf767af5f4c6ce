/* proxy_mirror.c — shadow traffic (ABI 1.5 mirror_host/port/percent): a
 * sampled share of a prefix's requests is copied to a mirror upstream
 * whose answer is discarded.
 *
 * The copy never delays the primary: its head and body are collected as
 * the primary's are relayed (bodies up to the prefix's mirror_body_max;
 * larger ones are not mirrored), and once the body ended the whole copy
 * is handed to one thread of its own, which connects, writes it and reads
 * the answer up to its status line, all non-blocking on one epoll set,
 * then closes. Outcomes only count: ok, or error (no connection, a write
 * or read failure, no status within PROXY_MIRROR_TIMEOUT_MS, a 5xx, or
 * dropped because PROXY_MIRROR_INFLIGHT_MAX copies or
 * PROXY_MIRROR_BYTES_MAX bytes of them are in flight). Jobs
 * are touched by the thread alone once handed over, so their epoll
 * pointers cannot go stale within a batch (a finished job is freed after
 * the batch). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.h"
#include "http/http_req.h"
#include "proxy_priv.h"
#include "base/clock.h"

#define MIRROR_TICK_MS 200

struct mirror_job {
    int type;                          /* PROXY_EV_MIRROR (first: epoll tag) */
    int fd;
    int connected, done;
    char *out;                         /* the request: head, framing, body */
    size_t len, off;
    char in[16];                       /* the answer's first bytes */
    size_t in_len;
    uint64_t deadline_ns;
    char host[64];
    unsigned port;
    struct cube_proxies *px;
    const struct proxy_prefix *pfx;
    struct proxy_stat *kst;
    struct mirror_job *next;
};

struct proxy_mirror {
    pthread_mutex_t mu;
    int ep, efd;
    int wake_tag;                      /* PROXY_EV_WAKE: the eventfd's epoll tag */
    pthread_t thread;
    int started, stopping;
    struct mirror_job *queue;          /* handed over, not started (mu) */
    size_t n, bytes;                   /* queued and live: jobs, their bytes (mu) */
    struct mirror_job *live;           /* the thread's */
};

/* -- on the request's HTTP thread ------------------------------------------------ */

int proxy_mirror_wanted(struct proxy_call *call, const struct cube_proxy_upstream *up)
{
    if (!up->mirror_host[0] || !up->mirror_percent || call->upgrade)
        return 0;
    struct proxy_stat *s = call->kst ? call->kst : &call->pfx->total;
    uint64_t n = atomic_fetch_add(&s->seq, 1);
    if ((n + 1) * up->mirror_percent / 100 == n * up->mirror_percent / 100)
        return 0;
    const char *cl = cube_req_header(call->req, "Content-Length");
    if (cl && strtoull(cl, NULL, 10) > call->pfx->mirror_body_max) {
        proxy_stats_mirror(call->px, call->pfx, call->kst, "skipped");
        return 0;
    }
    snprintf(call->mirror_host, sizeof call->mirror_host, "%s", up->mirror_host);
    call->mirror_port = up->mirror_port;
    return 1;
}

static void drop_copy(struct proxy_call *call)
{
    call->mirror = 0;
    free(call->mhead.p);
    free(call->mbody.p);
    memset(&call->mhead, 0, sizeof call->mhead);
    memset(&call->mbody, 0, sizeof call->mbody);
}

void proxy_mirror_body(struct proxy_call *call, const char *data, size_t len)
{
    if (!call->mirror)
        return;
    if (call->mbody.len + len > call->pfx->mirror_body_max) {
        drop_copy(call);
        proxy_stats_mirror(call->px, call->pfx, call->kst, "skipped");
        return;
    }
    cube_text_put(&call->mbody, data, len);
}

static void *mirror_main(void *arg);

/* Queues a job; 0, or -1 when it must be dropped. */
static int hand_over(struct proxy_mirror *m, struct mirror_job *j)
{
    pthread_mutex_lock(&m->mu);
    if (!m->stopping && !m->started) {
        if (pthread_create(&m->thread, NULL, mirror_main, m) == 0)
            m->started = 1;
        else
            cube_log(CUBE_LOG_ERROR, "proxy", "cannot start the mirror thread");
    }
    int ok = m->started && !m->stopping && m->n < PROXY_MIRROR_INFLIGHT_MAX &&
             m->bytes + j->len <= PROXY_MIRROR_BYTES_MAX;
    if (ok) {
        j->next = m->queue;
        m->queue = j;
        m->n++;
        m->bytes += j->len;
    }
    pthread_mutex_unlock(&m->mu);
    if (ok)
        proxy_poll_kick(m->efd);
    return ok ? 0 : -1;
}

void proxy_mirror_send(struct proxy_call *call)
{
    if (!call->mirror)
        return;
    char framing[96];
    int n = snprintf(framing, sizeof framing, "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                     call->mbody.len);
    struct mirror_job *j = calloc(1, sizeof *j);
    struct cube_text out = call->mhead;
    memset(&call->mhead, 0, sizeof call->mhead);
    cube_text_put(&out, framing, (size_t)n);
    if (call->mbody.len)
        cube_text_put(&out, call->mbody.p, call->mbody.len);
    drop_copy(call);
    if (!j || out.oom || !call->px->mirror) {
        free(j);
        free(out.p);
        proxy_stats_mirror(call->px, call->pfx, call->kst, "error");
        return;
    }
    j->type = PROXY_EV_MIRROR;
    j->fd = -1;
    j->out = out.p;
    j->len = out.len;
    memcpy(j->host, call->mirror_host, sizeof j->host);
    j->port = call->mirror_port;
    j->px = call->px;
    j->pfx = call->pfx;
    j->kst = call->kst;
    if (hand_over(call->px->mirror, j) < 0) {
        free(j->out);
        free(j);
        proxy_stats_mirror(call->px, call->pfx, call->kst, "error");
        return;
    }
    call->mirrored = 1;
    proxy_stats_mirror(call->px, call->pfx, call->kst, "handed");
}

/* -- the mirror thread ------------------------------------------------------------ */

static void finish(struct proxy_mirror *m, struct mirror_job *j, int ok)
{
    if (j->done)
        return;
    j->done = 1;
    if (j->fd >= 0) {
        epoll_ctl(m->ep, EPOLL_CTL_DEL, j->fd, NULL);
        close(j->fd);
        j->fd = -1;
    }
    proxy_stats_mirror(j->px, j->pfx, j->kst, ok ? "ok" : "error");
}

static void start(struct proxy_mirror *m, struct mirror_job *j)
{
    char err[200];
    int pending;
    j->deadline_ns = cube_now_ns() + (uint64_t)PROXY_MIRROR_TIMEOUT_MS * 1000000u;
    j->fd = proxy_dial_start(j->host, j->port, &pending, err, sizeof err);
    struct epoll_event ev = {.events = EPOLLOUT | EPOLLIN | EPOLLRDHUP, .data.ptr = j};
    j->connected = j->fd >= 0 && !pending;
    if (j->fd < 0 || epoll_ctl(m->ep, EPOLL_CTL_ADD, j->fd, &ev) < 0)
        finish(m, j, 0);
}

/* Reads the answer's first bytes: 1 when the status line's code is in. */
static int read_status(struct mirror_job *j, int *ok)
{
    ssize_t n = recv(j->fd, j->in + j->in_len, sizeof j->in - 1 - j->in_len, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    if (n <= 0) {
        *ok = 0;
        return 1;
    }
    j->in_len += (size_t)n;
    j->in[j->in_len] = '\0';
    if (j->in_len < 12)
        return 0;
    int status = 0;
    *ok = sscanf(j->in, "HTTP/1.%*1d %3d", &status) == 1 && status >= 100 && status < 500;
    return 1;
}

static void step(struct proxy_mirror *m, struct mirror_job *j, uint32_t events)
{
    int ok;
    if (!j->connected) {
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (getsockopt(j->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
            finish(m, j, 0);
            return;
        }
        j->connected = 1;
    }
    while (j->off < j->len) {
        ssize_t n = send(j->fd, j->out + j->off, j->len - j->off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            j->off += (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;
        } else if (!(n < 0 && errno == EINTR)) {
            finish(m, j, 0);
            return;
        }
    }
    if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) && read_status(j, &ok)) {
        finish(m, j, ok);
        return;
    }
    if (j->off == j->len) {
        struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = j};
        if (epoll_ctl(m->ep, EPOLL_CTL_MOD, j->fd, &ev) < 0)
            finish(m, j, 0);
    }
}

/* Frees finished jobs; times out the rest. */
static void sweep(struct proxy_mirror *m)
{
    uint64_t now = cube_now_ns();
    size_t freed = 0, bytes = 0;
    for (struct mirror_job **jp = &m->live; *jp;) {
        struct mirror_job *j = *jp;
        if (!j->done && j->deadline_ns <= now)
            finish(m, j, 0);
        if (!j->done) {
            jp = &j->next;
            continue;
        }
        *jp = j->next;
        bytes += j->len;
        free(j->out);
        free(j);
        freed++;
    }
    if (freed) {
        pthread_mutex_lock(&m->mu);
        m->n -= freed;
        m->bytes -= bytes;
        pthread_mutex_unlock(&m->mu);
    }
}

static void *mirror_main(void *arg)
{
    struct proxy_mirror *m = arg;
    struct epoll_event evs[64];
    for (;;) {
        int n = epoll_wait(m->ep, evs, 64, MIRROR_TICK_MS);
        pthread_mutex_lock(&m->mu);
        int stop = m->stopping;
        struct mirror_job *q = m->queue;
        m->queue = NULL;
        pthread_mutex_unlock(&m->mu);
        for (int i = 0; i < n; i++) {
            if (*(int *)evs[i].data.ptr == PROXY_EV_MIRROR) {
                struct mirror_job *j = evs[i].data.ptr;
                if (!j->done)
                    step(m, j, evs[i].events);
            } else {
                proxy_poll_drain(m->efd);
            }
        }
        while (q) {
            struct mirror_job *j = q;
            q = j->next;
            j->next = m->live;
            m->live = j;
            if (stop)
                j->done = 1;   /* dropped uncounted: the server is stopping */
            else
                start(m, j);
        }
        if (stop)
            for (struct mirror_job *j = m->live; j; j = j->next)
                if (!j->done && j->fd >= 0) {
                    close(j->fd);
                    j->done = 1;
                }
        sweep(m);
        if (stop)
            break;
    }
    return NULL;
}

struct proxy_mirror *proxy_mirror_new(void)
{
    struct proxy_mirror *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    pthread_mutex_init(&m->mu, NULL);
    if (proxy_poll_open(&m->ep, &m->efd, &m->wake_tag) < 0) {
        proxy_mirror_free(m);
        return NULL;
    }
    return m;
}

void proxy_mirror_stop(struct proxy_mirror *m)
{
    pthread_mutex_lock(&m->mu);
    int was = m->stopping, started = m->started;
    m->stopping = 1;
    pthread_mutex_unlock(&m->mu);
    if (was || !started)
        return;
    proxy_poll_kick(m->efd);
    pthread_join(m->thread, NULL);
}

void proxy_mirror_free(struct proxy_mirror *m)
{
    if (!m)
        return;
    while (m->queue) {   /* handed after the thread ended */
        struct mirror_job *j = m->queue;
        m->queue = j->next;
        free(j->out);
        free(j);
    }
    proxy_poll_close(m->ep, m->efd);
    pthread_mutex_destroy(&m->mu);
    free(m);
}
