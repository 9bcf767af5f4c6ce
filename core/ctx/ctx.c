/* ctx.c — creating and tearing down the host context, and the route table
 * shared by the core and plugins. */
#include "ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth.h"
#include "sched/jobs.h"
#include "cube_build.h"
#include "files/files.h"
#include "files/files_http.h"
#include "http/http_req.h"
#include "logstore/logstore.h"
#include "objects/objcache.h"
#include "store/store.h"
#include "objects/watch.h"
#include "base/log.h"
#include "metrics/metrics.h"
#include "http/router.h"
#include "proxy/apps.h"
#include "proxy/proxy.h"
#include "base/fs.h"
#include "base/secretbox.h"
#include "base/tasks.h"
#include "net/net.h"
#include "plugins/host_slots.h"
#include "plugins/ui_ext.h"

/* Watch events kept for resuming; older resourceVersions get 410. */
#define WATCH_HISTORY 65536
#define LOG_STREAM_MAX ((uint64_t)1 << 30)
#define PROJECT_FILE_MAX ((uint64_t)256 << 20)
/* Object documents kept in memory for reads by name. */
#define OBJECT_CACHE_BYTES ((size_t)128 << 20)

static const char *const REQ_LABELS[] = {"route", "method", "status"};

static int core_metrics_init(struct cube_ctx *ctx)
{
    char err[256];
    const struct cube_metric_desc descs[] = {
        {sizeof descs[0], CUBE_METRIC_COUNTER, "cube_http_requests_total",
         "HTTP requests answered, by route template, method and status",
         REQ_LABELS, 3, NULL, 0},
        {sizeof descs[0], CUBE_METRIC_HISTOGRAM, "cube_http_request_duration_seconds",
         "HTTP request latency from first byte to completion",
         REQ_LABELS, 3, NULL, 0},
        {sizeof descs[0], CUBE_METRIC_GAUGE, "cube_plugins_loaded",
         "Plugins loaded and initialised", NULL, 0, NULL, 0},
        {sizeof descs[0], CUBE_METRIC_GAUGE, "cube_build_info",
         "Build information; the value is always 1",
         (const char *const[]){"version", "abi"}, 2, NULL, 0},
    };
    struct cube_metric **slots[] = {&ctx->m_requests, &ctx->m_latency,
                                    &ctx->m_plugins, &ctx->m_build};
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++) {
        *slots[i] = cube_metrics_register(ctx->metrics, &descs[i], "core", err,
                                          sizeof err);
        if (!*slots[i]) {
            cube_log(CUBE_LOG_ERROR, "core", "metric %s: %s", descs[i].name, err);
            return -1;
        }
    }
    char abi[16];
    snprintf(abi, sizeof abi, "%d.%d", CUBE_ABI_MAJOR, CUBE_ABI_MINOR);
    cube_metric_set(ctx->m_build, (const char *const[]){CUBE_VERSION, abi}, 1);
    return 0;
}

int cube_ctx_init(struct cube_ctx *ctx, struct cube_config *cfg)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->cfg = cfg;
    cube_host_table_init(&ctx->host);
    ctx->core.ctx = ctx;
    ctx->core.name = "core";
    ctx->core.log_component = "core";
    ctx->core.state = ctx;
    for (size_t i = 0; i < sizeof ctx->obj_locks / sizeof ctx->obj_locks[0]; i++)
        pthread_mutex_init(&ctx->obj_locks[i], NULL);
    pthread_mutex_init(&ctx->apis_mu, NULL);
    ctx->metrics = cube_metrics_new();
    ctx->router = cube_router_new();
    ctx->tasks = cube_tasks_new(cfg->threads);
    if (!ctx->metrics || !ctx->router || !ctx->tasks) {
        cube_log(CUBE_LOG_ERROR, "core", "out of memory");
        return -1;
    }
    if (!(ctx->net = cube_net_new(cfg, ctx->tasks)))
        return -1;
    if (core_metrics_init(ctx) < 0 || cube_core_routes_register(ctx) < 0 ||
        cube_resources_routes_register(ctx) < 0 || cube_ui_routes_register(ctx) < 0 ||
        cube_files_routes_register(ctx) < 0 ||
        cube_auth_init(ctx) < 0 ||
        cube_sched_init(ctx) < 0)
        return -1;
    /* auth/ ranks below proxy/ and sched/: what it asks of them is wired here */
    static const struct cube_auth_apps apps = {cube_apps_identify, cube_apps_same_origin};
    cube_auth_set_apps(ctx->auth, &apps);
    cube_auth_set_projects(ctx->auth, &cube_sched_projects);
    return 0;
}

