/* http.c — the HTTP server: connection set-up, body limits, dispatch to
 * routes with permission checks, request ids, access log and metrics.
 * Answers are built in http_resp.c, streams in http_stream.c, console
 * files in http_static.c; the query string is kept in http_query.c, the
 * request head's framing checked in http_framing.c and JSON bodies in
 * json_check.c. */
#include "http.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy/apps.h"
#include "auth/auth.h"
#include "ctx/ctx.h"
#include "http_loop.h"
#include "http_req.h"
#include "json_check.h"
#include "base/log.h"
#include "base/text.h"
#include "metrics/metrics.h"
#include "proxy/proxy.h"
#include "base/clock.h"
#include "base/fs.h"
#include "base/random.h"
#include "base/hash.h"

/* MHD would decode the path before splitting it into segments; the router
 * must see "%2F" intact, so MHD gets a no-op and we decode ourselves. */
static size_t keep_escapes(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    return strlen(s);
}

static int valid_request_id(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)id[i]) || strchr("-_.:", id[i])))
            return 0;
    return 1;
}

static void fill_client(cube_req *req)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    snprintf(req->client, sizeof req->client, "unknown");
    if (!ci || !ci->client_addr)
        return;
    const struct sockaddr *sa = ci->client_addr;
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr,
                  req->client, sizeof req->client);
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr,
                  req->client, sizeof req->client);
}

/* Formats the client address on first use (most requests never need it). */
const char *cube_req_client(cube_req *req)
{
    if (!req->client[0])
        fill_client(req);
    return req->client;
}

static enum MHD_Result add_header_size(void *cls, enum MHD_ValueKind kind,
                                       const char *key, const char *value)
{
    (void)kind;
    *(size_t *)cls += strlen(key) + (value ? strlen(value) : 0) + 4;
    return MHD_YES;
}

static size_t header_bytes(struct MHD_Connection *conn)
{
    size_t total = 0;
    MHD_get_connection_values(conn, MHD_HEADER_KIND, add_header_size, &total);
    return total;
}

/* Sets up the record the early URI callback made (or a new one). */
static cube_req *req_new(struct cube_http *http, struct MHD_Connection *conn,
                         const char *url, const char *method, cube_req *req)
{
    if (!req && !(req = calloc(1, sizeof *req)))
        return NULL;
    req->begun = 1;
    req->ctx = http->ctx;
    req->http = http;
    req->conn = conn;
    req->method = method;
    req->raw_path = url;
    req->start_ns = cube_now_ns();
    req->route_label = "unmatched";
    const char *rid = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                  "X-Request-Id");
    if (rid && valid_request_id(rid))
        snprintf(req->id, sizeof req->id, "%s", rid);
    else
        cube_id_hex(req->id, 16);
    const char *ae = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                 "Accept-Encoding");
    req->accept_gzip = ae && strstr(ae, "gzip") != NULL;
    req->path = strdup(url);
    if (!req->path || cube_percent_decode(req->path) < 0) {
        free(req->path);
        req->path = strdup(url); /* logged raw; the router rejects it */
    }
    atomic_fetch_add(&http->inflight, 1);
    return req;
}

static void req_free(cube_req *req)
{
    while (req->resp_headers) {
        struct cube_hdr *h = req->resp_headers;
        req->resp_headers = h->next;
        free(h->name);
        free(h->value);
        free(h);
    }
    while (req->scratch) {
        struct cube_scratch *s = req->scratch;
        req->scratch = s->next;
        free(s);
    }
    cube_route_match_clear(&req->match);
    free(req->body);
    free(req->path);
    free(req->query);
    free(req);
}

/* Appends a chunk of the body, or marks the request too big. */
static void body_append(cube_req *req, const char *data, size_t len)
{
    size_t max = req->ctx->cfg->max_body_bytes;
    if (req->body_too_big || req->body_len + len > max) {
        req->body_too_big = 1;
        return;
    }
    if (req->body_len + len + 1 > req->body_cap) {
        /* Small first: a small block is cheap to get and give back. */
        size_t cap = req->body_cap ? req->body_cap : 512;
        while (cap < req->body_len + len + 1)
            cap *= 2;
        char *grown = realloc(req->body, cap);
        if (!grown) {
            req->body_too_big = 1;
            return;
        }
        req->body = grown;
        req->body_cap = cap;
    }
    memcpy(req->body + req->body_len, data, len);
    req->body_len += len;
    req->body[req->body_len] = '\0';
}

