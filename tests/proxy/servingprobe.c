/* servingprobe.c — a test plugin exercising the ABI 1.5 serving features
 * of register_proxy: the mirror upstream, parking (CUBE_EAGAIN) and
 * proxy_wake, the done callback and proxy_stats. It registers
 *   /serve/{project}/{name}     project:view, mirror copies of bodies up
 *                               to 4096 bytes
 *   /servecap/{project}/{name}  the same with park_max 2
 * resolving to the test's upstream (config `port`) by name:
 *   m50...     mirrored 50% to config `mirror_port`
 *   mdead...   mirrored 100% to config `dead_port` (nothing listens)
 *   cold...    parked until POST /api/v1/servingprobe/ready marks it
 *              ready (the host's deadline; coldshort...: config `park_ms`)
 *   race...    becomes ready and wakes its key while resolve runs (the
 *              host must run resolve again, not park)
 *   keyed      counted under the key "custom-key"
 *   badmirror  mirror_percent 150 (misconfigured: 503)
 * Routes (public: a test plugin, never built into a release):
 *   POST /api/v1/servingprobe/ready?prefix=serve&key=p/n  ready + proxy_wake
 *   GET  /api/v1/servingprobe/stats?prefix=serve[&key=]   proxy_stats
 *   GET  /api/v1/servingprobe/done?key=                   done's records
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <cube/cube.h>

#define MAX_READY 64
#define MAX_DONE 512

static const struct cube_host *H;
static cube_plugin *SELF;
static pthread_mutex_t MU = PTHREAD_MUTEX_INITIALIZER;
static char READY[MAX_READY][128];
static int N_READY;
static struct record {
    char key[128];
    struct cube_proxy_done d;
} DONE[MAX_DONE];
static int N_DONE;

static const char SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
    "\"mirror_port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
    "\"dead_port\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65535},"
    "\"park_ms\":{\"type\":\"integer\",\"minimum\":0}}}";

static int is_ready(const char *key)
{
    pthread_mutex_lock(&MU);
    int found = 0;
    for (int i = 0; i < N_READY && !found; i++)
        found = !strcmp(READY[i], key);
    pthread_mutex_unlock(&MU);
    return found;
}

static unsigned port_of(const char *setting)
{
    return (unsigned)H->config_int(SELF, setting, 1);
}

static void mark_ready(const char *key)
{
    pthread_mutex_lock(&MU);
    if (N_READY < MAX_READY)
        snprintf(READY[N_READY++], sizeof READY[0], "%s", key);
    pthread_mutex_unlock(&MU);
}

static int resolve(void *state, cube_req *req, struct cube_proxy_upstream *up)
{
    (void)state;
    const char *name = H->req_param(req, "name");
    if (!strncmp(name, "race", 4) && !is_ready(up->key)) {
        /* the server became ready, and woke its key, while resolve ran:
         * the host must run resolve again rather than park the request */
        mark_ready(up->key);
        H->proxy_wake(SELF, "/serve/{project}/{name}", up->key);
        return CUBE_EAGAIN;
    }
    if (!strncmp(name, "cold", 4) && !is_ready(up->key)) {
        if (!strncmp(name, "coldshort", 9))
            up->park_timeout_ms = (uint64_t)H->config_int(SELF, "park_ms", 0);
        return CUBE_EAGAIN;
    }
    snprintf(up->host, sizeof up->host, "127.0.0.1");
    up->port = port_of("port");
    if (!strncmp(name, "m50", 3) || !strncmp(name, "mdead", 5)) {
        snprintf(up->mirror_host, sizeof up->mirror_host, "127.0.0.1");
        up->mirror_port = port_of(name[1] == '5' ? "mirror_port" : "dead_port");
        up->mirror_percent = name[1] == '5' ? 50 : 100;
    }
    if (!strcmp(name, "badmirror")) {
        snprintf(up->mirror_host, sizeof up->mirror_host, "127.0.0.1");
        up->mirror_port = port_of("mirror_port");
        up->mirror_percent = 150;
    }
    if (!strcmp(name, "keyed"))
        snprintf(up->key, sizeof up->key, "custom-key");
    return CUBE_OK;
}

/* Runs on an HTTP thread and must not block: a copy under a short lock. */
static void done(void *state, const struct cube_proxy_done *d)
{
    (void)state;
    pthread_mutex_lock(&MU);
    struct record *r = &DONE[N_DONE++ % MAX_DONE];
    snprintf(r->key, sizeof r->key, "%s", d->key);
    r->d = *d;
    r->d.key = r->d.prefix = NULL;
    pthread_mutex_unlock(&MU);
}

