/* plugin.c — the executor-slurm plugin: its descriptor and config schema,
 * init (config, executor "slurm", routes), start (the submitters, the
 * poll and query threads), stop
 * and fini, and the admin routes GET /api/v1/slurm (pools Ready or
 * NotReady, nodes, jobs) and POST /api/v1/slurm/refresh (read the nodes
 * now). See slurm.h for the other files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm.h"
#include "config_schema.h"   /* SL_CONFIG_SCHEMA: config.schema.json, embedded */

static void add_pools(struct sl *s, cJSON *root)
{
    cJSON *pools = cJSON_AddArrayToObject(root, "pools");
    for (int i = 0; i < s->conf.n_parts; i++) {
        cJSON *p = cJSON_CreateObject();
        size_t nodes = 0, ok = 0;
        for (size_t j = 0; j < s->n_nodes; j++)
            if (strcmp(s->nodes[j].pool, s->conf.parts[i].pool) == 0)
                nodes++, ok += s->nodes[j].schedulable;
        const char *why = !s->slurm_up ? s->slurm_msg
                          : s->part_msg[i][0] ? s->part_msg[i]
                          : ok == 0 ? "no schedulable node" : "";
        cJSON_AddStringToObject(p, "pool", s->conf.parts[i].pool);
        cJSON_AddStringToObject(p, "partition", s->conf.parts[i].name);
        cJSON_AddStringToObject(p, "phase", *why ? "NotReady" : "Ready");
        cJSON_AddStringToObject(p, "message", why);
        cJSON_AddNumberToObject(p, "nodes", (double)nodes);
        cJSON_AddNumberToObject(p, "schedulable", (double)ok);
        cJSON_AddItemToArray(pools, p);
    }
}

static int status_route(void *state, cube_req *req)
{
    struct sl *s = state;
    cJSON *root = cJSON_CreateObject(), *nodes, *jobs;
    pthread_mutex_lock(&s->mu);
    cJSON_AddStringToObject(root, "mode", s->conf.mode == SL_MODE_CUBE ? "cube" : "slurm");
    cJSON_AddBoolToObject(root, "reachable", s->slurm_up);
    cJSON_AddStringToObject(root, "message", s->slurm_msg);
    add_pools(s, root);
    nodes = cJSON_AddArrayToObject(root, "nodes");
    for (size_t i = 0; i < s->n_nodes; i++) {
        cJSON *n = cJSON_CreateObject();
        cJSON_AddStringToObject(n, "name", s->nodes[i].name);
        cJSON_AddStringToObject(n, "slurmName", s->nodes[i].slurm);
        cJSON_AddStringToObject(n, "pool", s->nodes[i].pool);
        cJSON_AddStringToObject(n, "address", s->nodes[i].addr);
        cJSON_AddBoolToObject(n, "schedulable", s->nodes[i].schedulable && s->slurm_up);
        cJSON_AddStringToObject(n, "message", s->slurm_up ? s->nodes[i].message : s->slurm_msg);
        cJSON_AddItemToArray(nodes, n);
    }
    jobs = cJSON_AddArrayToObject(root, "jobs");
    for (struct sl_group *g = s->groups; g; g = g->next) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "project", g->project);
        cJSON_AddStringToObject(j, "job", g->job);
        cJSON_AddStringToObject(j, "account", g->account);
        cJSON_AddNumberToObject(j, "slurmJobId", (double)g->slurm_id);
        cJSON_AddStringToObject(j, "state", g->slurm_state[0] ? g->slurm_state
                                            : g->state == SL_G_GATHER ? "Gathering"
                                            : g->state == SL_G_QUEUED ? "Submitting" : "");
        cJSON_AddNumberToObject(j, "replicas", g->n);
        cJSON_AddItemToArray(jobs, j);
    }
    cJSON_AddNumberToObject(root, "submitted", (double)s->submits);
    cJSON_AddNumberToObject(root, "submitFailures", (double)s->submit_fail);
    cJSON_AddNumberToObject(root, "submitting", (double)s->sub_busy);
    pthread_mutex_unlock(&s->mu);
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    int rc = text ? s->host->resp_json(req, 200, text)
                  : s->host->resp_error(req, 500, "Internal", "out of memory");
    free(text);
    return rc;
}

static int refresh_route(void *state, cube_req *req)
{
    struct sl *s = state;
    sl_nodes_refresh(s);
    return status_route(s, req);
}

