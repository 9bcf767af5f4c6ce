/* plugin.c — the models plugin: descriptor, configuration, init (the
 * Model kind, its upload/download routes, promote and deploy, metrics,
 * the console page). */
#include <stdlib.h>

#include "models.h"
#include "config_schema.h"   /* MDL_CONFIG_SCHEMA: config.schema.json, embedded */

static void metrics(struct mdl *p)
{
    static const double buckets[] = {0.001, 0.01, 0.1, 0.5, 1, 5, 30, 120};
    const struct cube_metric_desc up = {
        .size = sizeof up, .type = CUBE_METRIC_COUNTER,
        .name = "cube_models_upload_bytes_total",
        .help = "Bytes of model files uploaded and published"};
    const struct cube_metric_desc scan = {
        .size = sizeof scan, .type = CUBE_METRIC_HISTOGRAM,
        .name = "cube_models_scan_seconds",
        .help = "Time to hash and check the files of one registered version",
        .buckets = buckets, .bucket_count = 8};
    p->uploads = p->host->metric_register(p->self, &up);
    p->scans = p->host->metric_register(p->self, &scan);
}

/* The console pages (ui/page.js beside the .so) under /p/:project/models;
 * without them the API works on, so a refusal only warns. */
static void register_page(struct mdl *p)
{
    const struct cube_ui_desc page = {
        .size = sizeof page, .id = "models", .group = "Serving",
        .label = "Models", .label_zh = "模型管理", .permission = CUBE_PERM_USER,
        .module = "page.js", .order = 10, .route = "/p/:project/models",
        .kind = MDL_KIND,
    };
    if (p->host->register_ui(p->self, &page) != CUBE_OK)
        p->host->log(p->self, CUBE_LOG_WARN, "console page not registered (see above)");
}

static int mdl_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    struct mdl *p = calloc(1, sizeof *p);
    if (!p) {
        host->set_error(self, "out of memory");
        return CUBE_ENOMEM;
    }
    *state = p;
    p->host = host;
    p->self = self;
    pthread_mutex_init(&p->mu, NULL);
    pthread_mutex_init(&p->stage_mu, NULL);
    p->max_upload_bytes = (uint64_t)host->config_int(self, "max_upload_bytes", 4294967296LL);
    p->max_model_bytes = (uint64_t)host->config_int(self, "max_model_bytes", 17179869184LL);
    metrics(p);
    if (mdl_kinds_register(p) < 0 || mdl_routes_register(p) < 0 ||
        mdl_actions_register(p) < 0) {
        pthread_mutex_destroy(&p->mu);
        pthread_mutex_destroy(&p->stage_mu);
        free(p);
        *state = NULL;
        return CUBE_EINVAL;
    }
    register_page(p);
    return CUBE_OK;
}

static void mdl_fini(void *state)
{
    struct mdl *p = state;
    if (!p)
        return;
    free(p->resv);
    pthread_mutex_destroy(&p->mu);
    pthread_mutex_destroy(&p->stage_mu);
    free(p);
}

CUBE_PLUGIN_DEFINE(models,
    .name = MDL_NAME,
    .version = "1.0.0",
    .vendor = "Cube",
    .license = "Apache-2.0",
    .description = "Model registry: versions of model families, their files, stages, deploy",
    .config_schema = MDL_CONFIG_SCHEMA,
    .init = mdl_init,
    .fini = mdl_fini)
