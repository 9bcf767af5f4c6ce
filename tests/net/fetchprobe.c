/* fetchprobe.c — a test plugin exercising the fetch slots (ABI 1.5) end to
 * end. GET /api/v1/fetchprobe/run (public) starts one fetch from its query
 * (url, method, body, timeout_ms, max_bytes, redirects, auth: an
 * Authorization header, stream=1: through a chunk callback, cancel_ms:
 * cancel after that long), waits for it and answers what the callbacks
 * saw as JSON: error, message, status, body (or the chunks joined),
 * chunks, content_type, thread_differs (callbacks ran on another thread
 * than the handler), late (callbacks after cancel returned), cancel_rc.
 * The handler blocks: fine for a test plugin, never for a real one. The
 * same code serves the fake host's test (test_mock_fetch.c). Never built
 * into a release. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cube/cube.h>

#include "fetchprobe.h"

static const struct cube_host *H;
static cube_plugin *SELF;

/* Stores one chunk or the body, capped for the answer. */
static void keep(struct probe_run *r, const void *data, size_t len)
{
    size_t room = sizeof r->body - 1 - r->body_len;
    size_t n = len < room ? len : room;
    memcpy(r->body + r->body_len, data, n);
    r->body_len += n;
    r->body[r->body_len] = '\0';
    r->total += len;
}

static int on_chunk(void *state, void *arg, const void *data, size_t len)
{
    struct probe_run *r = arg;
    (void)state;
    pthread_mutex_lock(&r->mu);
    if (r->cancel_returned)
        r->late++;
    r->chunks++;
    keep(r, data, len);
    r->other_thread |= !pthread_equal(pthread_self(), r->caller);
    pthread_mutex_unlock(&r->mu);
    return CUBE_OK;
}

static void on_done(void *state, void *arg, const struct cube_fetch_result *res)
{
    struct probe_run *r = arg;
    (void)state;
    pthread_mutex_lock(&r->mu);
    if (r->cancel_returned)
        r->late++;
    r->error = res->error;
    r->status = res->status;
    snprintf(r->message, sizeof r->message, "%s", res->message);
    const char *ct = strstr(res->headers, "Content-Type: ");
    if (!ct)
        ct = strstr(res->headers, "content-type: ");
    if (ct)
        snprintf(r->content_type, sizeof r->content_type, "%.*s", (int)strcspn(ct + 14, "\r\n"),
                 ct + 14);
    if (res->body_len)
        keep(r, res->body, res->body_len);
    r->other_thread |= !pthread_equal(pthread_self(), r->caller);
    r->finished = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

int probe_fetch(const struct cube_host *host, cube_plugin *self, struct probe_run *r,
                const struct probe_args *a)
{
    const char *hdrs[3] = {"X-Probe: 1", NULL, NULL};
    char auth[160];
    if (a->auth) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", a->auth);
        hdrs[1] = auth;
    }
    struct cube_fetch_desc d = {
        .size = sizeof d, .method = a->method, .url = a->url, .headers = hdrs,
        .body = a->body, .body_len = a->body ? strlen(a->body) : 0,
        .timeout_ms = a->timeout_ms, .max_bytes = a->max_bytes,
        .max_redirects = a->redirects, .chunk = a->stream ? on_chunk : NULL,
        .done = on_done, .arg = r};
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->caller = pthread_self();
    int rc = CUBE_OK;
    uint64_t id = host->fetch(self, &d, &rc);
    if (!id)
        return rc;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    if (a->cancel_ms >= 0) {
        usleep((useconds_t)a->cancel_ms * 1000);
        r->cancel_rc = host->fetch_cancel(self, id);
        pthread_mutex_lock(&r->mu);
        r->cancel_returned = 1;
        pthread_mutex_unlock(&r->mu);
        usleep(300 * 1000);   /* a late callback would show here */
        return CUBE_OK;
    }
    until.tv_sec += 30;
    pthread_mutex_lock(&r->mu);
    while (!r->finished && pthread_cond_timedwait(&r->cv, &r->mu, &until) == 0)
        ;
    pthread_mutex_unlock(&r->mu);
    return r->finished ? CUBE_OK : CUBE_ETIMEDOUT;
}

/* JSON-escapes s (ASCII and UTF-8 kept) into out. */
static void esc(char *out, size_t n, const char *s)
{
    size_t o = 0;
    for (; *s && o + 7 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            o += (size_t)snprintf(out + o, n - o, "\\%c", c);
        else if (c < 0x20)
            o += (size_t)snprintf(out + o, n - o, "\\u%04x", c);
        else
            out[o++] = (char)c;
    }
    out[o] = '\0';
}

char *probe_json(const struct probe_run *r)
{
    static const size_t N = 3 * sizeof r->body + 2048;
    char *out = malloc(N), *b = malloc(2 * sizeof r->body * 3), m[1200];
    if (!out || !b) {
        free(out);
        free(b);
        return NULL;
    }
    esc(b, 2 * sizeof r->body * 3, r->body);
    esc(m, sizeof m, r->message);
    snprintf(out, N,
             "{\"error\":%d,\"message\":\"%s\",\"status\":%d,\"body\":\"%s\",\"total\":%zu,"
             "\"chunks\":%d,\"content_type\":\"%s\",\"thread_differs\":%s,\"late\":%d,"
             "\"cancel_rc\":%d,\"finished\":%s}",
             r->error, m, r->status, b, r->total, r->chunks, r->content_type,
             r->other_thread ? "true" : "false", r->late, r->cancel_rc,
             r->finished ? "true" : "false");
    free(b);
    return out;
}