int cube_http_admin_token(cube_req *req, const char *token)
{
    const struct cube_config *cfg = req->ctx->cfg;
    uint8_t digest[32];
    return cfg->has_admin_token && cube_sha256(token, strlen(token), digest) == 0 &&
           cube_ct_compare(digest, cfg->admin_token_sha256, 32) == 0;
}

static void run_handler(cube_req *req, const struct cube_route_entry *route)
{
    req->route = route;
    req->route_label = route->path;
    if (!cube_auth_route(req, route))
        return;
    struct cube_json_fault fault;
    if (cube_json_body_check(req->body, req->body_len, &fault)) {
        cube_http_answer_error_field(req, 400, "BadRequest", fault.message, fault.field);
        return;
    }
    int rc = route->handler(route->plugin->state, req);
    if (!req->answered)
        cube_http_unanswered(req, route, rc);
}

void cube_http_unanswered(cube_req *req, const struct cube_route_entry *route, int rc)
{
    if (rc == CUBE_OK) {
        cube_log(CUBE_LOG_ERROR, route->plugin->log_component,
                 "%s %s returned without answering", route->method, route->path);
        rc = CUBE_EINTERNAL;
    }
    const char *code;
    int status = cube_status_for(rc, &code);
    cube_http_answer_error(req, status, code, status >= 500
                           ? "the handler failed" : "the request was refused");
}

static void dispatch(cube_req *req)
{
    if (req->http->apps) {   /* cube_proxy_begin takes its requests: never routes */
        cube_http_answer_error(req, 404, "NotFound", "not served on the apps origin");
        return;
    }
    if (req->body_too_big) {
        cube_http_answer_error(req, 413, "PayloadTooLarge",
                               "request body exceeds limits.max_body_bytes");
        return;
    }
    if (!req->body && !(req->body = calloc(1, 1))) {
        cube_http_answer_error(req, 503, "Unavailable", "out of memory");
        return;
    }
    if (!req->matched)
        req->match_rc = (int)cube_router_match(req->ctx->router, req->method,
                                               req->raw_path, &req->match);
    switch ((enum cube_route_result)req->match_rc) {
    case CUBE_ROUTE_FOUND:
        run_handler(req, req->match.target);
        return;
    case CUBE_ROUTE_BAD_METHOD:
        if (cube_http_static(req))
            return;
        req->route_label = "method_not_allowed";
        cube_http_add_header(req, "Allow", req->match.allow);
        cube_http_answer_error(req, 405, "MethodNotAllowed",
                               "method not allowed for this path");
        return;
    case CUBE_ROUTE_NOT_FOUND:
        if (cube_http_static(req))
            return;
        cube_http_answer_error(req, 404, "NotFound", "no route for this path");
        return;
    }
}

/* Answers a request whose target or head cannot be read one way only;
 * the connection closes after it (the body is never read). */
static void refuse_head(cube_req *req, int status, const char *why)
{
    const char *code = status == 414 ? "URITooLong" : status == 501 ? "NotImplemented"
                     : status == 503 ? "Unavailable" : "BadRequest";
    cube_http_add_header(req, "Connection", "close");
    cube_http_answer_error(req, status, code, why);
}

/* First call for a request: set up, then check the target, the framing,
 * the header and the declared body sizes. */