/* Loads the platform key that seals plugins' secrets (creating it on
 * first start): `secret_key_file`, by default <data_dir>/secret.key. */
static int open_secret_key(struct cube_ctx *ctx)
{
    char err[512];
    const char *file = ctx->cfg->secret_key_file;
    char *dflt = file ? NULL : cube_path_join(ctx->cfg->data_dir, "secret.key");
    if (!file && !dflt) {
        cube_log(CUBE_LOG_ERROR, "core", "out of memory");
        return -1;
    }
    int rc = cube_secretbox_open(file ? file : dflt, &ctx->secrets, err, sizeof err);
    free(dflt);
    if (rc < 0)
        cube_log(CUBE_LOG_ERROR, "core", "secret_key_file: %s", err);
    return rc;
}

int cube_ctx_open_store(struct cube_ctx *ctx)
{
    char err[512];
    int64_t rv = 0;
    struct cube_config *cfg = ctx->cfg;
    /* Requests block on the database's round trips: with PostgreSQL more
     * HTTP threads keep the server busy (SQLite writes are local), and
     * group commit (store_batch.c) needs writers enough to fill one batch
     * while another runs: at least 16, so that 16 concurrent clients each
     * have a thread (with 8, a writer waiting for its batch held up the
     * other connection its thread served). */
    if (!cfg->threads_set && (strncmp(cfg->database, "postgres", 8) == 0))
        cfg->threads = cfg->threads * 4 < 16 ? 16 : cfg->threads * 4;
    if (cube_store_open(cfg->database, cfg->data_dir, cfg->threads + 2, &ctx->store, err,
                        sizeof err) != CUBE_OK) {
        cube_log(CUBE_LOG_ERROR, "store", "%s", err);
        return -1;
    }
    if (cube_store_max_rv(ctx->store, &rv) != CUBE_OK) {
        cube_log(CUBE_LOG_ERROR, "store", "cannot read the latest resourceVersion");
        return -1;
    }
    ctx->hub = cube_hub_new(rv, WATCH_HISTORY, cube_http_stream_wake);
    ctx->logs = cube_logstore_new(cfg->data_dir, LOG_STREAM_MAX);
    ctx->files = cube_files_new(cfg->data_dir, PROJECT_FILE_MAX);
    ctx->cache = cube_objcache_new(OBJECT_CACHE_BYTES);
    if (!ctx->hub || !ctx->logs || !ctx->files || !ctx->cache) {
        cube_log(CUBE_LOG_ERROR, "core", "out of memory");
        return -1;
    }
    cube_log(CUBE_LOG_INFO, "store", "%s store ready at resourceVersion %lld",
             cube_store_driver(ctx->store), (long long)rv);
    if (open_secret_key(ctx) < 0)
        return -1;
    return cube_auth_start(ctx);
}

static void route_entry_free(struct cube_route_entry *e)
{
    if (!e)
        return;
    free(e->method);
    free(e->path);
    free(e->summary);
    free(e->owner_kind);
    free(e);
}

int cube_ctx_add_route(struct cube_ctx *ctx, struct cube_plugin *plugin,
                       const struct cube_route_desc *in, char *err, size_t errlen)
{
    struct cube_route_desc d = {0};
    if (!in || in->size < offsetof(struct cube_route_desc, summary) + sizeof in->summary) {
        snprintf(err, errlen, "descriptor size %zu is smaller than ABI 1.0's %zu",
                 in ? in->size : 0, sizeof d);
        return CUBE_EINVAL;
    }
    memcpy(&d, in, in->size < sizeof d ? in->size : sizeof d);
    if (!d.handler) {
        snprintf(err, errlen, "handler: must not be NULL");
        return CUBE_EINVAL;
    }
    int perm = cube_perm_parse(d.permission, plugin == &ctx->core);
    if (perm < 0) {
        snprintf(err, errlen, "permission: '%s' is not one of the CUBE_PERM_* values",
                 d.permission ? d.permission : "(null)");
        return CUBE_EINVAL;
    }
    if (cube_perm_needs_project(perm) && !strstr(d.path ? d.path : "", "/{project}")) {
        snprintf(err, errlen, "permission: '%s' needs a {project} segment in the path",
                 d.permission);
        return CUBE_EINVAL;
    }
    if (d.max_body_bytes && !d.stream_body) {
        snprintf(err, errlen, "max_body_bytes: only for stream_body routes (others take "
                 "limits.max_body_bytes)");
        return CUBE_EINVAL;
    }
    if (d.owner_kind && (perm != CUBE_P_PROJECT_OPERATE ||
                         !strstr(d.path ? d.path : "", "/{name}"))) {
        snprintf(err, errlen, "owner_kind: only for project:operate routes with a {name} "
                 "segment");
        return CUBE_EINVAL;
    }
    struct cube_route_entry *e = calloc(1, sizeof *e);
    if (!e || !(e->method = strdup(d.method ? d.method : "")) ||
        !(e->path = strdup(d.path ? d.path : "")) ||
        (d.summary && !(e->summary = strdup(d.summary))) ||
        (d.owner_kind && !(e->owner_kind = strdup(d.owner_kind)))) {
        route_entry_free(e);
        snprintf(err, errlen, "out of memory");
        return CUBE_ENOMEM;
    }
    e->plugin = plugin;
    e->handler = d.handler;
    e->perm = perm;
    e->stream_body = d.stream_body != 0;
    e->max_body_bytes = d.max_body_bytes;
    int is_core = plugin == &ctx->core;
    if (!is_core && !plugin->scratch_router &&
        !(plugin->scratch_router = cube_router_new())) {
        route_entry_free(e);
        return CUBE_ENOMEM;
    }
    char rerr[200];
    int rc = cube_router_add(is_core ? ctx->router : plugin->scratch_router,
                             e->method, e->path, e, rerr, sizeof rerr);
    if (rc < 0) {
        snprintf(err, errlen, "%s %s: %s", e->method, e->path, rerr);
        route_entry_free(e);
        return rc == -2 ? CUBE_EEXIST : CUBE_EINVAL;
    }
    struct cube_route_entry **list = is_core ? &ctx->routes : &plugin->pending;
    e->next = *list;
    *list = e;
    return CUBE_OK;
}

