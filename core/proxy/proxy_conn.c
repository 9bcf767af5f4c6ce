/* proxy_conn.c — upstream connections: non-blocking connect with a
 * timeout, writes with a stall timeout, and a small keep-alive pool so a
 * proxied request usually skips the TCP handshake.
 *
 * Each HTTP thread has a pool of its own (as nginx's workers do), so its
 * connections stay watched by its loop between requests at no cost and
 * no lock is taken; a connection idle for longer than IDLE_MAX_NS, or
 * that the upstream closed meanwhile, is discarded when met. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy_priv.h"
#include "base/clock.h"
#include "base/sockaddr.h"

#define IDLE_MAX_NS (30ull * 1000000000ull)
#define IDLE_PER_KEY 128
#define IDLE_TOTAL 1024

static int connect_wait(int fd, char *err, size_t errlen)
{
    struct pollfd pfd = {.fd = fd, .events = POLLOUT};
    int n;
    do
        n = poll(&pfd, 1, PROXY_CONNECT_TIMEOUT_MS);
    while (n < 0 && errno == EINTR);
    if (n == 0) {
        snprintf(err, errlen, "connect timed out after %d ms", PROXY_CONNECT_TIMEOUT_MS);
        errno = ETIMEDOUT;
        return -1;
    }
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
        if (soerr)
            errno = soerr;
        snprintf(err, errlen, "connect: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int proxy_dial_start(const char *host, unsigned port, int *pending, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t len;
    if (cube_sockaddr_numeric(host, port, &ss, &len) < 0) {
        snprintf(err, errlen, "not a numeric address: %s", host);
        return -1;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    *pending = 0;
    if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
        if (errno != EINPROGRESS) {
            snprintf(err, errlen, "connect: %s", strerror(errno));
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        *pending = 1;
    }
    return fd;
}

static int dial(const char *host, unsigned port, char *err, size_t errlen)
{
    int pending;
    int fd = proxy_dial_start(host, port, &pending, err, errlen);
    if (fd >= 0 && pending && connect_wait(fd, err, errlen) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* 1 when an idle connection still looks usable: no EOF, no stray bytes. */
static int still_open(int fd)
{
    char b;
    ssize_t n = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

static _Thread_local struct proxy_pool *my_pool;

/* The calling thread's pool: an HTTP thread's own (made at its first
 * request, freed with px), whose connections only that thread touches, as
 * its loop watches them (http_loop.h); px->shared for any other thread. */
static struct proxy_pool *pool_here(struct cube_proxies *px)
{
    if (!cube_http_thread_here())
        return &px->shared;
    if (my_pool && my_pool->px == px)
        return my_pool;
    struct proxy_pool *p = calloc(1, sizeof *p);
    if (!p)
        return &px->shared;
    p->px = px;
    pthread_mutex_lock(&px->pool_mu);
    p->next = px->pools;
    px->pools = p;
    pthread_mutex_unlock(&px->pool_mu);
    return my_pool = p;
}

static void pool_lock(struct proxy_pool *p)
{
    if (p == &p->px->shared)
        pthread_mutex_lock(&p->px->pool_mu);
}

static void pool_unlock(struct proxy_pool *p)
{
    if (p == &p->px->shared)
        pthread_mutex_unlock(&p->px->pool_mu);
}

/* Takes the first idle connection to key off p (and every expired one,
 * into *stale). Caller holds p's lock. */
static struct proxy_conn *unlink_idle(struct proxy_pool *p, const char *key, uint64_t now,
                                      struct proxy_conn **stale)
{
    for (struct proxy_conn **pp = &p->idle; *pp;) {
        struct proxy_conn *c = *pp;
        int expired = now - c->idle_since_ns > IDLE_MAX_NS;
        if (!expired && strcmp(c->key, key) != 0) {
            pp = &c->next_idle;
            continue;
        }
        *pp = c->next_idle;
        p->n_idle--;
        if (!expired)
            return c;
        c->next_idle = *stale;
        *stale = c;
    }
    return NULL;
}

/* An idle connection to key that still looks open, or NULL. The probe (a
 * system call, outside the lock) is skipped for a connection this thread's
 * loop watched quietly since its last answer: a hang-up would have shown
 * (but for one in this very pass, which the retry on a fresh connection
 * covers, as for a probe's own race). */
static struct proxy_conn *take_idle(struct cube_proxies *px, const char *key)
{
    struct proxy_pool *p = pool_here(px);
    uint64_t now = cube_now_ns();
    struct proxy_conn *found = NULL, *stale = NULL;
    for (;;) {
        pool_lock(p);
        found = unlink_idle(p, key, now, &stale);
        pool_unlock(p);
        if (!found || cube_http_hold_quiet(&found->hold) || still_open(found->fd))
            break;
        found->next_idle = stale;
        stale = found;
    }
    while (stale) {
        struct proxy_conn *c = stale;
        stale = c->next_idle;
        proxy_conn_close(px, c);
    }
    return found;
}

struct proxy_conn *proxy_conn_get(struct cube_proxies *px, const char *host, unsigned port,
                                  char *err, size_t errlen)
{
    char key[sizeof ((struct proxy_conn *)0)->key];
    snprintf(key, sizeof key, "%s %u", host, port);
    struct proxy_conn *c = take_idle(px, key);
    if (c) {
        c->reused = 1;
        c->wake = PROXY_WAKE_READY;
        c->next_idle = NULL;
        return c;
    }
    int fd = dial(host, port, err, errlen);
    if (fd < 0)
        return NULL;
    c = calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        snprintf(err, errlen, "out of memory");
        errno = ENOMEM;
        return NULL;
    }
    c->type = PROXY_EV_CONN;
    c->fd = fd;
    cube_http_hold_init(&c->hold);
    memcpy(c->key, key, sizeof key);
    return c;
}