static enum MHD_Result begin(struct cube_http *http, struct MHD_Connection *conn,
                             const char *url, const char *method, const char *version,
                             void **con_cls)
{
    cube_req *req = req_new(http, conn, url, method, *con_cls);
    if (!req)
        return MHD_NO;
    *con_cls = req;
    const struct cube_config *cfg = http->ctx->cfg;
    const char *why;
    int status;
    if (req->early_status) {
        refuse_head(req, req->early_status, req->early_why);
        return MHD_YES;
    }
    if ((status = cube_http_framing_check(conn, version, &why)) != 0) {
        refuse_head(req, status, why);
        return MHD_YES;
    }
    if (header_bytes(conn) > cfg->max_header_bytes) {
        cube_http_answer_error(req, 431, "HeadersTooLarge",
                               "request headers exceed limits.max_header_bytes");
        return MHD_YES;
    }
    if (cube_proxy_begin(req))
        return MHD_YES;
    /* Routed at the head: a stream_body route runs its handler now. The
     * apps origin never routes (dispatch refuses there). */
    if (!http->apps) {
        req->matched = 1;
        req->match_rc = (int)cube_router_match(http->ctx->router, method, url, &req->match);
        const struct cube_route_entry *route = req->match.target;
        if (req->match_rc == CUBE_ROUTE_FOUND && route->stream_body) {
            cube_http_body_begin(req, route);
            return MHD_YES;
        }
    }
    const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                 "Content-Length");
    if (cl && strtoull(cl, NULL, 10) > cfg->max_body_bytes) {
        req->body_too_big = 1;
        dispatch(req);
    }
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    struct cube_http *http = cls;
    cube_req *req = *con_cls;
    if (!req || !req->begun)
        return begin(http, conn, url, method, version, con_cls);
    if (req->stream_in)
        return cube_http_body_step(req, upload, upload_size);
    if (req->answered) {
        *upload_size = 0; /* discard the rest of a refused body */
        return MHD_YES;
    }
    if (req->proxy)
        return (enum MHD_Result)cube_proxy_on_request(req, upload, upload_size);
    if (*upload_size) {
        body_append(req, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    dispatch(req);
    return MHD_YES;
}

static void access_log(cube_req *req, double seconds)
{
    int mode = req->ctx->cfg->access_log;
    if (mode == 0 || !cube_log_enabled(CUBE_LOG_INFO))
        return;
    char line[1024];
    if (mode == 2) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "type", "access");
        cJSON_AddStringToObject(o, "client", cube_req_client(req));
        cJSON_AddStringToObject(o, "method", req->method);
        cJSON_AddStringToObject(o, "path", req->path ? req->path : "");
        cJSON_AddNumberToObject(o, "status", req->status);
        cJSON_AddNumberToObject(o, "bytes", (double)req->resp_bytes);
        cJSON_AddNumberToObject(o, "duration_ms", seconds * 1000.0);
        cJSON_AddStringToObject(o, "request_id", req->id);
        char *text = cJSON_PrintUnformatted(o);
        if (text)
            cube_log_raw(text);
        free(text);
        cJSON_Delete(o);
        return;
    }
    snprintf(line, sizeof line, "%s \"%s %.512s\" %d %llu %.3fms rid=%s",
             cube_req_client(req), req->method, req->path ? req->path : "",
             req->status, (unsigned long long)req->resp_bytes,
             seconds * 1000.0, req->id);
    cube_log(CUBE_LOG_INFO, "access", "%s", line);
}

static void on_completed(void *cls, struct MHD_Connection *conn,
                         void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)conn;
    struct cube_http *http = cls;
    cube_req *req = *con_cls;
    if (!req)
        return;
    *con_cls = NULL;
    if (!req->begun) {   /* MHD refused the head itself: only the query kept */
        free(req->query);
        free(req);
        return;
    }
    cube_proxy_req_done(req);
    cube_http_body_done(req, toe);
    double seconds = (double)(cube_now_ns() - req->start_ns) / 1e9;
    char status[12];
    cube_status_text(status, req->status ? req->status : 499);
    const char *labels[] = {req->route_label, req->method, status};
    struct cube_ctx *ctx = http->ctx;
    cube_metric_add(ctx->m_requests, labels, 1);
    cube_metric_observe(ctx->m_latency, labels, seconds);
    access_log(req, seconds);
    cube_auth_audit_request(req);
    req_free(req);
    atomic_fetch_sub(&http->inflight, 1);
}

static int load_tls(struct cube_http *http, const struct cube_config *cfg)
{
    if (!cfg->tls_cert && !cfg->tls_key)
        return 0;
    if (!cfg->tls_cert || !cfg->tls_key) {
        cube_log(CUBE_LOG_ERROR, "http", "tls: both cert and key are needed");
        return -1;
    }
    http->tls_cert = cube_read_file(cfg->tls_cert, 1 << 20, NULL);
    http->tls_key = cube_read_file(cfg->tls_key, 1 << 20, NULL);
    if (!http->tls_cert || !http->tls_key) {
        cube_log(CUBE_LOG_ERROR, "http", "tls: cannot read %s",
                 http->tls_cert ? cfg->tls_key : cfg->tls_cert);
        return -1;
    }
    return 1;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        msg[--n] = '\0';
    cube_log(CUBE_LOG_DEBUG, "mhd", "%s", msg);
}

/* New connections while stopping are closed at once. This stands in for
 * MHD_quiesce_daemon, which daemons in external polling cannot use (it
 * needs MHD's inter-thread channel) and which, with MHD's own threads,
 * raced the removal of the listen socket from its epoll set and could
 * abort the process (MHD_PANIC, libmicrohttpd 0.9.75). */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr,
                                     socklen_t addrlen)
{
    (void)addr, (void)addrlen;
    const struct cube_http *http = cls;
    return atomic_load(&http->stopping) ? MHD_NO : MHD_YES;
}

