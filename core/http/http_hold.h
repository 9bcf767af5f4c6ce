/* http_hold.h — what the HTTP threads (http_loop.c) offer the layers that
 * answer on them: holding a connection until a socket turns readable, on
 * the thread that serves it and without a hop to another thread (the
 * reverse proxy waits for its upstreams this way), and resuming or waking
 * a connection's thread from elsewhere. A contract header (ARCHITECTURE.md,
 * "Layering"): core/proxy and up may include it; it includes nothing of
 * core. Internal to core. */
#ifndef CUBE_HTTP_HOLD_H
#define CUBE_HTTP_HOLD_H

#include <stdint.h>

#include <microhttpd.h>

struct cube_http_thread;

/* MHD_resume_connection from any thread, waking the connection's HTTP
 * thread (daemons in external polling have no channel of their own to
 * wake it, so a plain resume from elsewhere would wait for the thread's
 * next event). */
void cube_http_resume(struct MHD_Connection *c);
/* The HTTP thread serving c (NULL: none), for a later cube_http_wake that
 * c may not outlive; it stays valid until its loops stop. */
struct cube_http_thread *cube_http_thread_of(struct MHD_Connection *c);
/* Wakes t (NULL is ignored) to run its daemon: after an MHD call that
 * resumes its work from outside its loop, such as MHD_upgrade_action. */
void cube_http_wake(struct cube_http_thread *t);

enum { CUBE_HTTP_HOLD_READY = 0, CUBE_HTTP_HOLD_TIMEOUT, CUBE_HTTP_HOLD_STOP };

/* A held connection: lives in its owner's record (the proxy's upstream
 * connection) and is touched only by the HTTP thread that holds it. */
struct cube_http_hold {
    int type;                          /* internal: the epoll tag (first) */
    int held;
    int stirred;                       /* an event came while not held */
    int *why;                          /* written when the hold ends */
    int fd;
    struct MHD_Connection *mhd;
    uint64_t deadline_ns;              /* 0: none */
    int reg_ep;                        /* the epoll set fd is in, or -1 */
    struct cube_http_hold *next, *prev;
};

/* Before the first hold. */
void cube_http_hold_init(struct cube_http_hold *h);
/* Suspends mhd until fd turns readable (or hangs up), timeout_ms passes
 * (0: never) or the loops are released; then writes the reason to *why
 * and resumes mhd, whose handler runs again on this same thread. Call on
 * the connection's HTTP thread from its access handler or a content
 * reader, and return right after; only when fd has nothing unread (a
 * read said EAGAIN, or nothing was sent to it since), and only on the
 * thread that held h last, unless cube_http_hold_forget ran there. fd
 * stays watched by this thread until forgotten or closed (there).
 * 0 when held; -1 when the caller is not an HTTP thread and -2 when the
 * loops are released or epoll refuses (nothing done). */
int cube_http_hold(struct cube_http_hold *h, int fd, struct MHD_Connection *mhd,
                   unsigned timeout_ms, int *why);
/* Takes fd out of the epoll set it is watched in (before the fd goes on
 * under another owner or thread). Not while held. */
void cube_http_hold_forget(struct cube_http_hold *h);
/* 1 when h's fd is watched by the calling HTTP thread, not held, and saw
 * no event since its last hold ended (no bytes, no hang-up yet). */
int cube_http_hold_quiet(const struct cube_http_hold *h);
/* 1 when the caller is an HTTP thread. */
int cube_http_thread_here(void);

#endif
