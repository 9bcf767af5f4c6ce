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
 * A held fd joins its thread's set once, edge-triggered, and stays there
 * between holds (a proxied upstream connection is held once a request on
 * the same thread, so that costs no system call after the first). Hence
 * the contract of cube_http_hold: hold only when nothing is left unread
 * (an edge that came while not held is not repeated), and only on the
 * thread that last held the fd unless it was forgotten there.
 *
 * Safety of epoll pointers: the owner closes (or forgets) a held fd only
 * on its thread, in handlers run by MHD_run, after the batch of events
 * that may name it was handled; so no event names a freed hold. */
#include "http_loop.h"
#include "http_hold.h"

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
#include "base/sockaddr.h"

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
    unsigned stirred_holds;            /* holds made after their fd's event */
};

struct cube_http_loops {
    atomic_int release, exit;
    unsigned n;
    struct cube_http_thread w[];
};

static _Thread_local struct cube_http_thread *this_thread;

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

/* Ends a hold; its fd stays in the set. */
static void hold_end(struct cube_http_thread *w, struct cube_http_hold *h, int why)
{
    if (!h->held)
        return;
    h->held = 0;
    h->stirred = 0;
    hold_unlink(w, h);
    *h->why = why;
    MHD_resume_connection(h->mhd);
}

/* Puts fd in w's set, edge-triggered, unless it is there already (held
 * on this thread before): then no system call at all. */
static int hold_watch(struct cube_http_thread *w, struct cube_http_hold *h, int fd)
{
    if (h->reg_ep == w->ep && h->fd == fd)
        return 0;
    cube_http_hold_forget(h);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.ptr = h};
    int rc = epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev);
    if (rc < 0 && errno == EEXIST)
        rc = epoll_ctl(w->ep, EPOLL_CTL_MOD, fd, &ev);
    h->reg_ep = rc == 0 ? w->ep : -1;
    h->fd = fd;
    return rc;
}

int cube_http_hold(struct cube_http_hold *h, int fd, struct MHD_Connection *mhd,
                   unsigned timeout_ms, int *why)
{
    struct cube_http_thread *w = this_thread;
    if (!w)
        return -1;
    if (w->released || atomic_load_explicit(&w->loops->release, memory_order_relaxed))
        return -2;
    h->why = why;
    h->mhd = mhd;
    h->deadline_ns = timeout_ms ? cube_now_ns() + (uint64_t)timeout_ms * 1000000u : 0;
    if (hold_watch(w, h, fd) < 0) {
        cube_log(CUBE_LOG_ERROR, "http", "epoll_ctl: %s", strerror(errno));
        return -2;
    }
    MHD_suspend_connection(mhd);
    h->held = 1;
    w->stirred_holds += h->stirred;   /* its edge came already: ends at once */
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
    h->stirred = 0;
}

int cube_http_thread_here(void)
{
    return this_thread != NULL;
}

int cube_http_hold_quiet(const struct cube_http_hold *h)
{
    return this_thread && h->reg_ep == this_thread->ep && !h->held && !h->stirred;
}

/* Ends the holds whose fd had an event before they began: the edge will
 * not come again, and the bytes may be there. */
static void end_stirred(struct cube_http_thread *w)
{
    if (!w->stirred_holds)
        return;
    w->stirred_holds = 0;
    for (struct cube_http_hold *h = w->holds, *next; h; h = next) {
        next = h->next;
        if (h->stirred)
            hold_end(w, h, CUBE_HTTP_HOLD_READY);
    }
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
            hold_end(w, h, CUBE_HTTP_HOLD_TIMEOUT);
    }
}

static void release_holds(struct cube_http_thread *w)
{
    w->released = 1;
    while (w->holds)
        hold_end(w, w->holds, CUBE_HTTP_HOLD_STOP);
    atomic_store(&w->released_seen, 1);
}

/* -- the thread ------------------------------------------------------------------- */

/* The daemon's next timeout in ms (-1: none), shorter while holds wait. */
static int wait_ms(struct cube_http_thread *w)
{
    MHD_UNSIGNED_LONG_LONG t;
    if (w->stirred_holds)
        return 0;
    int ms = MHD_get_timeout(w->daemon, &t) == MHD_YES ? (t > INT_MAX ? INT_MAX : (int)t) : -1;
    if (w->holds && (ms < 0 || ms > (int)(SCAN_NS / 1000000u)))
        ms = (int)(SCAN_NS / 1000000u);
    return ms;
}

static void *worker_main(void *arg)
{
    struct cube_http_thread *w = arg;
    struct epoll_event evs[64];
    this_thread = w;
    w->last_scan_ns = cube_now_ns();
    while (!atomic_load_explicit(&w->loops->exit, memory_order_relaxed)) {
        int n = epoll_wait(w->ep, evs, 64, wait_ms(w));
        for (int i = 0; i < n; i++) {
            int tag = *(int *)evs[i].data.ptr;
            if (tag == TAG_HOLD) {
                struct cube_http_hold *h = evs[i].data.ptr;
                if (h->held)
                    hold_end(w, h, CUBE_HTTP_HOLD_READY);
                else
                    h->stirred = 1;  /* bytes or a hang-up while not held */
            } else if (tag == TAG_KICK) {
                uint64_t v;
                if (read(w->efd, &v, sizeof v) < 0) { /* drained already */ }
            }
        }
        if (!w->released && atomic_load_explicit(&w->loops->release, memory_order_relaxed))
            release_holds(w);
        end_stirred(w);
        expire_holds(w);
        MHD_run(w->daemon);
    }
    release_holds(w);
    this_thread = NULL;
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
        *socket_context = this_thread;
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
    socklen_t len;
    if (!host || !*host)
        host = "0.0.0.0";
    if (cube_sockaddr_numeric(host, (unsigned)port, &ss, &len) < 0) {
        cube_log(CUBE_LOG_ERROR, "http", "listen: '%s' is not an IP address", host);
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