/* One HTTP thread's daemon (cube_http_daemon_fn): external polling, so
 * that http_loop.c runs it in an epoll loop of its own. */
static struct MHD_Daemon *daemon_new(void *cls, int listen_fd, unsigned max_connections)
{
    struct cube_http *http = cls;
    const struct cube_config *cfg = http->ctx->cfg;
    int tls = http->tls_cert != NULL;
    unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG |
                     MHD_USE_TURBO | MHD_ALLOW_UPGRADE | (tls ? MHD_USE_TLS : 0);
    size_t pool = cfg->max_header_bytes * 2 + 16384;
    struct MHD_OptionItem opts[] = {
        {MHD_OPTION_LISTEN_SOCKET, listen_fd, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, max_connections, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, cfg->request_timeout_s, NULL},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)pool, NULL},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, http},
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)cube_http_loop_notify, NULL},
        {MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)keep_escapes, NULL},
        {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)cube_http_uri_early, NULL},
        {MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)mhd_log, NULL},
        {tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, http->tls_cert},
        {tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, http->tls_key},
        {MHD_OPTION_END, 0, NULL},
    };
    return MHD_start_daemon(flags, 0, accept_policy, http, on_request, http,
                            MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
}

int cube_http_listen(struct cube_http *http, const char *host, int port)
{
    const struct cube_config *cfg = http->ctx->cfg;
    http->loops = cube_http_loops_start(host, port, cfg->threads, cfg->max_connections,
                                        daemon_new, http, &http->port);
    return http->loops ? 0 : -1;
}

void cube_http_listen_release(struct cube_http *http)
{
    cube_http_loops_release(http->loops);
}

void cube_http_listen_end(struct cube_http *http)
{
    cube_http_loops_stop(http->loops);
    http->loops = NULL;
}

static void http_free(struct cube_http *http)
{
    free(http->tls_cert);
    free(http->tls_key);
    pthread_mutex_destroy(&http->stream_mu);
    pthread_cond_destroy(&http->stream_cv);
    free(http);
}

int cube_http_start(struct cube_ctx *ctx)
{
    const struct cube_config *cfg = ctx->cfg;
    struct cube_http *http = calloc(1, sizeof *http);
    if (!http)
        return -1;
    http->ctx = ctx;
    pthread_mutex_init(&http->stream_mu, NULL);
    pthread_cond_init(&http->stream_cv, NULL);
    int tls = load_tls(http, cfg);
    if (tls < 0 || cube_http_streams_init(http) < 0)
        goto fail;
    if (cube_proxy_http_start(ctx) < 0) {
        cube_http_streams_shutdown(http);
        goto fail;
    }
    if (cube_http_listen(http, cfg->listen_host, cfg->listen_port) < 0) {
        cube_log(CUBE_LOG_ERROR, "http", "cannot listen on %s:%d: %m",
                 cfg->listen_host, cfg->listen_port);
        cube_http_streams_shutdown(http);
        cube_proxy_http_stop(ctx);
        goto fail;
    }
    if (cube_apps_listen_start(ctx, http) < 0) {  /* proxied servers' own origin */
        cube_http_listen_end(http);
        cube_http_streams_shutdown(http);
        cube_proxy_http_stop(ctx);
        goto fail;
    }
    ctx->http = http;
    cube_log(CUBE_LOG_INFO, "http", "listening on %s://%s:%d",
             tls ? "https" : "http", cfg->listen_host, http->port);
    return 0;
fail:
    http_free(http);
    return -1;
}

int cube_http_port(const struct cube_http *http)
{
    return http->port;
}

void cube_http_stop(struct cube_ctx *ctx, unsigned grace_ms)
{
    struct cube_http *http = ctx->http;
    if (!http)
        return;
    atomic_store(&http->stopping, 1);   /* accept_policy turns newcomers away */
    cube_apps_listen_quiesce(ctx);     /* and ends its held requests */
    cube_http_listen_release(http);  /* held requests answer 503 */
    cube_http_streams_shutdown(http);
    cube_proxy_http_stop(ctx);
    cube_apps_listen_stop(ctx, grace_ms);
    for (unsigned waited = 0; waited < grace_ms; waited += 10) {
        if (atomic_load(&http->inflight) == 0)
            break;
        usleep(10000);
    }
    if (atomic_load(&http->inflight) > 0)
        cube_log(CUBE_LOG_WARN, "http", "closing %d unfinished request(s)",
                 atomic_load(&http->inflight));
    cube_http_listen_end(http);
    http_free(http);
    ctx->http = NULL;
}

const char *cube_req_header(cube_req *req, const char *name)
{
    return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}
