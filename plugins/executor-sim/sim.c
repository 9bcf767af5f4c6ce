/* sim.c — the executor-sim plugin: its descriptor and config schema, init
 * (config, executor, routes, the tick timer), start (advertises every node,
 * timed) and fini. See sim.h for the other files. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"
#include "config_schema.h"   /* SIM_CONFIG_SCHEMA: config.schema.json, embedded at build time */

static double mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void sim_free(struct sim *s)
{
    sim_run_free(s);
    sim_map_free(&s->nodes);
    sim_conf_free(&s->conf);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* Reads the config and registers the executor and routes. */
static int setup(struct sim *s)
{
    const struct cube_host *h = s->host;
    char err[256], *json = h->config_json(s->self);
    int rc = sim_conf_parse(&s->conf, json, err, sizeof err);
    h->free(json);
    if (rc != CUBE_OK) {
        h->set_error(s->self, "%s", err);
        return rc;
    }
    const struct cube_executor_desc exec = {
        .size = sizeof exec, .name = "sim", .start = sim_start, .stop = sim_stop,
        .adopt = sim_adopt,
        .flags = (s->conf.engine_queue ? CUBE_EXECUTOR_ENGINE_QUEUE : 0) |
                 (s->conf.own_ports ? CUBE_EXECUTOR_OWN_PORTS : 0),
    };
    if ((rc = h->register_executor(s->self, &exec)) != CUBE_OK) {
        h->set_error(s->self, "register_executor failed (%d): see the log", rc);
        return rc;
    }
    if (s->conf.admin_routes && ((rc = sim_routes_register(s)) != CUBE_OK ||
                                 (s->conf.engine_queue && (rc = sim_queue_route(s)) != CUBE_OK))) {
        h->set_error(s->self, "cannot register the admin routes (see the log)");
        return rc;
    }
    return CUBE_OK;
}

static int sim_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    struct sim *s = calloc(1, sizeof *s);
    if (!s) {
        host->set_error(self, "out of memory");
        return CUBE_ENOMEM;
    }
    s->host = host;
    s->self = self;
    s->now_ms = sim_wall_ms;
    snprintf(s->boot, sizeof s->boot, "%" PRIx64, sim_wall_ms());
    pthread_mutex_init(&s->mu, NULL);
    int rc = setup(s);
    if (rc == CUBE_OK) {
        *state = s;
        s->tick = host->timer_add(self, (uint64_t)s->conf.tick_ms, (uint64_t)s->conf.tick_ms,
                                  sim_tick, s);
        if (!s->tick) {
            host->set_error(self, "cannot add the tick timer");
            rc = CUBE_ENOMEM;
        }
    }
    if (rc != CUBE_OK) {
        *state = NULL;
        sim_free(s);
        return rc;
    }
    int nodes = 0;
    for (int i = 0; i < s->conf.n_groups; i++)
        nodes += s->conf.groups[i].count;
    host->log(self, CUBE_LOG_INFO, "pool %s: %d nodes in %d groups, run_seconds %g, "
              "time_scale %g", s->conf.pool, nodes, s->conf.n_groups, s->conf.run_seconds,
              s->conf.time_scale);
    return CUBE_OK;
}

/* Advertises every configured node (once all plugins are initialised). */
static int sim_start_plugin(void *state)
{
    struct sim *s = state;
    char err[256];
    double t0 = mono_ms();
    for (int i = 0; i < s->conf.n_groups; i++) {
        int rc = sim_nodes_add_group(s, &s->conf.groups[i], err, sizeof err);
        if (rc != CUBE_OK) {
            s->host->set_error(s->self, "node_groups[%d]: %s", i, err);
            return rc;
        }
    }
    s->advertise_ms = mono_ms() - t0;
    s->host->log(s->self, CUBE_LOG_INFO, "advertised %zu nodes in %.1f ms", s->nodes.n,
                 s->advertise_ms);
    return CUBE_OK;
}

static void sim_fini(void *state)
{
    sim_free(state);
}

CUBE_PLUGIN_DEFINE(executor_sim,
    .name = "executor-sim",
    .version = "1.0.0",
    .vendor = "Cube",
    .license = "Apache-2.0",
    .description = "Simulated nodes and replicas for tests and benchmarks (executor \"sim\")",
    .config_schema = SIM_CONFIG_SCHEMA,
    .init = sim_init,
    .start = sim_start_plugin,
    .fini = sim_fini)
