/* proxy_loop.c — waiting for upstreams, and the proxy's relay thread.
 *
 *  - parks requests: an HTTP connection waiting for its upstream (the
 *    answer head, or more body bytes) is suspended, holding no HTTP
 *    thread, and resumed when the upstream socket turns readable or its
 *    deadline passes. The HTTP thread's own loop watches the socket
 *    (cube_http_hold, http_loop.h); this thread's epoll only where the
 *    caller is no HTTP thread;
 *  - splices upgraded connections (WebSockets) byte for byte both ways.
 *
 * Why one epoll thread rather than a thread per WebSocket: a Jupyter user
 * keeps a kernel channel (and often a terminal and the events socket) open
 * per tab, mostly idle; a thread each would cost a stack and a context
 * switch per frame for no gain, while a level-triggered epoll loop moving
 * bytes through a small buffer per direction costs two syscalls a frame
 * and scales to thousands of sockets. Relays never block: a full buffer
 * stops reading its source until the destination drains (backpressure).
 *
 * Safety of epoll pointers: a parked connection is armed EPOLLONESHOT and
 * only this thread resumes it, after the event fired (disarmed) or after
 * removing the fd (deadline), so no stale event can name a freed
 * connection. Relays are created armed and freed only by this thread (or
 * by proxy_loop_stop after the thread ended). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.h"
#include "proxy_priv.h"
#include "base/clock.h"

#define RELAY_BUF 16384

struct relay;
struct relay_end {
    int type;                  /* PROXY_EV_RELAY (first: epoll tag) */
    struct relay *r;
    int side;                  /* 0: client, 1: upstream */
};

struct relay {
    struct relay_end end[2];
    int fd[2];
    struct MHD_UpgradeResponseHandle *urh;
    struct cube_http_thread *http;   /* the client connection's HTTP thread */
    char *buf[2];              /* buf[i]: read from side i, for side !i */
    size_t cap[2], off[2], len[2];
    int eof[2];                /* side i ended its sending */
    int shut[2];               /* we ended our sending to side i */
    uint32_t want[2];          /* current epoll interest of fd[i] */
    int added[2];              /* fd[i] is in the epoll set */
    int dead;                  /* closed; freed after the current batch */
    struct relay *next, *prev;
};

struct proxy_loop {
    int ep, efd;
    pthread_t thread;
    pthread_mutex_t mu;
    int stopping;
    int wake_tag;              /* PROXY_EV_WAKE: the eventfd's epoll tag */
    struct proxy_conn *parked; /* every parked connection (mu) */
    struct relay *relays;      /* every live relay (mu) */
    struct relay *dead;        /* closed in this batch; loop thread only */
    uint64_t last_scan_ns;
};

/* -- parking ----------------------------------------------------------------- */

static void unlink_parked(struct proxy_loop *l, struct proxy_conn *c)
{
    if (c->prev_parked)
        c->prev_parked->next_parked = c->next_parked;
    else
        l->parked = c->next_parked;
    if (c->next_parked)
        c->next_parked->prev_parked = c->prev_parked;
    c->next_parked = c->prev_parked = NULL;
}

/* Resumes c's HTTP connection. Caller holds mu. */
static void unpark(struct proxy_loop *l, struct proxy_conn *c, int why)
{
    if (!c->parked)
        return;
    c->parked = 0;
    c->wake = why;
    unlink_parked(l, c);
    cube_http_resume(c->mhd);
}

