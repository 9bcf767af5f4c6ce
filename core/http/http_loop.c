/* http_loop.c — the HTTP threads (http_loop.h).
 *
 * Why a loop of our own per thread rather than MHD's internal thread
 * pool: a proxied request waits for its upstream's answer with its
 * connection suspended. In MHD's pool, only another thread can see the
 * upstream socket turn readable, so every such answer cost a hop: the
 * watching thread resumes the connection, MHD wakes the HTTP thread
 * through its inter-thread channel, and the HTTP thread's epoll_wait
 * returns (about 20 µs of CPU and two context switches per request, most
 * of the gap to nginx). Here each thread runs its own daemon in external
 * polling mode with the daemon's epoll set nested in the thread's own,
 * so the upstream socket is watched in the same epoll_wait as the
 * callers' sockets and the answer is handled where it arrives.
 *
 * All daemons accept on one listening socket (a dup each, as MHD closes
 * its listening socket when it stops); whichever thread is free takes a
 * new connection, as in MHD's pool.
 *
 * Safety of epoll pointers: a hold is armed EPOLLONESHOT in its thread's
 * set and ended only by that thread, after its event fired (disarmed) or
 * after removing the fd (deadline, release), so no event can name a hold
 * that ended. A fired registration stays in the set, disarmed, until the
 * fd is held again, forgotten or closed. */
#include "http_loop.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"

enum { TAG_MHD = 1, TAG_KICK, TAG_HOLD };
#define SCAN_NS 500000000u             /* how often deadlines are checked */
#define RELEASE_WAIT_MS 5000

struct cube_http_thread {
    struct cube_http_loops *loops;
    struct MHD_Daemon *daemon;
    int ep, efd;
    int tag_mhd, tag_kick;             /* epoll tags of the daemon's set and the eventfd */
    pthread_t thread;
    int running;
    struct cube_http_hold *holds;      /* this thread's, this thread only */
    int released;                      /* this thread only */
    atomic_int released_seen;          /* released, for cube_http_loops_release */
    uint64_t last_scan_ns;
};

struct cube_http_loops {
    atomic_int release, exit;
    unsigned n;
    struct cube_http_thread w[];
};

static _Thread_local struct cube_http_thread *this_worker;

/* -- holds ------------------------------------------------------------------------ */

void cube_http_hold_init(struct cube_http_hold *h)
{
    memset(h, 0, sizeof *h);
    h->type = TAG_HOLD;
    h->fd = -1;
    h->reg_ep = -1;
}

static void hold_unlink(struct cube_http_thread *w, struct cube_http_hold *h)
{
    if (h->prev)
        h->prev->next = h->next;
    else
        w->holds = h->next;
    if (h->next)
        h->next->prev = h->prev;
    h->next = h->prev = NULL;
}

/* Ends a hold; `registered` 0 takes the fd out of the set first. */
static void hold_end(struct cube_http_thread *w, struct cube_http_hold *h, int why, int registered)
{
    if (!h->held)
        return;
    if (!registered && h->reg_ep >= 0) {
        epoll_ctl(h->reg_ep, EPOLL_CTL_DEL, h->fd, NULL);
        h->reg_ep = -1;
    }
    h->held = 0;
    hold_unlink(w, h);
    *h->why = why;
    MHD_resume_connection(h->mhd);
}

/* Arms fd in w's set: MOD where it is still registered, else ADD. */
static int hold_arm(struct cube_http_thread *w, struct cube_http_hold *h, int fd)
{
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT, .data.ptr = h};
    if (h->reg_ep >= 0 && (h->reg_ep != w->ep || h->fd != fd))
        cube_http_hold_forget(h);
    int rc = h->reg_ep == w->ep ? epoll_ctl(w->ep, EPOLL_CTL_MOD, fd, &ev) : -1;
    if (rc < 0)
        rc = epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev);
    if (rc < 0 && errno == EEXIST)
        rc = epoll_ctl(w->ep, EPOLL_CTL_MOD, fd, &ev);
    h->reg_ep = rc == 0 ? w->ep : -1;
    return rc;
}

