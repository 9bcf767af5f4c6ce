/* proxy_priv.h — what the proxy_*.c files share.
 *
 *   proxy.c        registration, the prefix table, matching a path
 *   proxy_req.c    one proxied request: checks, resolve, the upstream
 *                  request head and body, waiting for the answer's head
 *   proxy_resp.c   the upstream answer: head parsing, streamed body, 101
 *   proxy_conn.c   upstream connections: connect with a timeout, keep-alive
 *                  pools (one per HTTP thread)
 *   proxy_loop.c   parking a request until its upstream sends (on its HTTP
 *                  thread's loop), and the relay thread: splices upgraded
 *                  (WebSocket) connections
 *   proxy_util.c   pure helpers (header filtering, addresses, the answer
 *                  head parser, chunked decoding)
 *   proxy_resolve.c  asking the plugin (resolve, again after a wake) and
 *                  acting on its answer: relay, park or refuse (1.5)
 *   proxy_park.c   requests parked by resolve (CUBE_EAGAIN), their
 *                  deadlines and hang-ups, proxy_wake (1.5)
 *   proxy_mirror.c copies of requests sent to a mirror upstream (1.5)
 *   proxy_stats.c  counters per prefix and key, /metrics, done (1.5)
 */
#ifndef CUBE_PROXY_PRIV_H
#define CUBE_PROXY_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <microhttpd.h>
#include <cube/cube.h>

#include "proxy.h"
#include "http/http_hold.h"
#include "http/router.h"
#include "base/text.h"

#define PROXY_MAX_SEGS 16
#define PROXY_CONNECT_TIMEOUT_MS 5000
/* How long an upstream may take to start answering (a parked request holds
 * no HTTP thread meanwhile), and to accept bytes we write (the writing
 * HTTP thread waits). */
#define PROXY_HEAD_TIMEOUT_MS 120000
#define PROXY_WRITE_TIMEOUT_MS 30000
#define PROXY_HEAD_MAX 32768
#define PROXY_IO_BLOCK 32768
/* ABI 1.5 serving defaults and bounds (documented in cube_proxy.h). */
#define PROXY_PARK_TIMEOUT_MS 120000u
#define PROXY_PARK_TIMEOUT_MAX_MS 600000u
#define PROXY_PARK_MAX 256u
#define PROXY_PARK_MAX_MAX 65536u
#define PROXY_MIRROR_BODY_MAX ((size_t)1 << 20)
#define PROXY_MIRROR_BODY_MAX_MAX ((size_t)64 << 20)
#define PROXY_MIRROR_TIMEOUT_MS 30000
#define PROXY_MIRROR_INFLIGHT_MAX 1024
#define PROXY_MIRROR_BYTES_MAX ((size_t)64 << 20)   /* of copies in flight */
#define PROXY_KEYS_MAX 4096
#define PROXY_KEY_BUCKETS 1024
/* resolve runs again at once (instead of parking) when a wake came while
 * it ran; this many times at most, then the request parks regardless. */
#define PROXY_RESOLVE_RETRIES 8

struct cube_apps;
struct cube_kind;
struct cube_metric;
struct cube_metrics;
struct proxy_loop;
struct proxy_park;
struct proxy_mirror;

/* Counters of a prefix or of one key under it (cube_proxy_stats). Never
 * freed while the prefix lives, so a request or a mirror copy may keep a
 * pointer to its entries. */
struct proxy_stat {
    atomic_uint_fast64_t requests, inflight, parked, errors, mirrored, mirror_errors;
    atomic_int_fast64_t last_ms;
    atomic_uint_fast64_t seq;          /* mirror sampling: requests resolved with a mirror */
    struct proxy_stat *next;           /* hash chain (keys only) */
    char *key;                         /* keys only: the entry's own tail */
};

/* The key table of a prefix (proxy_stats.c). */
struct proxy_keys {
    pthread_mutex_t mu;
    struct proxy_stat **buckets;       /* PROXY_KEY_BUCKETS, allocated on first use */
    size_t n;
};

/* One registered prefix (read-only once HTTP starts, but for the serving
 * state below, which has its own locks and atomics). */