static const char *prefix_of(cube_req *req)
{
    const char *p = H->req_query(req, "prefix");
    return p && !strcmp(p, "servecap") ? "/servecap/{project}/{name}" : "/serve/{project}/{name}";
}

static int ready(void *state, cube_req *req)
{
    (void)state;
    const char *key = H->req_query(req, "key");
    if (!key || strlen(key) >= sizeof READY[0])
        return H->resp_error(req, 400, "BadRequest", "key: required");
    mark_ready(key);
    int n = H->proxy_wake(SELF, prefix_of(req), key);
    char out[64];
    snprintf(out, sizeof out, "{\"woken\":%d}", n);
    return H->resp_json(req, 200, out);
}

static int stats(void *state, cube_req *req)
{
    (void)state;
    struct cube_proxy_stats s = {.size = sizeof s};
    int rc = H->proxy_stats(SELF, prefix_of(req), H->req_query(req, "key"), &s);
    char out[400];
    snprintf(out, sizeof out,
             "{\"rc\":%d,\"requests\":%" PRIu64 ",\"inflight\":%" PRIu64 ",\"parked\":%" PRIu64
             ",\"errors\":%" PRIu64 ",\"mirrored\":%" PRIu64 ",\"mirror_errors\":%" PRIu64
             ",\"last_ms\":%" PRId64 "}",
             rc, s.requests, s.inflight, s.parked, s.errors, s.mirrored, s.mirror_errors,
             s.last_ms);
    return H->resp_json(req, 200, out);
}

static int done_list(void *state, cube_req *req)
{
    (void)state;
    const char *key = H->req_query(req, "key");
    static char out[MAX_DONE * 220 + 16];
    size_t n = 0;
    pthread_mutex_lock(&MU);
    n += (size_t)snprintf(out, sizeof out, "[");
    int first = N_DONE > MAX_DONE ? N_DONE - MAX_DONE : 0;
    for (int i = first; i < N_DONE; i++) {
        const struct record *r = &DONE[i % MAX_DONE];
        if (key && strcmp(key, r->key))
            continue;
        const struct cube_proxy_done *d = &r->d;
        n += (size_t)snprintf(out + n, sizeof out - n,
            "%s{\"status\":%d,\"upstream\":%d,\"error\":%d,\"mirrored\":%d,\"parked\":%d,"
            "\"duration_us\":%" PRIu64 ",\"parked_us\":%" PRIu64 ",\"bytes_in\":%" PRIu64
            ",\"bytes_out\":%" PRIu64 ",\"size\":%zu}",
            n > 1 ? "," : "", d->status, d->upstream, d->error, d->mirrored, d->parked,
            d->duration_us, d->parked_us, d->bytes_in, d->bytes_out, d->size);
    }
    pthread_mutex_unlock(&MU);
    snprintf(out + n, sizeof out - n, "]");
    return H->resp_json(req, 200, out);
}

static int init(const struct cube_host *host, cube_plugin *self, void **state)
{
    H = host;
    SELF = self;
    *state = NULL;
    N_READY = N_DONE = 0;
    const struct cube_proxy_desc serve = {
        .size = sizeof serve, .prefix = "/serve/{project}/{name}",
        .permission = CUBE_PERM_PROJECT_VIEW, .resolve = resolve, .done = done,
        .mirror_body_max = 4096};
    const struct cube_proxy_desc cap = {
        .size = sizeof cap, .prefix = "/servecap/{project}/{name}",
        .permission = CUBE_PERM_PROJECT_VIEW, .resolve = resolve, .done = done, .park_max = 2};
    const struct cube_route_desc routes[] = {
        {sizeof routes[0], "POST", "/api/v1/servingprobe/ready", CUBE_PERM_PUBLIC, ready,
         "Marks a key ready and wakes its parked requests", 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/servingprobe/stats", CUBE_PERM_PUBLIC, stats,
         "proxy_stats of a prefix or key", 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/servingprobe/done", CUBE_PERM_PUBLIC, done_list,
         "What done was called with", 0, 0, NULL},
    };
    if (host->register_proxy(self, &serve) || host->register_proxy(self, &cap))
        return CUBE_EINVAL;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (host->register_route(self, &routes[i]))
            return CUBE_EINVAL;
    return CUBE_OK;
}

CUBE_PLUGIN_DEFINE(servingprobe,
    .name = "servingprobe", .version = "1.0.0", .vendor = "Cube", .license = "Apache-2.0",
    .description = "Exercises the proxy's mirror, park and counters in tests",
    .config_schema = SCHEMA, .init = init)