int cube_http_hold(struct cube_http_hold *h, int fd, struct MHD_Connection *mhd,
                   unsigned timeout_ms, int *why)
{
    struct cube_http_thread *w = this_worker;
    if (!w)
        return -1;
    if (w->released || atomic_load_explicit(&w->loops->release, memory_order_relaxed))
        return -2;
    h->why = why;
    h->mhd = mhd;
    h->deadline_ns = timeout_ms ? cube_now_ns() + (uint64_t)timeout_ms * 1000000u : 0;
    MHD_suspend_connection(mhd);
    if (hold_arm(w, h, fd) < 0) {
        cube_log(CUBE_LOG_ERROR, "http", "epoll_ctl: %s", strerror(errno));
        MHD_resume_connection(mhd);
        return -2;
    }
    h->fd = fd;
    h->held = 1;
    h->prev = NULL;
    h->next = w->holds;
    if (w->holds)
        w->holds->prev = h;
    w->holds = h;
    return 0;
}

void cube_http_hold_forget(struct cube_http_hold *h)
{
    if (h->reg_ep >= 0 && h->fd >= 0)
        epoll_ctl(h->reg_ep, EPOLL_CTL_DEL, h->fd, NULL);
    h->reg_ep = -1;
}

/* Ends holds whose deadline passed (about twice a second). */
static void expire_holds(struct cube_http_thread *w)
{
    uint64_t now = cube_now_ns();
    if (!w->holds || now - w->last_scan_ns < SCAN_NS)
        return;
    w->last_scan_ns = now;
    for (struct cube_http_hold *h = w->holds, *next; h; h = next) {
        next = h->next;
        if (h->deadline_ns && h->deadline_ns <= now)
            hold_end(w, h, CUBE_HTTP_HOLD_TIMEOUT, 0);
    }
}

static void release_holds(struct cube_http_thread *w)
{
    w->released = 1;
    while (w->holds)
        hold_end(w, w->holds, CUBE_HTTP_HOLD_STOP, 0);
    atomic_store(&w->released_seen, 1);
}

/* -- the thread ------------------------------------------------------------------- */

/* The daemon's next timeout in ms (-1: none), shorter while holds wait. */
static int wait_ms(struct cube_http_thread *w)
{
    MHD_UNSIGNED_LONG_LONG t;
    int ms = MHD_get_timeout(w->daemon, &t) == MHD_YES ? (t > INT_MAX ? INT_MAX : (int)t) : -1;
    if (w->holds && (ms < 0 || ms > (int)(SCAN_NS / 1000000u)))
        ms = (int)(SCAN_NS / 1000000u);
    return ms;
}

static void *worker_main(void *arg)
{
    struct cube_http_thread *w = arg;
    struct epoll_event evs[64];
    this_worker = w;
    w->last_scan_ns = cube_now_ns();
    while (!atomic_load_explicit(&w->loops->exit, memory_order_relaxed)) {
        int n = epoll_wait(w->ep, evs, 64, wait_ms(w));
        for (int i = 0; i < n; i++) {
            int tag = *(int *)evs[i].data.ptr;
            if (tag == TAG_HOLD) {
                hold_end(w, evs[i].data.ptr, CUBE_HTTP_HOLD_READY, 1);
            } else if (tag == TAG_KICK) {
                uint64_t v;
                if (read(w->efd, &v, sizeof v) < 0) { /* drained already */ }
            }
        }
        if (!w->released && atomic_load_explicit(&w->loops->release, memory_order_relaxed))
            release_holds(w);
        expire_holds(w);
        MHD_run(w->daemon);
    }
    release_holds(w);
    this_worker = NULL;
    return NULL;
}

static void kick(struct cube_http_thread *w)
{
    uint64_t one = 1;
    if (write(w->efd, &one, sizeof one) < 0) { /* a kick is pending anyway */ }
}

void cube_http_loop_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                           enum MHD_ConnectionNotificationCode code)
{
    (void)cls;
    (void)c;
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        *socket_context = this_worker;
}

struct cube_http_thread *cube_http_thread_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

void cube_http_wake(struct cube_http_thread *t)
{
    if (t)
        kick(t);
}

void cube_http_resume(struct MHD_Connection *c)
{
    /* Looked up before the resume: the connection may end at once after
     * it. Threads live until their loops stop, after every resumer. */
    struct cube_http_thread *t = cube_http_thread_of(c);
    MHD_resume_connection(c);
    cube_http_wake(t);
}

