/* main.c — cubed: parse arguments, load config and plugins, serve until
 * SIGTERM/SIGINT, then shut down gracefully. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "sched/jobs.h"
#include "objects/controller.h"
#include "objects/watch.h"
#include "ctx/ctx.h"
#include "cube_build.h"
#include "http/http.h"
#include "plugins/loader.h"
#include "base/log.h"
#include "base/clock.h"
#include "base/fs.h"

/* How long in-flight requests may take to finish after a stop signal. */
#define SHUTDOWN_GRACE_MS 10000

struct options {
    const char *config;
    int check_config, list_plugins, safe_mode;
};

static void usage(FILE *out)
{
    fprintf(out,
        "usage: cubed [options]\n"
        "  -c, --config FILE   cube.yaml to read (default: ./cube.yaml if present)\n"
        "      --check-config  validate cube.yaml, conf.d and plugin configs; exit 0/1\n"
        "      --list-plugins  list plugins found and enabled, then exit\n"
        "      --safe-mode     start without loading any plugin\n"
        "  -V, --version       print the version and ABI, then exit\n"
        "  -h, --help          this text\n"
        "environment: CUBE_LISTEN, CUBE_APPS_LISTEN, CUBE_DATA_DIR, CUBE_DATABASE_URL,\n"
        "  CUBE_PLUGIN_DIR, CUBE_LOG_LEVEL, CUBE_ADMIN_TOKEN\n");
}

static int parse_args(int argc, char **argv, struct options *o)
{
    static const struct option longs[] = {
        {"config", required_argument, NULL, 'c'},
        {"check-config", no_argument, NULL, 'C'},
        {"list-plugins", no_argument, NULL, 'L'},
        {"safe-mode", no_argument, NULL, 'S'},
        {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "c:Vh", longs, NULL)) != -1) {
        switch (c) {
        case 'c': o->config = optarg; break;
        case 'C': o->check_config = 1; break;
        case 'L': o->list_plugins = 1; break;
        case 'S': o->safe_mode = 1; break;
        case 'V':
            printf("cubed %s (plugin ABI %d.%d)\n", CUBE_VERSION, CUBE_ABI_MAJOR,
                   CUBE_ABI_MINOR);
            exit(0);
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "cubed: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    if (!o->config && access("cube.yaml", F_OK) == 0)
        o->config = "cube.yaml";
    return 0;
}

static int print_errs(struct cube_errs *errs)
{
    for (size_t i = 0; i < errs->n; i++)
        fprintf(stderr, "%s\n", errs->msgs[i]);
    if (errs->lost)
        fprintf(stderr, "(%zu more errors; out of memory)\n", errs->lost);
    int had = cube_errs_count(errs) > 0;
    cube_errs_clear(errs);
    return had;
}

static int check_only(const struct cube_config *cfg)
{
    struct cube_errs errs = {0};
    cube_loader_check_all(cfg, &errs);
    if (print_errs(&errs))
        return 1;
    printf("configuration OK: %s, %zu plugin file(s) in conf.d\n",
           cfg->file ? cfg->file : "(defaults)", cfg->n_plugins);
    return 0;
}

/* Runs the server until a stop signal. Returns the exit status. */
static int serve(struct cube_config *cfg, int safe_mode, uint64_t t0)
{
    struct cube_ctx ctx;
    int status = 1, sig = 0;
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    /* Block before any thread starts so only sigwait below sees them. */
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    char *abs_data = NULL;
    if (cube_mkdir_p(cfg->data_dir, 0700) < 0 || !(abs_data = realpath(cfg->data_dir, NULL))) {
        cube_log(CUBE_LOG_ERROR, "core", "data_dir %s: %s", cfg->data_dir, strerror(errno));
        return 1;
    }
    /* Plugins and jobs get absolute paths, whatever cubed's cwd becomes. */
    free(cfg->data_dir);
    cfg->data_dir = abs_data;
    if (cube_ctx_init(&ctx, cfg) < 0 || cube_ctx_open_store(&ctx) < 0)
        goto out;
    ctx.safe_mode = safe_mode;
    if (cube_loader_load_all(&ctx) < 0 || cube_ctrl_init(&ctx) < 0 ||
        cube_loader_start_all(&ctx) < 0 || cube_http_start(&ctx) < 0 ||
        cube_sched_start(&ctx) < 0 || cube_ctrl_start(&ctx) < 0)
        goto out;
    atomic_store(&ctx.ready, 1);
    cube_log(CUBE_LOG_INFO, "core", "cubed %s ready in %.1f ms (%zu plugin(s)%s)",
             CUBE_VERSION, (double)(cube_now_ns() - t0) / 1e6, ctx.n_plugins,
             safe_mode ? ", safe mode" : "");
    sigwait(&stop, &sig);
    cube_log(CUBE_LOG_INFO, "core", "signal %d: shutting down", sig);
    status = 0;
out:
    atomic_store(&ctx.stopping, 1);
    if (ctx.hub)
        cube_hub_shutdown(ctx.hub);
    cube_http_stop(&ctx, SHUTDOWN_GRACE_MS);
    cube_sched_stop(&ctx);
    cube_ctrl_shutdown(&ctx);
    cube_loader_unload_all(&ctx);
    cube_ctrl_free(&ctx);
    cube_ctx_free(&ctx);
    if (status == 0)
        cube_log(CUBE_LOG_INFO, "core", "stopped");
    return status;
}

int main(int argc, char **argv)
{
    uint64_t t0 = cube_now_ns();
    struct options o = {0};
    struct cube_config cfg;
    struct cube_errs errs = {0};
    if (parse_args(argc, argv, &o) < 0)
        return 2;
    int bad = cube_config_load(o.config, &cfg, &errs) != 0;
    if (print_errs(&errs) || bad) {
        cube_config_free(&cfg);
        return o.check_config ? 1 : 2;
    }
    cube_log_setup(cfg.log_level, cfg.log_json ? CUBE_LOGFMT_JSON : CUBE_LOGFMT_TEXT);
    int rc;
    if (o.check_config)
        rc = check_only(&cfg);
    else if (o.list_plugins)
        rc = cube_loader_list(&cfg, stdout);
    else
        rc = serve(&cfg, o.safe_mode, t0);
    cube_config_free(&cfg);
    return rc;
}
