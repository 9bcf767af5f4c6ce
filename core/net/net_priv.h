/* net_priv.h — the records shared by net_loop.c (the network thread),
 * net_fetch.c (one transfer's libcurl handle), net_deliver.c (callbacks on
 * workers, cancel) and host_net.c (the slots). Not part of the core's
 * interface.
 *
 * Lifetime of a fetch: two references, the loop's (dropped when the easy
 * handle has left the multi handle for good) and the delivery strand's
 * (dropped once done was delivered or the fetch was cancelled with no
 * callback pending); an operation queued for the loop holds one more. The
 * last release unlinks it from the id table and frees it. */
#ifndef CUBE_NET_PRIV_H
#define CUBE_NET_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>
#include <cube/cube.h>

#include "base/text.h"

struct cube_config;
struct cube_tasks;

#define NET_BUCKETS 256
#define NET_DEFAULT_TIMEOUT_MS 30000u
#define NET_MAX_TIMEOUT_MS 3600000u
#define NET_DEFAULT_MAX_BYTES (8u << 20)
#define NET_DEFAULT_REDIRECTS 5
#define NET_MAX_REDIRECTS 10
/* A streamed fetch pauses its transfer while this much waits for the
 * plugin's chunk callback, and resumes below the low mark. */
#define NET_PAUSE_BYTES (1u << 20)
#define NET_RESUME_BYTES (256u << 10)

/* One callback waiting for delivery: a chunk (data/len) or the end. */
struct net_event {
    struct net_event *next;
    int is_done;
    size_t len;
    char data[];                   /* chunk bytes */
};

/* Loop operations a plugin thread asks for. */
enum net_op_kind { NET_OP_ADD, NET_OP_CANCEL, NET_OP_ABORT, NET_OP_RESUME, NET_OP_STOP };

struct net_op {
    struct net_op *next;
    enum net_op_kind kind;
    struct net_fetch *f;           /* holds a reference */
};

struct net_fetch {
    struct cube_net *net;
    uint64_t id;
    cube_plugin *owner;
    atomic_int refs;
    struct net_fetch *bucket_next; /* id table, under net->mu */

    /* the plugin's callbacks */
    int (*chunk)(void *state, void *arg, const void *data, size_t len);
    void (*done)(void *state, void *arg, const struct cube_fetch_result *res);
    void *arg;

    /* the transfer: touched by the network thread only, after ADD */
    CURL *easy;
    struct curl_slist *hdrs;
    char **req_headers;            /* as given, for rebuilding after a redirect */
    size_t n_req_headers;
    char *method;
    char *body;
    size_t body_len;
    char *url;                     /* the current URL */
    char host[256];                /* its host, without brackets */
    int port;
    int first_port;                /* the first URL's host and port: credentials */
    char first_host[256];          /* are dropped when a redirect leaves them */
    int via_proxy;
    uint32_t timeout_ms;
    uint64_t start_ns;
    uint64_t max_bytes;            /* 0: no cap */
    uint64_t got;
    int redirects_left, follow;
    int too_big;
    int in_multi, loop_done;
    char refused[512];             /* set when the allow-list refused */
    char errbuf[CURL_ERROR_SIZE];
    struct cube_text resp_headers;
    struct cube_text resp_body;    /* buffered fetches only */

    /* delivery, under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct net_event *head, *tail;
    size_t queued_bytes;
    int scheduled;                 /* a worker task is queued or running */
    int in_cb;                     /* a callback is running ... */
    pthread_t runner;              /* ... on this thread */
    int cancelled, done_started, strand_closed, paused;
    int cancel_seen;               /* cancel_owner visited it; under net->mu */
    atomic_int stop_code;          /* the chunk callback asked to stop */
    struct cube_fetch_result result;   /* filled by the loop before done */
    char *result_message;
};

struct cube_net {
    const struct cube_config *cfg;
    struct cube_tasks *tasks;
    CURLM *multi;
    CURLSH *share;                 /* DNS cache and TLS sessions */
    pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
    pthread_t thread;
    int started;
    pthread_mutex_t mu;            /* the id table and the op queue */
    struct net_fetch *buckets[NET_BUCKETS];
    struct net_op *ops_head, *ops_tail;
    uint64_t next_id;
    int stopping;
};

/* -- net_loop.c -- */
/* Queues an operation for the network thread (taking a reference on f) and
 * wakes it. Returns 0, or -1 when the engine is stopping (for ADD). */
int cube_net_post(struct cube_net *net, enum net_op_kind kind, struct net_fetch *f);

/* -- net_fetch.c -- */
/* Builds f's easy handle from desc (copies everything). Returns CUBE_OK or
 * CUBE_EINVAL / CUBE_ENOMEM with the reason logged for the owner. */
int cube_net_fetch_prepare(struct net_fetch *f, const struct cube_fetch_desc *desc);
/* Sets the current URL (host, port, proxy, the allow-list's verdict before
 * resolution in f->refused). 0, or -1 when it is no http(s) URL. */
int cube_net_fetch_retarget(struct net_fetch *f, const char *url);
/* Resets the answer and sets method, body, timeout and headers (without
 * credentials off the first host) for the next request of a redirect.
 * 0, or -1 when out of memory. */
int cube_net_fetch_rearm(struct net_fetch *f, long timeout_ms);
/* Network thread: a transfer finished with code rc. Either re-arms f for a
 * redirect (returns 1: add it again) or fills f->result and returns 0. */
int cube_net_fetch_finished(struct net_fetch *f, CURLcode rc);
/* Network thread: fills f->result with an error of the host's own (refused
 * before starting, stopped, shutdown). */
void cube_net_fetch_fail(struct net_fetch *f, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Frees what the transfer holds (the easy handle must be out of the multi). */
void cube_net_fetch_release_transfer(struct net_fetch *f);

/* -- net_deliver.c -- */
/* Network thread: queues a chunk (copied) or, with data NULL, the done
 * callback. Returns 1 when the transfer should pause (too much queued). */
int cube_net_deliver(struct net_fetch *f, const void *data, size_t len);
/* Takes or drops a reference; the last drop frees f. */
void cube_net_ref(struct net_fetch *f);
void cube_net_unref(struct net_fetch *f);
/* Finds a live fetch of owner by id and takes a reference, or NULL. */
struct net_fetch *cube_net_find(struct cube_net *net, cube_plugin *owner, uint64_t id);
/* Cancels: after it returns no callback of f runs. CUBE_OK or
 * CUBE_ENOTFOUND (done had been delivered). */
int cube_net_cancel(struct net_fetch *f);

#endif