int proxy_loop_park(struct proxy_loop *l, struct proxy_conn *c, struct MHD_Connection *mhd,
                    unsigned timeout_ms)
{
    /* On an HTTP thread (every proxied request is), the thread's own epoll
     * loop watches the upstream: no hop to this thread and back. */
    int held = cube_http_hold(&c->hold, c->fd, mhd, timeout_ms, &c->wake);
    if (held == 0)
        return 0;
    if (held == -2) {
        c->wake = PROXY_WAKE_STOP;
        return -1;
    }
    pthread_mutex_lock(&l->mu);
    if (l->stopping) {
        pthread_mutex_unlock(&l->mu);
        c->wake = PROXY_WAKE_STOP;
        return -1;
    }
    c->mhd = mhd;
    c->parked = 1;
    c->wake = PROXY_WAKE_READY;
    c->deadline_ns = timeout_ms ? cube_now_ns() + (uint64_t)timeout_ms * 1000000u : 0;
    c->prev_parked = NULL;
    c->next_parked = l->parked;
    if (l->parked)
        l->parked->prev_parked = c;
    l->parked = c;
    MHD_suspend_connection(mhd);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT, .data.ptr = c};
    if (epoll_ctl(l->ep, c->in_epoll ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd, &ev) < 0) {
        cube_log(CUBE_LOG_ERROR, "proxy", "epoll_ctl: %s", strerror(errno));
        unpark(l, c, PROXY_WAKE_STOP);
    } else {
        c->in_epoll = 1;
    }
    pthread_mutex_unlock(&l->mu);
    return 0;
}

void proxy_loop_forget(struct proxy_loop *l, struct proxy_conn *c)
{
    cube_http_hold_forget(&c->hold);
    pthread_mutex_lock(&l->mu);
    if (c->in_epoll)
        epoll_ctl(l->ep, EPOLL_CTL_DEL, c->fd, NULL);
    c->in_epoll = 0;
    pthread_mutex_unlock(&l->mu);
}

/* Resumes connections whose deadline passed (about once a second). */
static void expire_parked(struct proxy_loop *l)
{
    uint64_t now = cube_now_ns();
    if (now - l->last_scan_ns < 500000000u)
        return;
    l->last_scan_ns = now;
    pthread_mutex_lock(&l->mu);
    for (struct proxy_conn *c = l->parked, *next; c; c = next) {
        next = c->next_parked;
        if (!c->deadline_ns || c->deadline_ns > now)
            continue;
        epoll_ctl(l->ep, EPOLL_CTL_DEL, c->fd, NULL);
        c->in_epoll = 0;
        unpark(l, c, PROXY_WAKE_TIMEOUT);
    }
    pthread_mutex_unlock(&l->mu);
}

/* -- relays ------------------------------------------------------------------ */

/* Closes both sockets and moves r to the dead list: the same epoll batch
 * may still hold an event for its other end, so the memory is freed by
 * free_dead() after the batch. Caller holds mu. */
static void relay_close(struct proxy_loop *l, struct relay *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        l->relays = r->next;
    if (r->next)
        r->next->prev = r->prev;
    epoll_ctl(l->ep, EPOLL_CTL_DEL, r->fd[0], NULL);
    close(r->fd[1]);
    MHD_upgrade_action(r->urh, MHD_UPGRADE_ACTION_CLOSE);
    cube_http_wake(r->http);   /* its thread ends the connection */
    r->dead = 1;
    r->next = l->dead;
    l->dead = r;
}

static void free_dead(struct proxy_loop *l)
{
    while (l->dead) {
        struct relay *r = l->dead;
        l->dead = r->next;
        free(r->buf[0]);
        free(r->buf[1]);
        free(r);
    }
}

/* Moves what it can from side s to side !s. -1 on a socket error. */
static int relay_pump(struct relay *r, int s)
{
    int d = !s;
    if (!r->eof[s] && r->off[s] + r->len[s] < r->cap[s]) {
        ssize_t n = recv(r->fd[s], r->buf[s] + r->off[s] + r->len[s],
                         r->cap[s] - r->off[s] - r->len[s], 0);
        if (n > 0)
            r->len[s] += (size_t)n;
        else if (n == 0)
            r->eof[s] = 1;
        else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return -1;
    }
    if (r->len[s]) {
        ssize_t n = send(r->fd[d], r->buf[s] + r->off[s], r->len[s], MSG_NOSIGNAL);
        if (n > 0) {
            r->off[s] += (size_t)n;
            r->len[s] -= (size_t)n;
            if (!r->len[s])
                r->off[s] = 0;
        } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            return -1;
        }
    }
    if (r->eof[s] && !r->len[s] && !r->shut[d]) {
        shutdown(r->fd[d], SHUT_WR);
        r->shut[d] = 1;
    }
    return 0;
}