struct proxy_prefix {
    struct cube_plugin *plugin;
    char *tmpl;                        /* "/notebook/{project}/{name}" */
    char *segs[PROXY_MAX_SEGS];        /* literal text, or the param name */
    int is_param[PROXY_MAX_SEGS];
    size_t n_segs;
    int perm;                          /* enum cube_perm */
    const struct cube_kind *kind;      /* NULL: none */
    int login_redirect, strip_prefix, allow_remote;
    int (*resolve)(void *state, cube_req *req, struct cube_proxy_upstream *up);
    /* since 1.5 */
    void (*done)(void *state, const struct cube_proxy_done *d);
    unsigned park_max;
    size_t mirror_body_max;
    unsigned n_parked;                 /* the park's mutex */
    atomic_uint_fast64_t wake_gen;     /* bumped by proxy_wake (under the park's mutex) */
    atomic_int warned;                 /* a misconfigured mirror was logged */
    struct proxy_stat total;           /* the whole prefix */
    struct proxy_keys keys;
    struct proxy_creds *_Atomic creds; /* application credentials (proxy_cred.c), or NULL */
    struct proxy_prefix *next;
};

/* An upstream TCP connection; also what a request waiting for it parks on. */
struct proxy_conn {
    int type;                          /* PROXY_EV_CONN (first: epoll tag) */
    int fd;
    int in_epoll;                      /* registered with the loop's epoll */
    char key[80];                      /* "host port" for the idle pool */
    int reused;                        /* came from the idle pool */
    uint64_t idle_since_ns;
    struct proxy_conn *next_idle;
    struct cube_http_hold hold;        /* parked on an HTTP thread (http_hold.h) */
    /* parking on the relay thread (guarded by the loop's mutex) */
    struct MHD_Connection *mhd;        /* suspended HTTP connection */
    uint64_t deadline_ns;              /* 0: none */
    int parked;
    int wake;                          /* PROXY_WAKE_* why it was resumed (either way) */
    struct proxy_conn *next_parked, *prev_parked;
};

enum { PROXY_EV_CONN = 1, PROXY_EV_RELAY, PROXY_EV_WAKE, PROXY_EV_WAIT, PROXY_EV_MIRROR };
/* The first three are a hold's reasons too (cube_http_hold writes them). */
enum {
    PROXY_WAKE_READY = CUBE_HTTP_HOLD_READY,
    PROXY_WAKE_TIMEOUT = CUBE_HTTP_HOLD_TIMEOUT,
    PROXY_WAKE_STOP = CUBE_HTTP_HOLD_STOP,
    PROXY_WAKE_GONE
};

/* A request parked by resolve (proxy_park.c); lives in its proxy_call.
 * Guarded by the park's mutex. */
struct proxy_wait {
    int type;                          /* PROXY_EV_WAIT (first: epoll tag) */
    int fd;                            /* the caller's socket, watched for a hang-up */
    int in_epoll;
    int parked;                        /* in the park's list */
    int woken;                         /* proxy_wake marked it */
    int why;                           /* PROXY_WAKE_* once resumed */
    uint64_t deadline_ns;              /* set at the first park */
    uint64_t since_ns;                 /* this park's start */
    struct proxy_wait *next, *prev;
};

/* Idle keep-alive upstream connections (proxy_conn.c), newest first. */
struct proxy_pool {
    struct cube_proxies *px;
    struct proxy_conn *idle;
    size_t n_idle;
    struct proxy_pool *next;           /* in px->pools */
};

struct cube_proxies {
    struct cube_ctx *ctx;
    struct proxy_prefix *prefixes;
    struct cube_metric *m_requests;    /* cube_proxy_requests_total */
    struct cube_metric *m_inflight, *m_parked, *m_errors, *m_mirror;  /* 1.5 */
    struct proxy_park *park;           /* NULL until HTTP starts */
    struct proxy_mirror *mirror;       /* NULL until HTTP starts */
    pthread_mutex_t pool_mu;
    struct proxy_pool shared;          /* for threads but HTTP ones (pool_mu) */
    struct proxy_pool *pools;          /* each HTTP thread's own (the list: pool_mu) */
    struct proxy_loop *loop;           /* NULL until HTTP starts */
    struct cube_apps *apps;            /* the apps origin (apps.h); NULL: none */
};

/* One proxied request, owned by its cube_req (req->proxy) until the
 * request completes. */
