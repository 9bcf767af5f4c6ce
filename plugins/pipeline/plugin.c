/* plugin.c — the pipeline plugin: descriptor, configuration, init (kinds,
 * actions, routes) and start (the built-in template pack). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pipeline.h"
#include "config_schema.h"   /* PL_CONFIG_SCHEMA: config.schema.json, embedded at build time */

#ifndef PL_TEMPLATES_INSTALLED
#define PL_TEMPLATES_INSTALLED "/usr/local/share/cube/pipeline/templates"
#endif

/* templates/ beside this .so when it exists (a build tree), else where
 * the pack is installed. Absolute either way: {{ template_dir }} is used by
 * tasks that run in directories of their own. */
static void default_templates(char *out, size_t len)
{
    Dl_info info;
    struct stat st;
    snprintf(out, len, "%s", PL_TEMPLATES_INSTALLED);
    if (!dladdr((void *)default_templates, &info) || !info.dli_fname)
        return;
    const char *slash = strrchr(info.dli_fname, '/');
    char near[PATH_MAX], abs[PATH_MAX];
    snprintf(near, sizeof near, "%.*s/templates", slash ? (int)(slash - info.dli_fname) : 1,
             slash ? info.dli_fname : ".");
    if (stat(near, &st) == 0 && S_ISDIR(st.st_mode) && realpath(near, abs))
        snprintf(out, len, "%s", abs);
}

/* <data>/projects from <data>/plugins/pipeline. */
static void default_files_root(const char *data_dir, char *out, size_t len)
{
    const char *tail = "/plugins/" PL_NAME;
    size_t n = strlen(data_dir), t = strlen(tail);
    if (n > t && !strcmp(data_dir + n - t, tail))
        snprintf(out, len, "%.*s/projects", (int)(n - t), data_dir);
    else
        snprintf(out, len, "%s/projects", data_dir);
}

static int load_conf(struct pl *p)
{
    const struct cube_host *h = p->host;
    const char *tdir = h->config_string(p->self, "templates_dir", "");
    const char *froot = h->config_string(p->self, "files_root", "");
    if (*tdir && tdir[0] != '/' && strcmp(tdir, "none") != 0) {
        h->set_error(p->self, "templates_dir: \"%s\" must be an absolute path or \"none\"",
                     tdir);
        return -1;
    }
    if (!strcmp(tdir, "none"))
        p->templates_dir[0] = '\0';
    else if (*tdir)
        snprintf(p->templates_dir, sizeof p->templates_dir, "%s", tdir);
    else
        default_templates(p->templates_dir, sizeof p->templates_dir);
    if (*froot && froot[0] != '/') {
        h->set_error(p->self, "files_root: \"%s\" must be an absolute path", froot);
        return -1;
    }
    if (*froot)
        snprintf(p->files_root, sizeof p->files_root, "%s", froot);
    else
        default_files_root(h->data_dir(p->self), p->files_root, sizeof p->files_root);
    p->max_backfill = h->config_int(p->self, "max_backfill", 1000);
    p->max_catchup = h->config_int(p->self, "max_catchup", 1000);
    p->poll_seconds = h->config_int(p->self, "poll_seconds", 60);
    p->pass_gap_ms = h->config_int(p->self, "pass_gap_ms", 20);
    p->status_write_ms = h->config_int(p->self, "status_write_ms", 250);
    return 0;
}

static void metrics(struct pl *p)
{
    static const char *const kind[] = {"kind"};
    static const double buckets[] = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5};
    const struct cube_metric_desc passes = {
        .size = sizeof passes, .type = CUBE_METRIC_HISTOGRAM,
        .name = "cube_pipeline_reconcile_seconds",
        .help = "Time of one pass of the Pipeline and PipelineRun controllers",
        .label_names = kind, .label_count = 1, .buckets = buckets, .bucket_count = 9};
    const struct cube_metric_desc jobs = {
        .size = sizeof jobs, .type = CUBE_METRIC_COUNTER,
        .name = "cube_pipeline_task_jobs_total", .help = "Jobs created for pipeline tasks"};
    p->passes = p->host->metric_register(p->self, &passes);
    p->jobs = p->host->metric_register(p->self, &jobs);
}

static int pl_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    struct pl *p = calloc(1, sizeof *p);
    if (!p) {
        host->set_error(self, "out of memory");
        return CUBE_ENOMEM;
    }
    *state = p;
    p->host = host;
    p->self = self;
    pthread_mutex_init(&p->pace_mu, NULL);
    pthread_mutex_init(&p->memo_mu, NULL);
    pthread_mutex_init(&p->dirs_mu, NULL);
    pthread_mutex_init(&p->vouch_mu, NULL);
    metrics(p);
    if (load_conf(p) < 0 || pl_kinds_register(p) < 0) {
        free(p);
        *state = NULL;
        return CUBE_EINVAL;
    }
    if (pl_pipeline_actions(p) < 0 || pl_run_actions(p) < 0 || pl_porting_register(p) < 0) {
        host->set_error(self, "cannot register the pipeline actions and routes (see the log)");
        free(p);
        *state = NULL;
        return CUBE_EINVAL;
    }
    return CUBE_OK;
}

static void pack_task(void *state, void *arg)
{
    (void)arg;
    pl_pack_load(state);
}

static int pl_start(void *state)
{
    struct pl *p = state;
    /* after start-up: the store and the other kinds are ready by then */
    if (p->host->submit(p->self, pack_task, NULL) != CUBE_OK)
        pl_pack_load(p);
    return CUBE_OK;
}

static void pl_fini(void *state)
{
    struct pl *p = state;
    if (p) {
        pl_task_dirs_stop(p);
        pthread_mutex_destroy(&p->dirs_mu);
        pthread_mutex_destroy(&p->vouch_mu);
        pthread_mutex_destroy(&p->pace_mu);
        pl_memo_fini(p);
    }
    free(state);
}

CUBE_PLUGIN_DEFINE(pipeline,
    .name = PL_NAME,
    .version = "1.0.0",
    .vendor = "Cube",
    .license = "Apache-2.0",
    .description = "Pipelines: job templates, DAG runs, cron schedules, backfill",
    .config_schema = PL_CONFIG_SCHEMA,
    .init = pl_init,
    .start = pl_start,
    .fini = pl_fini)