static int run(void *state, cube_req *req)
{
    (void)state;
    const char *v;
    struct probe_args a = {.url = H->req_query(req, "url"), .method = H->req_query(req, "method"),
                           .body = H->req_query(req, "body"), .auth = H->req_query(req, "auth"),
                           .cancel_ms = -1};
    a.stream = H->req_query(req, "stream") != NULL;
    if ((v = H->req_query(req, "timeout_ms")))
        a.timeout_ms = (uint32_t)atol(v);
    if ((v = H->req_query(req, "max_bytes")))
        a.max_bytes = (uint64_t)atoll(v);
    if ((v = H->req_query(req, "redirects")))
        a.redirects = atoi(v);
    if ((v = H->req_query(req, "cancel_ms")))
        a.cancel_ms = atoi(v);
    struct probe_run *r = calloc(1, sizeof *r);
    if (!r)
        return CUBE_ENOMEM;
    int rc = probe_fetch(H, SELF, r, &a);
    if (rc != CUBE_OK) {
        char msg[64];
        snprintf(msg, sizeof msg, "{\"fetch_rc\":%d}", rc);
        free(r);   /* a cancelled or unstarted fetch calls back no more */
        return H->resp_json(req, 200, msg);
    }
    char *json = probe_json(r);
    if (r->finished || a.cancel_ms >= 0)
        free(r);   /* else a callback may still come: leak it (a test) */
    rc = json ? H->resp_json(req, 200, json) : CUBE_ENOMEM;
    free(json);
    return rc;
}

/* -- GET /api/v1/fetchprobe/bench?url=U&n=N (tests/bench/fetch.sh) -------- */

struct bench_one {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done, error, status;
    struct timespec end;
};

static void bench_done(void *state, void *arg, const struct cube_fetch_result *res)
{
    struct bench_one *b = arg;
    (void)state;
    pthread_mutex_lock(&b->mu);
    clock_gettime(CLOCK_MONOTONIC, &b->end);
    b->error = res->error;
    b->status = res->status;
    b->done = 1;
    pthread_cond_signal(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Runs n fetches of url one after another; answers p50 and p99 of the time
 * from the fetch call to the start of done, in microseconds. */
static int bench(void *state, cube_req *req)
{
    (void)state;
    const char *url = H->req_query(req, "url"), *nv = H->req_query(req, "n");
    long n = nv ? atol(nv) : 1000;
    if (!url || n < 1 || n > 1000000)
        return H->resp_error(req, 400, "BadRequest", "url and n (1..1000000) are needed");
    uint64_t *lat = malloc((size_t)n * sizeof *lat);
    if (!lat)
        return CUBE_ENOMEM;
    int errors = 0;
    for (long i = 0; i < n; i++) {
        struct bench_one b = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
        struct cube_fetch_desc d = {.size = sizeof d, .url = url, .done = bench_done, .arg = &b};
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int rc;
        if (!H->fetch(SELF, &d, &rc)) {
            free(lat);
            return H->resp_error(req, 500, "Internal", "fetch refused");
        }
        pthread_mutex_lock(&b.mu);
        while (!b.done)
            pthread_cond_wait(&b.cv, &b.mu);
        pthread_mutex_unlock(&b.mu);
        errors += b.error != CUBE_OK || b.status != 200;
        lat[i] = (uint64_t)(b.end.tv_sec - t0.tv_sec) * 1000000000u +
                 (uint64_t)(b.end.tv_nsec - t0.tv_nsec);
    }
    qsort(lat, (size_t)n, sizeof *lat, cmp_u64);
    char out[160];
    snprintf(out, sizeof out, "{\"n\":%ld,\"errors\":%d,\"p50_us\":%.1f,\"p99_us\":%.1f}", n,
             errors, lat[n / 2] / 1e3, lat[(n * 99) / 100] / 1e3);
    free(lat);
    return H->resp_json(req, 200, out);
}

static int init(const struct cube_host *host, cube_plugin *self, void **state)
{
    H = host;
    SELF = self;
    *state = NULL;
    const struct cube_route_desc route = {sizeof route, "GET", "/api/v1/fetchprobe/run",
                                          CUBE_PERM_PUBLIC, run, "runs one fetch", 0, 0, NULL};
    const struct cube_route_desc bench_route = {sizeof bench_route, "GET",
                                                "/api/v1/fetchprobe/bench", CUBE_PERM_PUBLIC,
                                                bench, "times sequential fetches", 0, 0, NULL};
    return host->register_route(self, &route) || host->register_route(self, &bench_route);
}

CUBE_PLUGIN_DEFINE(fetchprobe,
    .name = "fetchprobe", .version = "1.0.0", .vendor = "Cube", .license = "Apache-2.0",
    .description = "Exercises the fetch slots in tests", .init = init)
