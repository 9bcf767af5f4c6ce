/* core_routes.c — the core's own endpoints: /healthz, /readyz, /metrics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx/ctx.h"
#include "http/http_req.h"
#include "base/log.h"
#include "metrics/metrics.h"
#include "store/store.h"

static int healthz(void *state, cube_req *req)
{
    (void)state;
    return cube_http_answer_json(req, 200, "{\"status\":\"ok\"}");
}

/* Ready when every plugin has started and the server is not stopping.
 * (The store's reachability joins this check when the store exists.) */
static int readyz(void *state, cube_req *req)
{
    struct cube_ctx *ctx = state;
    cJSON *root = cJSON_CreateObject();
    cJSON *plugins = cJSON_AddObjectToObject(root, "plugins");
    int store_ok = !ctx->store || cube_store_ping(ctx->store) == CUBE_OK;
    int ready = atomic_load(&ctx->ready) && !atomic_load(&ctx->stopping) && store_ok;
    if (ctx->store)
        cJSON_AddStringToObject(root, "store", store_ok ? "reachable" : "unreachable");
    for (struct cube_plugin *p = ctx->plugins; p; p = p->next)
        cJSON_AddStringToObject(plugins, p->name, p->started ? "started" : "not started");
    cJSON_AddStringToObject(root, "status", ready ? "ready" : "not ready");
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!text)
        return CUBE_ENOMEM;
    int rc = cube_http_answer(req, ready ? 200 : 503, "application/json", text,
                              strlen(text), 1);
    free(text);
    return rc;
}

static int metrics(void *state, cube_req *req)
{
    struct cube_ctx *ctx = state;
    size_t len;
    char *text = cube_metrics_render(ctx->metrics, &len);
    if (!text)
        return CUBE_ENOMEM;
    int rc = cube_http_answer(req, 200, "text/plain; version=0.0.4; charset=utf-8",
                              text, len, 1);
    free(text);
    return rc;
}

int cube_core_routes_register(struct cube_ctx *ctx)
{
    const struct cube_route_desc routes[] = {
        {sizeof routes[0], "GET", "/healthz", CUBE_PERM_PUBLIC, healthz,
         "Liveness: the process answers", 0, 0, NULL},
        {sizeof routes[0], "GET", "/readyz", CUBE_PERM_PUBLIC, readyz,
         "Readiness: plugins started and dependencies reachable", 0, 0, NULL},
        {sizeof routes[0], "GET", "/metrics", CUBE_PERM_PUBLIC, metrics,
         "Prometheus metrics", 0, 0, NULL},
    };
    return cube_ctx_add_core_routes(ctx, routes, sizeof routes / sizeof routes[0], "core");
}
