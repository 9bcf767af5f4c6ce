/* plugin.c — the serving plugin's entry: configuration, the
 * InferenceService kind and its actions, the /serving prefix, metrics,
 * the console page and the autoscaler's timer; API keys of public
 * services are handed to the proxy again at start. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "serving.h"
#include "config_schema.h"                 /* SV_CONFIG_SCHEMA */
#include "inferenceservice_spec_schema.h"  /* SV_SPEC_SCHEMA */
#include "inferenceservice_columns.h"      /* SV_COLUMNS */

/* cube-serving-runtime.py beside this .so (its real path counts, so a
 * plugin dir of symlinks works). */
static int find_runtime(struct sv *sv)
{
    Dl_info info;
    char so[PATH_MAX], near[PATH_MAX + 64];
    if (!dladdr((void *)find_runtime, &info) || !info.dli_fname ||
        !realpath(info.dli_fname, so))
        snprintf(so, sizeof so, "./plugin");
    const char *slash = strrchr(so, '/');
    snprintf(near, sizeof near, "%.*s/" SV_RUNTIME, (int)(slash - so), so);
    if (!realpath(near, sv->runtime) || access(sv->runtime, R_OK) != 0) {
        sv->host->set_error(sv->self, "the model server %s is missing or unreadable: install "
                            "it beside the plugin", near);
        return -1;
    }
    return 0;
}

static void load_conf(struct sv *sv)
{
    const struct cube_host *h = sv->host;
    snprintf(sv->conf.python, sizeof sv->conf.python, "%s",
             h->config_string(sv->self, "python", "/usr/bin/python3"));
    snprintf(sv->conf.pool, sizeof sv->conf.pool, "%s",
             h->config_string(sv->self, "pool", "default"));
    sv->conf.park_timeout_ms = h->config_int(sv->self, "park_timeout_seconds", 120) * 1000;
    sv->conf.autoscale_ms = h->config_int(sv->self, "autoscale_interval_ms", 1000);
    sv->conf.allow_remote = h->config_bool(sv->self, "allow_remote", 0);
}

static int register_kind(struct sv *sv)
{
    const struct cube_kind_desc d = {
        .size = sizeof d, .kind = SV_KIND, .plural = "inferenceservices",
        .singular = "inferenceservice", .scope = CUBE_SCOPE_PROJECT, .group = "Serving",
        .description = "A model online: predictors as Jobs behind cubed's proxy, with traffic "
                       "split, mirroring, autoscale and rollback",
        .spec_schema = SV_SPEC_SCHEMA, .printer_columns = SV_COLUMNS,
        .reconcile = sv_reconcile, .finalize = NULL, .resync_seconds = 30,
        .check = sv_check};
    return sv->host->register_kind(sv->self, &d) == CUBE_OK ? 0 : -1;
}

static void register_page(struct sv *sv)
{
    const struct cube_ui_desc page = {
        .size = sizeof page, .id = "inferenceservices", .group = "Serving",
        .label = "Inference services", .label_zh = "推理服务", .permission = CUBE_PERM_USER,
        .module = "page.js", .order = 20, .route = "/p/:project/inferenceservices",
        .kind = SV_KIND,
    };
    if (sv->host->register_ui(sv->self, &page) != CUBE_OK)
        sv->host->log(sv->self, CUBE_LOG_WARN, "console page not registered (see above)");
}

/* The API keys kept from before a restart, handed to the proxy (those of
 * services no longer public are dropped by their first reconcile). */
static void restore_keys(struct sv *sv)
{
    int rc;
    char *text = sv->host->kv_list(sv->self, "key/", &rc);
    cJSON *keys = text ? cJSON_Parse(text) : NULL, *k;
    sv->host->free(text);
    cJSON_ArrayForEach(k, keys) {
        const char *name = cJSON_GetStringValue(k);
        size_t len;
        char *hash = name ? sv->host->kv_get(sv->self, name, &len, &rc) : NULL;
        if (hash && len == 64)
            sv->host->proxy_credential_set(sv->self, SV_PREFIX, name + 4, hash);
        sv->host->free(hash);
    }
    cJSON_Delete(keys);
}

static void sv_free(struct sv *sv)
{
    for (size_t i = 0; i < sv->n_ready_jobs; i++)
        free(sv->ready_jobs[i]);
    free(sv->ready_jobs);
    pthread_mutex_destroy(&sv->mu);
    sv_table_fini(&sv->table);
    free(sv);
}

static int sv_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    struct sv *sv = calloc(1, sizeof *sv);
    if (!sv) {
        host->set_error(self, "out of memory");
        return CUBE_ENOMEM;
    }
    sv->host = host;
    sv->self = self;
    pthread_mutex_init(&sv->mu, NULL);
    if (sv_table_init(&sv->table) < 0) {
        pthread_mutex_destroy(&sv->mu);
        free(sv);
        host->set_error(self, "out of memory");
        return CUBE_ENOMEM;
    }
    *state = sv;
    load_conf(sv);
    if (find_runtime(sv) < 0)
        goto fail;
    if (register_kind(sv) < 0 || sv_register_actions(sv) < 0 || sv_register_proxy(sv) < 0 ||
        sv_metrics_register(sv) < 0) {
        host->set_error(self, "cannot register the InferenceService kind, its actions, the "
                        "proxy or the metrics (see above)");
        goto fail;
    }
    register_page(sv);
    if (sv->proxied)
        restore_keys(sv);
    sv->scale_timer = host->timer_add(self, (uint64_t)sv->conf.autoscale_ms,
                                      (uint64_t)sv->conf.autoscale_ms, sv_scale_tick, NULL);
    host->log(self, CUBE_LOG_INFO, "model server %s, run with %s", sv->runtime,
              sv->conf.python);
    return CUBE_OK;
fail:
    sv_free(sv);
    *state = NULL;
    return CUBE_EINVAL;
}

static void sv_fini(void *state)
{
    if (state)
        sv_free(state);
}

CUBE_PLUGIN_DEFINE(serving,
    .name = "serving",
    .version = "1.0.0",
    .vendor = "Cube",
    .license = "Apache-2.0",
    .description = "Inference services: models online behind cubed's proxy, with canary "
                   "traffic, mirroring, autoscale to and from zero, rolling upgrade and "
                   "rollback",
    .config_schema = SV_CONFIG_SCHEMA,
    .init = sv_init,
    .fini = sv_fini)
