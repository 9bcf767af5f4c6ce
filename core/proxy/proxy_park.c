/* proxy_park.c — requests a plugin's resolve parked (ABI 1.5 CUBE_EAGAIN:
 * scale from zero) until it wakes them with proxy_wake.
 *
 * A parked request's HTTP connection is suspended (no HTTP thread waits)
 * and its body is left unread. One thread, started with the first park,
 * watches every parked caller's socket for a hang-up (epoll, EPOLLRDHUP)
 * and the deadlines, and is the only one that resumes parked requests:
 * proxy_wake marks the requests and kicks the thread. So, as in
 * proxy_loop.c, no epoll event can name a request that already ended: a
 * waiter is armed EPOLLONESHOT, and is resumed only by this thread after
 * its event fired (hang-up) or after its fd was taken out of the set, and
 * within one batch events are handled before marked or expired waiters. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "ctx/ctx.h"
#include "http/http_req.h"
#include "base/log.h"
#include "proxy_priv.h"
#include "base/clock.h"

#define PARK_TICK_MS 200

struct proxy_park {
    pthread_mutex_t mu;
    int ep, efd;
    int wake_tag;              /* PROXY_EV_WAKE: the eventfd's epoll tag */
    pthread_t thread;
    int started, stopping;
    struct proxy_wait *list;   /* every parked request (mu) */
};

static struct proxy_call *call_of(struct proxy_wait *w)
{
    return (struct proxy_call *)((char *)w - offsetof(struct proxy_call, wait));
}

static void unlink_wait(struct proxy_park *pk, struct proxy_wait *w)
{
    if (w->prev)
        w->prev->next = w->next;
    else
        pk->list = w->next;
    if (w->next)
        w->next->prev = w->prev;
    w->next = w->prev = NULL;
}

/* Takes w out of the park (its fd out of the epoll set). Caller holds mu. */
static void take_out(struct proxy_park *pk, struct proxy_wait *w)
{
    struct proxy_call *call = call_of(w);
    if (w->in_epoll)
        epoll_ctl(pk->ep, EPOLL_CTL_DEL, w->fd, NULL);
    w->in_epoll = 0;
    unlink_wait(pk, w);
    w->parked = 0;
    call->pfx->n_parked--;
    call->parked_ns += cube_now_ns() - w->since_ns;
    proxy_stats_parked(call, -1);
}

/* Resumes a parked request; its next call reads w->why. Caller holds mu. */
static void release(struct proxy_park *pk, struct proxy_wait *w, int why)
{
    if (!w->parked)
        return;
    take_out(pk, w);
    w->why = why;
    cube_http_resume(call_of(w)->req->conn);
}

static void *park_main(void *arg)
{
    struct proxy_park *pk = arg;
    struct epoll_event evs[64];
    for (;;) {
        int n = epoll_wait(pk->ep, evs, 64, PARK_TICK_MS);
        pthread_mutex_lock(&pk->mu);
        if (pk->stopping) {
            pthread_mutex_unlock(&pk->mu);
            break;
        }
        for (int i = 0; i < n; i++) {
            if (*(int *)evs[i].data.ptr == PROXY_EV_WAIT) {
                struct proxy_wait *w = evs[i].data.ptr;
                w->in_epoll = 0;      /* one-shot: disarmed; DEL it all the same */
                epoll_ctl(pk->ep, EPOLL_CTL_DEL, w->fd, NULL);
                release(pk, w, PROXY_WAKE_GONE);
            } else {
                proxy_poll_drain(pk->efd);
            }
        }
        uint64_t now = cube_now_ns();
        for (struct proxy_wait *w = pk->list, *next; w; w = next) {
            next = w->next;
            if (w->woken)
                release(pk, w, PROXY_WAKE_READY);
            else if (w->deadline_ns <= now)
                release(pk, w, PROXY_WAKE_TIMEOUT);
        }
        pthread_mutex_unlock(&pk->mu);
    }
    return NULL;
}

struct proxy_park *proxy_park_new(void)
{
    struct proxy_park *pk = calloc(1, sizeof *pk);
    if (!pk)
        return NULL;
    pthread_mutex_init(&pk->mu, NULL);
    if (proxy_poll_open(&pk->ep, &pk->efd, &pk->wake_tag) < 0) {
        proxy_park_free(pk);
        return NULL;
    }
    return pk;
}

void proxy_park_stop(struct proxy_park *pk)
{
    pthread_mutex_lock(&pk->mu);
    int was = pk->stopping, started = pk->started;
    pk->stopping = 1;
    pthread_mutex_unlock(&pk->mu);
    if (was)
        return;
    if (started) {
        proxy_poll_kick(pk->efd);
        pthread_join(pk->thread, NULL);
    }
    pthread_mutex_lock(&pk->mu);
    while (pk->list)
        release(pk, pk->list, PROXY_WAKE_STOP);
    pthread_mutex_unlock(&pk->mu);
}