void proxy_conn_put(struct cube_proxies *px, struct proxy_conn *c)
{
    struct proxy_pool *p = pool_here(px);
    size_t same = 0;
    pool_lock(p);
    for (struct proxy_conn *o = p->idle; o && same < IDLE_PER_KEY; o = o->next_idle)
        same += strcmp(o->key, c->key) == 0;
    int keep = same < IDLE_PER_KEY && p->n_idle < IDLE_TOTAL;
    if (keep) {
        c->idle_since_ns = cube_now_ns();
        c->mhd = NULL;
        c->next_idle = p->idle;
        p->idle = c;
        p->n_idle++;
    }
    pool_unlock(p);
    if (!keep)
        proxy_conn_close(px, c);
}

void proxy_conn_close(struct cube_proxies *px, struct proxy_conn *c)
{
    (void)px;
    if (!c)
        return;
    /* close() also takes the fd out of the epoll sets it is in (the relay
     * loop's, an HTTP thread's, disarmed). No lock is taken here: this
     * runs from MHD's completion callbacks, and a connection being closed
     * is never parked nor held, so no pending event can name it. */
    close(c->fd);
    free(c);
}

int proxy_send_all(int fd, const char *buf, size_t len)
{
    uint64_t deadline = cube_now_ns() + (uint64_t)PROXY_WRITE_TIMEOUT_MS * 1000000u;
    while (len) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            uint64_t now = cube_now_ns();
            if (now >= deadline)
                return -1;
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            poll(&pfd, 1, (int)((deadline - now) / 1000000u) + 1);
            continue;
        }
        return -1;
    }
    return 0;
}

static void pool_close_all(struct cube_proxies *px, struct proxy_pool *p)
{
    while (p->idle) {
        struct proxy_conn *c = p->idle;
        p->idle = c->next_idle;
        proxy_conn_close(px, c);
    }
    p->n_idle = 0;
}

void proxy_pool_clear(struct cube_proxies *px)
{
    px->shared.px = px;
    pool_close_all(px, &px->shared);
    while (px->pools) {
        struct proxy_pool *p = px->pools;
        px->pools = p->next;
        pool_close_all(px, p);
        free(p);
    }
}