/* Sets each fd's interest; -1 when epoll refuses. */
static int relay_arm(struct proxy_loop *l, struct relay *r)
{
    for (int i = 0; i < 2; i++) {
        /* No EPOLLRDHUP: level-triggered, it would fire without end while
         * the other direction still flows; EPOLLIN sees the EOF once. */
        uint32_t want = 0;
        if (!r->eof[i] && r->off[i] + r->len[i] < r->cap[i])
            want |= EPOLLIN;
        if (r->len[!i])
            want |= EPOLLOUT;
        if (r->added[i] && want == r->want[i])
            continue;
        struct epoll_event ev = {.events = want, .data.ptr = &r->end[i]};
        if (epoll_ctl(l->ep, r->added[i] ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, r->fd[i], &ev) < 0)
            return -1;
        r->added[i] = 1;
        r->want[i] = want;
    }
    return 0;
}

static void relay_event(struct proxy_loop *l, struct relay_end *e, uint32_t events)
{
    struct relay *r = e->r;
    /* under mu: proxy_loop_relay may still be arming a new relay's fds */
    pthread_mutex_lock(&l->mu);
    if (r->dead) {
        pthread_mutex_unlock(&l->mu);
        return;
    }
    if (relay_pump(r, 0) < 0 || relay_pump(r, 1) < 0 ||
        (r->eof[0] && r->eof[1] && !r->len[0] && !r->len[1]) ||
        /* the peer vanished with nothing left to deliver to it */
        ((events & (EPOLLHUP | EPOLLERR)) && r->eof[e->side] && !r->len[!e->side]) ||
        relay_arm(l, r) < 0)
        relay_close(l, r);
    pthread_mutex_unlock(&l->mu);
}

int proxy_loop_relay(struct proxy_loop *l, MHD_socket client, struct MHD_Connection *conn,
                     struct MHD_UpgradeResponseHandle *urh, int upstream,
                     const char *to_upstream, size_t up_len, const char *to_client,
                     size_t cl_len)
{
    struct relay *r = calloc(1, sizeof *r);
    if (!r)
        goto fail;
    /* bytes that came with the handshake may exceed one buffer */
    r->cap[0] = up_len > RELAY_BUF ? up_len : RELAY_BUF;
    r->cap[1] = cl_len > RELAY_BUF ? cl_len : RELAY_BUF;
    if (!(r->buf[0] = malloc(r->cap[0])) || !(r->buf[1] = malloc(r->cap[1])))
        goto fail;
    r->fd[0] = client;
    r->fd[1] = upstream;
    r->urh = urh;
    r->http = cube_http_thread_of(conn);
    for (int i = 0; i < 2; i++)
        r->end[i] = (struct relay_end){PROXY_EV_RELAY, r, i};
    if (up_len)
        memcpy(r->buf[0], to_upstream, up_len);
    r->len[0] = up_len;
    if (cl_len)
        memcpy(r->buf[1], to_client, cl_len);
    r->len[1] = cl_len;
    int fl = fcntl(client, F_GETFL);
    if (fl < 0 || fcntl(client, F_SETFL, fl | O_NONBLOCK) < 0)
        goto fail;
    pthread_mutex_lock(&l->mu);
    if (l->stopping || relay_arm(l, r) < 0) {
        pthread_mutex_unlock(&l->mu);
        goto fail;
    }
    r->next = l->relays;
    if (l->relays)
        l->relays->prev = r;
    l->relays = r;
    pthread_mutex_unlock(&l->mu);
    return 0;
fail:
    if (r && (r->added[0] || r->added[1])) {
        epoll_ctl(l->ep, EPOLL_CTL_DEL, client, NULL);
        epoll_ctl(l->ep, EPOLL_CTL_DEL, upstream, NULL);
    }
    close(upstream);
    MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
    cube_http_wake(cube_http_thread_of(conn));
    if (r) {
        free(r->buf[0]);
        free(r->buf[1]);
    }
    free(r);
    return -1;
}