void proxy_park_free(struct proxy_park *pk)
{
    if (!pk)
        return;
    proxy_poll_close(pk->ep, pk->efd);
    pthread_mutex_destroy(&pk->mu);
    free(pk);
}

static int refuse(cube_req *req, int busy)
{
    cube_http_add_header(req, "Retry-After", busy ? "5" : "2");
    cube_http_answer_error(req, 503, "Unavailable", busy
                           ? "too many requests are waiting for this upstream to start"
                           : "the server is stopping");
    return -1;
}

/* Watches the caller's socket for a hang-up (best effort: without it the
 * deadline still ends the wait). Caller holds mu. */
static void watch_caller(struct proxy_park *pk, struct proxy_wait *w, cube_req *req)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    w->fd = ci ? ci->connect_fd : -1;
    struct epoll_event ev = {.events = EPOLLRDHUP | EPOLLONESHOT, .data.ptr = w};
    if (w->fd >= 0 && epoll_ctl(pk->ep, EPOLL_CTL_ADD, w->fd, &ev) == 0)
        w->in_epoll = 1;
    else
        cube_log(CUBE_LOG_WARN, "proxy", "cannot watch a parked caller: %s", strerror(errno));
}

int proxy_park_hold(struct proxy_call *call, const uint64_t *gen, uint64_t timeout_ms)
{
    struct proxy_park *pk = call->px->park;
    struct proxy_prefix *p = call->pfx;
    struct proxy_wait *w = &call->wait;
    cube_req *req = call->req;
    if (!pk)
        return refuse(req, 0);
    pthread_mutex_lock(&pk->mu);
    if (!pk->stopping && !pk->started) {
        if (pthread_create(&pk->thread, NULL, park_main, pk) == 0)
            pk->started = 1;
        else
            cube_log(CUBE_LOG_ERROR, "proxy", "cannot start the park thread");
    }
    int rc = pk->stopping || !pk->started ? -2
             : gen && atomic_load(&p->wake_gen) != *gen ? 1
             : p->n_parked >= p->park_max ? -1 : 0;
    if (rc) {
        pthread_mutex_unlock(&pk->mu);
        return rc > 0 ? 1 : refuse(req, rc == -1);
    }
    uint64_t now = cube_now_ns();
    if (!call->was_parked) {
        uint64_t ms = !timeout_ms ? PROXY_PARK_TIMEOUT_MS
                      : timeout_ms > PROXY_PARK_TIMEOUT_MAX_MS ? PROXY_PARK_TIMEOUT_MAX_MS
                      : timeout_ms;
        w->deadline_ns = now + ms * 1000000u;
        call->was_parked = 1;
    }
    w->type = PROXY_EV_WAIT;
    w->since_ns = now;
    w->woken = 0;
    w->why = PROXY_WAKE_READY;
    w->parked = 1;
    w->prev = NULL;
    w->next = pk->list;
    if (pk->list)
        pk->list->prev = w;
    pk->list = w;
    p->n_parked++;
    proxy_stats_parked(call, 1);
    call->held = 1;
    MHD_suspend_connection(req->conn);
    watch_caller(pk, w, req);
    pthread_mutex_unlock(&pk->mu);
    return 0;
}

void proxy_park_forget(struct proxy_call *call)
{
    struct proxy_park *pk = call->px->park;
    if (!pk || !call->held)
        return;
    pthread_mutex_lock(&pk->mu);
    if (call->wait.parked)
        take_out(pk, &call->wait);
    pthread_mutex_unlock(&pk->mu);
}

int cube_slot_proxy_wake(cube_plugin *self, const char *prefix, const char *key)
{
    if (!prefix)
        return CUBE_EINVAL;
    struct cube_proxies *px = self->ctx->proxies;
    struct proxy_prefix *p = proxy_prefix_of(px, self, prefix);
    if (!p)
        return CUBE_ENOTFOUND;
    struct proxy_park *pk = px->park;
    if (!pk)
        return 0;
    int n = 0;
    pthread_mutex_lock(&pk->mu);
    atomic_fetch_add(&p->wake_gen, 1);
    for (struct proxy_wait *w = pk->list; w; w = w->next) {
        struct proxy_call *call = call_of(w);
        if (call->pfx == p && !w->woken && (!key || !strcmp(call->key, key))) {
            w->woken = 1;
            n++;
        }
    }
    pthread_mutex_unlock(&pk->mu);
    if (n)
        proxy_poll_kick(pk->efd);
    return n;
}
