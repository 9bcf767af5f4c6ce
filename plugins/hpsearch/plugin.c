/* plugin.c — the hpsearch plugin: descriptor, configuration, init (the
 * Experiment kind, its actions, metrics, the console page). */
#include <stdlib.h>

#include "hpsearch.h"
#include "config_schema.h"   /* HS_CONFIG_SCHEMA: config.schema.json, embedded */

static void metrics(struct hs *p)
{
    static const double buckets[] = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5};
    const struct cube_metric_desc passes = {
        .size = sizeof passes, .type = CUBE_METRIC_HISTOGRAM,
        .name = "cube_hpsearch_reconcile_seconds",
        .help = "Time of one pass of the Experiment controller",
        .buckets = buckets, .bucket_count = 9};
    const struct cube_metric_desc trials = {
        .size = sizeof trials, .type = CUBE_METRIC_COUNTER,
        .name = "cube_hpsearch_trials_total", .help = "Trial Jobs made by experiments"};
    p->passes = p->host->metric_register(p->self, &passes);
    p->trials_made = p->host->metric_register(p->self, &trials);
}

/* The console pages (ui/page.js beside the .so): the Experiment kind's
 * pages under /p/:project/experiments. Without them (a build without the
 * console) the API works on, so a refusal only warns. */
static void register_page(struct hs *p)
{
    const struct cube_ui_desc page = {
        .size = sizeof page, .id = "experiments", .group = "Training",
        .label = "Experiments", .label_zh = "超参搜索", .permission = CUBE_PERM_USER,
        .module = "page.js", .order = 30, .route = "/p/:project/experiments",
        .kind = "Experiment",
    };
    if (p->host->register_ui(p->self, &page) != CUBE_OK)
        p->host->log(p->self, CUBE_LOG_WARN, "console page not registered (see above)");
}

static int hs_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    struct hs *p = calloc(1, sizeof *p);
    if (!p) {
        host->set_error(self, "out of memory");
        return CUBE_ENOMEM;
    }
    *state = p;
    p->host = host;
    p->self = self;
    pthread_mutex_init(&p->mu, NULL);
    p->max_trials = host->config_int(self, "max_trials", 10000);
    p->max_concurrency = host->config_int(self, "max_concurrency", 64);
    p->status_write_ms = host->config_int(self, "status_write_ms", 200);
    metrics(p);
    if (hs_kinds_register(p) < 0 || hs_actions_register(p) < 0) {
        pthread_mutex_destroy(&p->mu);
        free(p);
        *state = NULL;
        return CUBE_EINVAL;
    }
    register_page(p);
    return CUBE_OK;
}

static void hs_fini(void *state)
{
    struct hs *p = state;
    if (!p)
        return;
    hs_memo_fini(p);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

CUBE_PLUGIN_DEFINE(hpsearch,
    .name = HS_NAME,
    .version = "1.0.0",
    .vendor = "Cube",
    .license = "Apache-2.0",
    .description = "Hyper-parameter search: NNI-compatible experiments, tuners, early stopping",
    .config_schema = HS_CONFIG_SCHEMA,
    .init = hs_init,
    .fini = hs_fini)