struct proxy_body;
struct proxy_upgrade;
struct proxy_call {
    struct cube_proxies *px;
    struct proxy_prefix *pfx;
    cube_req *req;
    size_t obj_len;                   /* raw_path[0, obj_len) is the object's prefix */
    char owner[64];                   /* the kind's object's metadata.owner, or "" */
    struct proxy_conn *up;            /* owned until a body or relay takes it */
    char *head;                       /* the request head, kept for a retry */
    size_t head_len;
    int has_body, chunked_up;         /* caller sent a body; re-chunk it */
    uint64_t body_bytes;
    int refused;                      /* 413/502 to answer after the body */
    int upgrade;                      /* the caller asked for a protocol switch */
    int head_only;                    /* HEAD: the answer carries no body */
    int retried;
    int started;                      /* the answer head was awaited once */
    char *in;                         /* bytes read from upstream */
    size_t in_len, in_cap;
    uint64_t deadline_ns;             /* for the answer head */
    struct proxy_body *body;          /* the answer's reader, while it lives */
    struct proxy_upgrade *upg;        /* a 101 waiting for its upgrade handler */
    /* since 1.5 */
    const char *rest;                 /* raw_path after the prefix (for resolve again) */
    char key[128];                    /* the request's key, once bound */
    int keyed;                        /* key is bound (resolve said OK or EAGAIN) */
    int resolved;                     /* resolve ran: counted, done will be called */
    int audited;
    struct proxy_stat *kst;           /* the key's counters, or NULL */
    int from_upstream;                /* the answer head was the upstream's */
    int body_failed;                  /* the answer's body broke off (body_free) */
    int held;                         /* parked by resolve; resumed calls check why */
    int was_parked;
    uint64_t parked_ns;               /* time parked, all parks */
    struct proxy_wait wait;
    int mirror;                       /* a copy is being collected */
    int mirrored;                     /* the copy was handed to the mirror */
    char mirror_host[64];
    unsigned mirror_port;
    struct cube_text mhead, mbody;    /* the copy's head (unframed) and body */
    uint64_t tag;                     /* the relaying resolve's cube_proxy_upstream.tag */
    int credential;                   /* passed with the object's application credential */
};

/* -- proxy_cred.c (application credentials) -------------------------------- */
struct proxy_creds;
/* 1 when the caller presents the object's credential (admitted), 0 when
 * it presents none that applies (the usual checks follow), -1 when it
 * answered 401 (a wrong X-Api-Key). */
int proxy_cred_admit(struct proxy_call *call);
void proxy_creds_free(struct proxy_prefix *p);
/* The preset key of a call (proxy_resolve.c). */
void proxy_default_key(struct proxy_call *call, char *key, size_t len);

/* -- proxy.c -------------------------------------------------------------- */
/* The prefix raw_path lies under; fills m with the decoded params and
 * *rest with the raw remainder ("" or "/..."). NULL when none. */
struct proxy_prefix *proxy_match(const struct cube_proxies *px, const char *raw_path,
                                 struct cube_route_match *m, const char **rest);
/* The caller's prefix registered as `tmpl`, or NULL. */
struct proxy_prefix *proxy_prefix_of(struct cube_proxies *px, const cube_plugin *self,
                                     const char *tmpl);

/* -- proxy_util.c (pure; unit tested) ------------------------------------- */
/* 1 for headers never forwarded in either direction (hop-by-hop). */
int proxy_hop_header(const char *name);
/* 1 when `name` appears as a token of a Connection header value. */
int proxy_connection_lists(const char *connection, const char *name);
/* Copies a Cookie header value without Cube's cookies (cube_session, the
 * apps origin's cube_app) into out;
 * returns the length written (0: nothing left, drop the header) or -1
 * when out is too small. */
int proxy_strip_cookie(const char *cookie, char *out, size_t outlen);
/* 1 when header text contains nothing that would break the head (CR, LF,
 * NUL); names must also be tokens. */
int proxy_header_name_ok(const char *name);
int proxy_header_value_ok(const char *value);
/* 1 for a numeric loopback address (127/8, ::1, ::ffff:127.x). */
int proxy_is_loopback(const char *host);
/* 1 for a numeric IPv4 or IPv6 address. */
int proxy_is_numeric_host(const char *host);

