/* http_req.h — the host's request record (the ABI's opaque cube_req) and
 * the internal helpers that answer it. Shared by http*.c and host.c only. */
#ifndef CUBE_HTTP_REQ_H
#define CUBE_HTTP_REQ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>
#include <cube/cube.h>

#include "base/perm.h"
#include "router.h"

struct cube_ctx;
struct cube_route_entry;
struct proxy_call;

/* A response header queued before the answer. */
struct cube_hdr {
    char *name, *value;
    struct cube_hdr *next;
};

/* A string the request owns until it completes (decoded query values). */
struct cube_scratch {
    struct cube_scratch *next;
    char text[];
};

struct cube_req {
    int begun;                     /* set up by the first call (http.c) */
    char *query;                   /* the raw query, or NULL (http_query.c) */
    int early_status;              /* the target's refusal (400/414), or 0 */
    const char *early_why;         /* static text for early_status */
    struct cube_ctx *ctx;
    struct cube_http *http;
    struct MHD_Connection *conn;
    const char *method;            /* owned by MHD; valid for the request */
    char *path;                    /* decoded path (for req_path and logs) */
    const char *raw_path;          /* owned by MHD */
    char *body;                    /* NUL-terminated; "" when none */
    size_t body_len, body_cap;
    int body_too_big;
    struct cube_route_match match;
    const struct cube_route_entry *route;
    const char *route_label;       /* route template, or a fixed word */
    char id[72];
    char client[64];
    uint64_t start_ns;
    int answered;
    int status;
    uint64_t resp_bytes;
    int accept_gzip;
    struct cube_hdr *resp_headers;
    struct cube_scratch *scratch;
    struct cube_principal who;     /* auth.c; resolved on first need */
    int who_failed;                /* identify answered 401 */
    char csrf[72];                 /* the session's CSRF token (via SESSION) */
    int csrf_exempt;               /* proxied prefix: no X-CSRF-Token check */
    struct proxy_call *proxy;      /* proxied request state (proxy_req.c) */
    int matched;                   /* match_rc and match are the router's (begin) */
    int match_rc;                  /* enum cube_route_result */
    struct cube_body *stream_in;   /* a stream_body route's body (http_body.c) */
};

struct cube_http_loops;

/* The server; defined in http.c, stream state used by http_stream.c. */
struct cube_http {
    struct cube_ctx *ctx;
    struct cube_http_loops *loops;   /* its HTTP threads (http_loop.h) */
    int port;
    int apps;                      /* the apps listener (apps.h), not the API's */
    atomic_int inflight;
    atomic_int stopping;
    char *tls_key, *tls_cert;
    /* parked streams (http_stream.c) */
    pthread_mutex_t stream_mu;
    pthread_cond_t stream_cv;
    pthread_t waker;
    int waker_running;
    struct cube_stream *parked;
};

/* Answers with a buffer (copied); gzip-compresses when `compressible`, the
 * client accepts it and the body is large. 0 or a negative CUBE_E code. */
int cube_http_answer(cube_req *req, int status, const char *content_type,
                     const void *data, size_t len, int compressible);
/* Answers with a NUL-terminated JSON text, uncompressed; its length is
 * strlen's (fixed answers: never a counted or sizeof length). */
int cube_http_answer_json(cube_req *req, int status, const char *json);
/* Answers with {"error":{"code":...,"message":...}}. */
int cube_http_answer_error(cube_req *req, int status, const char *code,
                           const char *message);
/* Adds a header to the coming answer; CUBE_EINVAL for CR/LF in it. */
int cube_http_add_header(cube_req *req, const char *name, const char *value);
/* As cube_http_answer_error, naming the offending field when not NULL/"". */
int cube_http_answer_error_field(cube_req *req, int status, const char *code,
                                 const char *message, const char *field);
/* Queues a prepared MHD response with the request id and queued headers. */
int cube_http_queue(cube_req *req, int status, struct MHD_Response *resp);
/* Answers with a streaming body (http_stream.c). */
int cube_http_answer_stream(cube_req *req, int status, const char *ctype,
                            const struct cube_stream_desc *desc,
                            cube_stream **out);
/* Wakes a parked stream (http_stream.c). */
void cube_http_stream_wake(cube_stream *s);
/* Starts/stops the thread that wakes parked streams after idle_ms. */
int cube_http_streams_init(struct cube_http *http);
/* Resumes every parked stream so it ends (shutdown), then joins the waker. */
void cube_http_streams_shutdown(struct cube_http *http);
/* Serves a static console file or the SPA index (http_static.c). Returns 1
 * when it answered, 0 when the path is not the console's. */