/* -- start and stop --------------------------------------------------------------- */

/* A bound, listening, non-blocking socket for the numeric host:port. */
static int listen_socket(const char *host, int port)
{
    struct sockaddr_storage ss;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
    socklen_t len;
    memset(&ss, 0, sizeof ss);
    if (!host || !*host)
        host = "0.0.0.0";
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        len = sizeof *v4;
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        len = sizeof *v6;
    } else {
        cube_log(CUBE_LOG_ERROR, "http", "listen: '%s' is not an IP address", host);
        errno = EINVAL;
        return -1;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0)
        return -1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        (ss.ss_family == AF_INET6 &&
         setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) < 0) ||
        bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 1024) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static int bound_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
        return -1;
    return ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                    : ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* The worker's epoll set with the daemon's set and the eventfd in it. */
static int worker_open(struct cube_http_thread *w)
{
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(w->daemon, MHD_DAEMON_INFO_EPOLL_FD);
    w->tag_mhd = TAG_MHD;
    w->tag_kick = TAG_KICK;
    w->ep = epoll_create1(EPOLL_CLOEXEC);
    w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event ev_mhd = {.events = EPOLLIN, .data.ptr = &w->tag_mhd};
    struct epoll_event ev_kick = {.events = EPOLLIN, .data.ptr = &w->tag_kick};
    if (!di || w->ep < 0 || w->efd < 0 ||
        epoll_ctl(w->ep, EPOLL_CTL_ADD, di->epoll_fd, &ev_mhd) < 0 ||
        epoll_ctl(w->ep, EPOLL_CTL_ADD, w->efd, &ev_kick) < 0)
        return -1;
    return 0;
}

struct cube_http_loops *cube_http_loops_start(const char *host, int port, unsigned threads,
                                              unsigned max_connections,
                                              cube_http_daemon_fn make, void *cls,
                                              int *port_out)
{
    if (threads < 1)
        threads = 1;
    struct cube_http_loops *l = calloc(1, sizeof *l + threads * sizeof l->w[0]);
    int fd = l ? listen_socket(host, port) : -1;
    int e = errno;
    if (fd < 0) {
        free(l);
        errno = e;
        return NULL;
    }
    unsigned per = (max_connections + threads - 1) / threads;
    for (unsigned i = 0; i < threads; i++) {
        struct cube_http_thread *w = &l->w[i];
        w->loops = l;
        w->ep = w->efd = -1;
        int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        l->n = i + 1;
        if (dup_fd < 0 || !(w->daemon = make(cls, dup_fd, per ? per : 1))) {
            if (dup_fd >= 0 && !w->daemon)
                close(dup_fd);
            goto fail;
        }
        if (worker_open(w) < 0 || pthread_create(&w->thread, NULL, worker_main, w) != 0)
            goto fail;
        w->running = 1;
    }
    *port_out = bound_port(fd);
    close(fd);
    return l;
fail:
    e = errno ? errno : ENOMEM;
    close(fd);
    cube_http_loops_stop(l);
    errno = e;
    return NULL;
}

void cube_http_loops_release(struct cube_http_loops *l)
{
    if (!l)
        return;
    atomic_store(&l->release, 1);
    for (unsigned i = 0; i < l->n; i++)
        if (l->w[i].running)
            kick(&l->w[i]);
    for (unsigned i = 0; i < l->n; i++)
        for (unsigned ms = 0; l->w[i].running && ms < RELEASE_WAIT_MS &&
                              !atomic_load(&l->w[i].released_seen); ms++)
            usleep(1000);
}

void cube_http_loops_stop(struct cube_http_loops *l)
{
    if (!l)
        return;
    cube_http_loops_release(l);
    atomic_store(&l->exit, 1);
    for (unsigned i = 0; i < l->n; i++) {
        struct cube_http_thread *w = &l->w[i];
        if (w->running) {
            kick(w);
            pthread_join(w->thread, NULL);
        }
        if (w->daemon)
            MHD_stop_daemon(w->daemon);
        if (w->ep >= 0)
            close(w->ep);
        if (w->efd >= 0)
            close(w->efd);
    }
    free(l);
}