/* Incremental decoder of a chunked body. */
struct proxy_chunked {
    int state;
    uint64_t left;       /* bytes left in the current chunk */
    int done;            /* last chunk and trailers consumed */
};
/* Decodes from in (inlen bytes) into out (at most outmax); sets *used and
 * *made. Returns 0, or -1 for a malformed encoding. */
int proxy_chunked_decode(struct proxy_chunked *c, const char *in, size_t inlen, size_t *used,
                         char *out, size_t outmax, size_t *made);

/* A parsed upstream answer head. */
struct proxy_head {
    int status;
    int minor;                         /* HTTP/1.minor */
    size_t len;                        /* bytes of the head incl. blank line */
    size_t n;
    struct { const char *name, *value; size_t nlen, vlen; } h[100];
};
/* Parses an answer head in buf (len bytes). Returns 1 when complete (h
 * filled, pointing into buf), 0 when more bytes are needed, -1 when
 * malformed or too many headers. */
int proxy_parse_head(const char *buf, size_t len, struct proxy_head *h);
/* The header's value as a NUL-terminated copy into out; NULL when absent. */
const char *proxy_head_get(const struct proxy_head *h, const char *name, char *out,
                           size_t outlen);

/* -- proxy_conn.c ----------------------------------------------------------- */
/* An idle connection to host:port, or a new one. NULL with errno set and a
 * reason in err. */
struct proxy_conn *proxy_conn_get(struct cube_proxies *px, const char *host, unsigned port,
                                  char *err, size_t errlen);
/* Returns a connection whose exchange completed cleanly to the idle pool
 * (or closes it when the pool is full). */
void proxy_conn_put(struct cube_proxies *px, struct proxy_conn *c);
/* Closes and frees a connection (not in the pool, not parked). */
void proxy_conn_close(struct cube_proxies *px, struct proxy_conn *c);
/* A non-blocking socket connecting to the numeric host:port; *pending
 * when the connect is still in progress (wait for POLLOUT, then read
 * SO_ERROR). -1 with errno and a reason in err. */
int proxy_dial_start(const char *host, unsigned port, int *pending, char *err, size_t errlen);
/* Writes all of buf, waiting up to PROXY_WRITE_TIMEOUT_MS for room. 0 or -1. */
int proxy_send_all(int fd, const char *buf, size_t len);
/* Closes every idle connection and frees the pools; once no thread
 * proxies any more (the HTTP threads stopped). */
void proxy_pool_clear(struct cube_proxies *px);

/* -- proxy_loop.c ----------------------------------------------------------- */
/* An epoll set whose wait an eventfd interrupts (the relay, park and
 * mirror threads): opens both and registers the eventfd with *tag =
 * PROXY_EV_WAKE as its epoll tag. 0, or -1 with both set to -1. */
int proxy_poll_open(int *ep, int *efd, int *tag);
void proxy_poll_kick(int efd);
void proxy_poll_drain(int efd);
void proxy_poll_close(int ep, int efd);
struct proxy_loop *proxy_loop_start(void);
/* Frees a stopped loop. */
void proxy_loop_free(struct proxy_loop *l);
/* Joins the thread, then resumes every parked connection (wake = STOP)
 * and closes every relay; later parks fail. The loop stays allocated. */
void proxy_loop_stop(struct proxy_loop *l);
/* Suspends mhd until c->fd is readable or timeout_ms passes (0: never).
 * Call on the connection's HTTP thread, from the access handler or a
 * content reader; return right after. -1 when the loop is stopping (the
 * connection was not suspended). */
int proxy_loop_park(struct proxy_loop *l, struct proxy_conn *c, struct MHD_Connection *mhd,
                    unsigned timeout_ms);
/* Removes c's fd from the loop's epoll (before reusing or closing it). */
void proxy_loop_forget(struct proxy_loop *l, struct proxy_conn *c);
/* Splices an upgraded client socket (of conn) and an upstream fd until
 * either side ends; takes both (and urh). The pending buffers are sent
 * first. On conn's HTTP thread (MHD's upgrade handler). */
int proxy_loop_relay(struct proxy_loop *l, MHD_socket client, struct MHD_Connection *conn,
                     struct MHD_UpgradeResponseHandle *urh, int upstream,
                     const char *to_upstream, size_t up_len, const char *to_client,
                     size_t cl_len);

