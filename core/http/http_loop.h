/* http_loop.h — the HTTP threads' life (http_loop.c): each runs an MHD
 * daemon of its own in an epoll loop of its own, all accepting on one
 * listening socket. What the threads offer the layers under core/http
 * (holds, cross-thread resumes) is the contract http_hold.h. Internal to
 * core/http. */
#ifndef CUBE_HTTP_LOOP_H
#define CUBE_HTTP_LOOP_H

#include <microhttpd.h>

struct cube_http_loops;

/* Makes one thread's daemon: external polling with MHD_USE_EPOLL, serving
 * on listen_fd (which it takes: MHD closes it when it stops) with at most
 * max_connections. NULL when MHD refuses. */
typedef struct MHD_Daemon *(*cube_http_daemon_fn)(void *cls, int listen_fd,
                                                  unsigned max_connections);

/* MHD_OPTION_NOTIFY_CONNECTION (cls unused) that every daemon from a
 * cube_http_daemon_fn must pass: it notes which thread serves each
 * connection (in its socket context), for cube_http_resume (http_hold.h). */
void cube_http_loop_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                           enum MHD_ConnectionNotificationCode code);
/* Binds the numeric address host:port ("" or NULL: every IPv4 address; port
 * 0: a free one, written to *port_out) and starts `threads` threads, each
 * with a daemon from make() and max_connections shared between them.
 * NULL with errno kept and the reason logged when it cannot. */
struct cube_http_loops *cube_http_loops_start(const char *host, int port, unsigned threads,
                                              unsigned max_connections,
                                              cube_http_daemon_fn make, void *cls,
                                              int *port_out);
/* Ends every hold (why = CUBE_HTTP_HOLD_STOP) and makes later holds fail
 * with -2; the threads go on serving. Returns when each thread has done
 * so (or after a few seconds for a thread stuck in a handler). Any thread
 * but an HTTP one; idempotent. */
void cube_http_loops_release(struct cube_http_loops *l);
/* Releases, stops the threads and their daemons (MHD ends what is left:
 * its completion callbacks run on the caller's thread), and frees. NULL
 * is ignored. Never from an HTTP thread. */
void cube_http_loops_stop(struct cube_http_loops *l);

#endif