int cube_ctx_add_core_routes(struct cube_ctx *ctx, const struct cube_route_desc *routes,
                             size_t n, const char *what)
{
    char err[256];
    for (size_t i = 0; i < n; i++)
        if (cube_ctx_add_route(ctx, &ctx->core, &routes[i], err, sizeof err) != CUBE_OK) {
            cube_log(CUBE_LOG_ERROR, "core", "%s routes: %s", what, err);
            return -1;
        }
    return 0;
}

int cube_ctx_commit_routes(struct cube_ctx *ctx, struct cube_plugin *plugin,
                           char *err, size_t errlen)
{
    for (struct cube_route_entry *e = plugin->pending; e; e = e->next)
        if (cube_router_conflicts(ctx->router, e->method, e->path)) {
            snprintf(err, errlen, "route %s %s is already registered by another "
                     "plugin or the core", e->method, e->path);
            return CUBE_EEXIST;
        }
    while (plugin->pending) {
        struct cube_route_entry *e = plugin->pending;
        char rerr[200];
        if (cube_router_add(ctx->router, e->method, e->path, e, rerr, sizeof rerr) < 0) {
            snprintf(err, errlen, "route %s %s: %s", e->method, e->path, rerr);
            return CUBE_ENOMEM; /* only OOM can fail here: templates were checked */
        }
        plugin->pending = e->next;
        e->next = ctx->routes;
        ctx->routes = e;
    }
    cube_router_free(plugin->scratch_router);
    plugin->scratch_router = NULL;
    return CUBE_OK;
}

void cube_ctx_drop_routes(struct cube_plugin *plugin)
{
    while (plugin->pending) {
        struct cube_route_entry *e = plugin->pending;
        plugin->pending = e->next;
        route_entry_free(e);
    }
    cube_router_free(plugin->scratch_router);
    plugin->scratch_router = NULL;
}

void cube_ctx_free(struct cube_ctx *ctx)
{
    cube_net_free(ctx->net);   /* before the workers its callbacks run on */
    ctx->net = NULL;
    if (ctx->tasks)
        cube_tasks_free(ctx->tasks);
    ctx->tasks = NULL;
    cube_proxy_free(ctx);
    cube_sched_free(ctx);
    cube_hub_free(ctx->hub);
    cube_auth_free(ctx);
    cube_logstore_free(ctx->logs);
    cube_files_free(ctx->files);
    cube_store_close(ctx->store);
    cube_secretbox_free(ctx->secrets);
    ctx->secrets = NULL;
    cube_plugin_apis_free(ctx);
    cube_objcache_free(ctx->cache);
    ctx->cache = NULL;
    cube_kinds_free(&ctx->kinds);
    cube_ui_free(&ctx->ui);
    ctx->hub = NULL;
    ctx->logs = NULL;
    ctx->files = NULL;
    ctx->store = NULL;
    while (ctx->routes) {
        struct cube_route_entry *e = ctx->routes;
        ctx->routes = e->next;
        route_entry_free(e);
    }
    cube_router_free(ctx->router);
    cube_metrics_free(ctx->metrics);
    ctx->router = NULL;
    ctx->metrics = NULL;
}