/* -- the thread -------------------------------------------------------------- */

static void *loop_main(void *arg)
{
    struct proxy_loop *l = arg;
    struct epoll_event evs[64];
    for (;;) {
        int n = epoll_wait(l->ep, evs, 64, 1000);
        pthread_mutex_lock(&l->mu);
        int stop = l->stopping;
        pthread_mutex_unlock(&l->mu);
        if (stop)
            break;
        for (int i = 0; i < n; i++) {
            int type = *(int *)evs[i].data.ptr;
            if (type == PROXY_EV_CONN) {
                pthread_mutex_lock(&l->mu);
                unpark(l, evs[i].data.ptr, PROXY_WAKE_READY);
                pthread_mutex_unlock(&l->mu);
            } else if (type == PROXY_EV_RELAY) {
                relay_event(l, evs[i].data.ptr, evs[i].events);
            } else {
                proxy_poll_drain(l->efd);
            }
        }
        free_dead(l);
        expire_parked(l);
    }
    return NULL;
}

struct proxy_loop *proxy_loop_start(void)
{
    struct proxy_loop *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    pthread_mutex_init(&l->mu, NULL);
    if (proxy_poll_open(&l->ep, &l->efd, &l->wake_tag) < 0 ||
        pthread_create(&l->thread, NULL, loop_main, l) != 0) {
        proxy_loop_free(l);
        return NULL;
    }
    l->last_scan_ns = cube_now_ns();
    return l;
}

void proxy_loop_stop(struct proxy_loop *l)
{
    pthread_mutex_lock(&l->mu);
    int was = l->stopping;
    l->stopping = 1;
    pthread_mutex_unlock(&l->mu);
    if (was)
        return;
    proxy_poll_kick(l->efd);
    pthread_join(l->thread, NULL);
    pthread_mutex_lock(&l->mu);
    while (l->parked) {
        struct proxy_conn *c = l->parked;
        epoll_ctl(l->ep, EPOLL_CTL_DEL, c->fd, NULL);
        c->in_epoll = 0;
        unpark(l, c, PROXY_WAKE_STOP);
    }
    while (l->relays)
        relay_close(l, l->relays);
    free_dead(l);
    pthread_mutex_unlock(&l->mu);
}

void proxy_loop_free(struct proxy_loop *l)
{
    if (!l)
        return;
    proxy_poll_close(l->ep, l->efd);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

/* -- the shared epoll-and-eventfd pair ----------------------------------------- */

int proxy_poll_open(int *ep, int *efd, int *tag)
{
    *tag = PROXY_EV_WAKE;
    *ep = epoll_create1(EPOLL_CLOEXEC);
    *efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = tag};
    if (*ep >= 0 && *efd >= 0 && epoll_ctl(*ep, EPOLL_CTL_ADD, *efd, &ev) == 0)
        return 0;
    proxy_poll_close(*ep, *efd);
    *ep = *efd = -1;
    return -1;
}

void proxy_poll_kick(int efd)
{
    uint64_t one = 1;
    if (write(efd, &one, sizeof one) < 0) { /* full: a wake is pending anyway */ }
}

void proxy_poll_drain(int efd)
{
    uint64_t v;
    if (read(efd, &v, sizeof v) < 0) { /* nothing to drain */ }
}

void proxy_poll_close(int ep, int efd)
{
    if (ep >= 0)
        close(ep);
    if (efd >= 0)
        close(efd);
}