/* -- proxy_req.c ------------------------------------------------------------ */
struct proxy_call;
/* Sends call->head on a pooled or new connection to host:port (a pooled
 * one found closed is replaced once). 0, or -1 after answering 502. */
int proxy_send_head(struct proxy_call *call, const char *host, unsigned port);
/* Builds call->head for up; with mirror not NULL also the copy's head
 * without framing and blank line into *mirror. 0 or -1 (out of memory). */
int proxy_build_head(struct proxy_call *call, const struct cube_proxy_upstream *up,
                     struct cube_text *mirror);
/* Audits the caller's use of the prefix, once per request. */
void proxy_audit(struct proxy_call *call);

/* -- proxy_resolve.c ---------------------------------------------------------- */
/* Asks the plugin for the upstream (call->rest set) and acts on it: sends
 * the head (the request is relayed from now on), parks the request
 * (call->held), or answers. Runs again after a wake. */
void proxy_resolve_run(struct proxy_call *call);
/* The first call after a parked request resumed: answers 504/503, runs
 * resolve again, or returns -1 when the caller hung up (close it). */
int proxy_resolve_resumed(struct proxy_call *call);

/* -- proxy_park.c ------------------------------------------------------------ */
struct proxy_park *proxy_park_new(void);
/* Resumes every parked request (STOP) and joins the thread; later parks
 * answer 503. */
void proxy_park_stop(struct proxy_park *pk);
void proxy_park_free(struct proxy_park *pk);
/* Parks call's request under call->key: suspends its connection, watches
 * the caller's socket. `gen` is the prefix's wake_gen read before resolve
 * ran (NULL: park regardless). 0 when parked (return from the access
 * handler), 1 when a wake came meanwhile (run resolve again), -1 after
 * answering 503 (too many parked, stopping). */
int proxy_park_hold(struct proxy_call *call, const uint64_t *gen, uint64_t timeout_ms);
/* Takes a parked request out of the park without resuming it (its
 * request ends). */
void proxy_park_forget(struct proxy_call *call);

/* -- proxy_mirror.c ------------------------------------------------------------ */
struct proxy_mirror *proxy_mirror_new(void);
/* Drops every copy in flight and joins the thread; later copies are
 * dropped. */
void proxy_mirror_stop(struct proxy_mirror *m);
void proxy_mirror_free(struct proxy_mirror *m);
/* Whether this request gets a copy (up's mirror is set, the sampling
 * picks it and its body can be copied); counts a skip. */
int proxy_mirror_wanted(struct proxy_call *call, const struct cube_proxy_upstream *up);
/* Collects a body chunk for the copy (drops the copy past the cap). */
void proxy_mirror_body(struct proxy_call *call, const char *data, size_t len);
/* The body ended: hands the copy to the mirror thread. Never blocks. */
void proxy_mirror_send(struct proxy_call *call);

/* -- proxy_stats.c ------------------------------------------------------------ */
/* Registers the proxy's metrics in px; 0 or -1 with err set. */
int proxy_metrics_register(struct cube_proxies *px, struct cube_metrics *reg, char *err,
                           size_t errlen);
void proxy_stats_init(struct proxy_prefix *p);
void proxy_stats_free(struct proxy_prefix *p);
/* Counts a finished proxied request in cube_proxy_requests_total. */
void proxy_count(struct cube_proxies *px, const struct proxy_prefix *p, int status);
/* resolve is about to run for the first time: counts the request. */
void proxy_stats_begin(struct proxy_call *call);
/* The request's key is known (call->key): counts it under the key. */
void proxy_stats_bind(struct proxy_call *call);
/* The request was parked (+1) or left the park (-1). Any thread. */
void proxy_stats_parked(struct proxy_call *call, int delta);
/* A copy went to the mirror (handed = 1) or its outcome (ok / error). */
void proxy_stats_mirror(struct cube_proxies *px, const struct proxy_prefix *p,
                        struct proxy_stat *kst, const char *result);
/* The request ended: the counters, then the plugin's done. */
void proxy_stats_end(struct proxy_call *call);

/* -- proxy_resp.c ----------------------------------------------------------- */
struct proxy_call;
/* Reads the upstream's answer head for call and queues the answer: a
 * streamed body, or a 101 switching to a relay. Returns 1 when answered
 * (or failed and answered), 0 when it parked waiting for more bytes. */
int proxy_resp_try(struct proxy_call *call);

#endif