int cube_http_static(cube_req *req);
/* 1 when rel cannot leave the directory it is relative to: no "..", "."
 * or empty segments, no hidden files, no backslash (http_static.c). */
int cube_http_safe_relative(const char *rel);
/* Answers GET/HEAD with the regular file root/rel (a symlink as the last
 * component is refused), its MIME type, ETag/304 and Cache-Control
 * (`immutable` for content-hashed names). Returns 1 when answered, 0 when
 * rel is unsafe or names no such file (nothing answered), -1 when the
 * answer could not be queued. */
int cube_http_send_file(cube_req *req, const char *root, const char *rel,
                        int immutable);
/* Listens on host:port serving requests as `http` (whose ctx is set) with
 * the server's handlers and limits on limits.threads HTTP threads
 * (http_loop.c); TLS from http->tls_cert and tls_key when set. Sets
 * http->loops and http->port; 0, or -1 with errno kept when it cannot
 * listen (http.c). */
int cube_http_listen(struct cube_http *http, const char *host, int port);
/* Ends the holds on http's threads (their requests answer 503) and makes
 * later holds fail; the threads go on serving. Any thread but an HTTP
 * one; idempotent (http.c). */
void cube_http_listen_release(struct cube_http *http);
/* Stops http's threads and daemons (MHD ends what is left) and clears
 * http->loops; nothing when it is not listening. Never from an HTTP
 * thread (http.c). */
void cube_http_listen_end(struct cube_http *http);
/* 1 when the request's bearer token is the configured admin token. */
int cube_http_admin_token(cube_req *req, const char *token);
/* A query with more parameters than this gets 414. */
#define CUBE_HTTP_MAX_QUERY_PARAMS 256
/* MHD's early URI callback: a new request record holding the query (MHD
 * is left none to parse) and the target's refusal, if any; NULL on OOM
 * (http_query.c). */
void *cube_http_uri_early(void *cls, const char *uri, struct MHD_Connection *conn);
/* A query-string argument, decoded ('+' is a space), or NULL; a key
 * without a value gives "" (http_query.c). */
const char *cube_req_query(cube_req *req, const char *name);
/* The query as it came (no '?'), or NULL when empty (http_query.c). */
const char *cube_req_query_raw(const cube_req *req);
/* 0 when the head frames the body one way only, else 400 or 501 with
 * *why (static text): see http_framing.c. */
int cube_http_framing_check(struct MHD_Connection *conn, const char *version,
                            const char **why);
/* Request accessors shared with host.c (http.c). */
const char *cube_req_header(cube_req *req, const char *name);
const char *cube_req_client(cube_req *req);
/* Maps a CUBE_E* code to an HTTP status and error code word. */
int cube_status_for(int rc, const char **code);
/* Answers for a route handler (or a body callback) that returned rc
 * without answering: CUBE_OK is a bug (logged, 500), an error its status
 * (http.c). */
void cube_http_unanswered(cube_req *req, const struct cube_route_entry *route, int rc);

/* -- streamed request bodies: stream_body routes (http_body.c) ---------- */

/* Runs a stream_body route at the request's head, before any body byte is
 * read: the permission, the declared length against the route's limit,
 * then the handler, which answers or asks for the body. */
void cube_http_body_begin(cube_req *req, const struct cube_route_entry *route);
/* The access handler's later calls for such a request: a chunk (taken
 * whole: *upload_size becomes 0), or the end when *upload_size is 0.
 * MHD_NO closes the connection. */
enum MHD_Result cube_http_body_step(cube_req *req, const char *upload, size_t *upload_size);
/* The request is over (on_completed): the plugin's close runs if it has
 * not, and the body's state is freed. */
void cube_http_body_done(cube_req *req, enum MHD_RequestTerminationCode toe);
/* Keeps an answer made while the body is still coming (MHD takes none
 * then) to send once it has been read: 1 when it took resp over, 0 when
 * the answer may go now (cube_http_queue). */
int cube_http_body_defer(cube_req *req, int status, struct MHD_Response *resp);
/* The req_body_stream slot (cube_host.h). */
int cube_slot_req_body_stream(cube_req *req, const struct cube_body_desc *desc);

#endif