static void sl_free(struct sl *s)
{
    for (struct sl_group *g = s->groups, *n; g; g = n) {
        n = g->next;
        sl_group_free(g);
    }
    for (size_t i = 0; i < s->n_nodes; i++)
        free(s->nodes[i].doc);
    free(s->nodes);
    sl_conf_free(&s->conf);
    pthread_cond_destroy(&s->cv);
    pthread_cond_destroy(&s->sub_cv);
    pthread_cond_destroy(&s->q_cv);
    free(s->sq_out);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

static int setup(struct sl *s)
{
    const struct cube_host *h = s->host;
    char err[256], *json = h->config_json(s->self);
    int rc = sl_conf_load(&s->conf, json, h->data_dir(s->self), err, sizeof err);
    h->free(json);
    if (rc != CUBE_OK) {
        h->set_error(s->self, "%s", err);
        return rc;
    }
    const struct cube_executor_desc exec = {
        .size = sizeof exec, .name = "slurm", .start = sl_start, .stop = sl_stop,
        .adopt = sl_adopt, .flags = CUBE_EXECUTOR_ENGINE_QUEUE,
    };
    if ((rc = h->register_executor(s->self, &exec)) != CUBE_OK) {
        h->set_error(s->self, "register_executor failed (%d): see the log", rc);
        return rc;
    }
    const struct cube_route_desc routes[] = {
        {.size = sizeof routes[0], .method = "GET", .path = "/api/v1/slurm",
         .permission = CUBE_PERM_ADMIN, .handler = status_route,
         .summary = "executor-slurm: pools (Ready/NotReady), nodes and Slurm jobs"},
        {.size = sizeof routes[0], .method = "POST", .path = "/api/v1/slurm/refresh",
         .permission = CUBE_PERM_ADMIN, .handler = refresh_route,
         .summary = "executor-slurm: read Slurm's nodes now"},
    };
    for (size_t i = 0; i < sizeof routes / sizeof *routes; i++)
        if ((rc = h->register_route(s->self, &routes[i])) != CUBE_OK) {
            h->set_error(s->self, "cannot register %s", routes[i].path);
            return rc;
        }
    return CUBE_OK;
}

static int sl_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    struct sl *s = calloc(1, sizeof *s);
    pthread_condattr_t ca;
    if (!s) {
        host->set_error(self, "out of memory");
        return CUBE_ENOMEM;
    }
    s->host = host;
    s->self = self;
    pthread_mutex_init(&s->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &ca);
    pthread_cond_init(&s->q_cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_cond_init(&s->sub_cv, NULL);
    s->slurm_up = 1;   /* until a command says otherwise */
    int rc = setup(s);
    if (rc != CUBE_OK) {
        sl_free(s);
        return rc;
    }
    *state = s;
    host->log(self, CUBE_LOG_INFO, "%d partition%s, mode %s, spool %s", s->conf.n_parts,
              s->conf.n_parts == 1 ? "" : "s", s->conf.mode == SL_MODE_CUBE ? "cube" : "slurm",
              s->conf.spool_dir);
    return CUBE_OK;
}

static void sl_stop_plugin(void *state);

/* Reads the nodes once (so Jobs can be placed from the first second), then
 * starts the submitters and the poll thread. */
static int sl_start_plugin(void *state)
{
    struct sl *s = state;
    sl_nodes_refresh(s);
    if (sl_submitters_start(s) != CUBE_OK) {
        sl_stop_plugin(s);
        s->host->set_error(s->self, "cannot start the submitter threads");
        return CUBE_ENOMEM;
    }
    if (pthread_create(&s->thread, NULL, sl_poll_main, s) != 0) {
        sl_stop_plugin(s);
        s->host->set_error(s->self, "cannot start the poll thread");
        return CUBE_ENOMEM;
    }
    s->thread_started = 1;
    if (pthread_create(&s->qthread, NULL, sl_query_main, s) != 0) {
        sl_stop_plugin(s);
        s->host->set_error(s->self, "cannot start the query thread");
        return CUBE_ENOMEM;
    }
    s->qthread_started = 1;
    return CUBE_OK;
}

/* Stops the query and poll threads and the submitters (each ends the
 * Slurm command it is in); a second call does nothing. */
static void sl_stop_plugin(void *state)
{
    struct sl *s = state;
    pthread_mutex_lock(&s->mu);
    s->quit = 1;
    pthread_cond_signal(&s->cv);
    pthread_cond_signal(&s->q_cv);
    pthread_mutex_unlock(&s->mu);
    if (s->qthread_started)
        pthread_join(s->qthread, NULL);
    if (s->thread_started)
        pthread_join(s->thread, NULL);
    s->thread_started = s->qthread_started = 0;
    sl_submitters_stop(s);
}

static void sl_fini(void *state)
{
    sl_stop_plugin(state);
    sl_free(state);
}

CUBE_PLUGIN_DEFINE(executor_slurm,
    .name = "executor-slurm",
    .version = "1.0.0",
    .vendor = "Cube",
    .license = "Apache-2.0",
    .description = "Jobs on a Slurm cluster, one pool per partition (executor \"slurm\")",
    .config_schema = SL_CONFIG_SCHEMA,
    .init = sl_init,
    .start = sl_start_plugin,
    .stop = sl_stop_plugin,
    .fini = sl_fini)
