/* sim_queue.c — executor-sim as an engine with a queue of its own (config
 * engine_queue, as Slurm or Kubernetes place and queue work themselves;
 * ABI 1.5 CUBE_EXECUTOR_ENGINE_QUEUE). A started replica waits in `held`
 * for held_ms, or until POST /api/v1/sim/release, and is reported Pending
 * with cube_host.replica_status; when its wait ends it joins the pending
 * list (its run starts then), and is reported Running. Everything here is
 * under the plugin's mutex except the reports. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define RELEASE_BATCH 256   /* replicas reported Running per lock round */

int sim_hold(struct sim *s, struct sim_rep *r)
{
    int oom;
    if (sim_reserve(&s->held, s->n_held, &s->cap_held) < 0)
        return CUBE_ENOMEM;
    sim_map_put(&s->reps, r->id, r, &oom);
    if (oom)
        return CUBE_ENOMEM;
    r->held_until = s->conf.held_ms ? s->now_ms() + (uint64_t)s->conf.held_ms : 0;
    r->heap_idx = SIM_HELD;
    s->held[s->n_held++] = r;
    return CUBE_OK;
}

void sim_unhold(struct sim *s, struct sim_rep *r)
{
    for (size_t i = 0; i < s->n_held; i++)
        if (s->held[i] == r) {
            s->held[i] = s->held[--s->n_held];
            return;
        }
}

/* Moves up to max replicas whose wait is over into the pending list,
 * their ids and nodes into ids/nodes; returns how many. */
static size_t release_due(struct sim *s, char (*ids)[96], char (*nodes)[64], size_t max)
{
    size_t n = 0;
    uint64_t now = s->now_ms();
    for (size_t i = 0; i < s->n_held && n < max;) {
        struct sim_rep *r = s->held[i];
        int due = s->release_all || (r->held_until && r->held_until <= now);
        if (!due || sim_reserve(&s->pending, s->n_pending, &s->cap_pending) < 0) {
            i++;
            continue;
        }
        s->held[i] = s->held[--s->n_held];
        if (!r->held_until)   /* released on request: its run starts now */
            r->end_ms = now + (uint64_t)(r->plan.run_s * 1000.0 / s->conf.time_scale);
        r->heap_idx = SIZE_MAX;   /* PENDING in sim_run.c */
        s->pending[s->n_pending++] = r;
        snprintf(ids[n], sizeof ids[n], "%s", r->id);
        snprintf(nodes[n], sizeof nodes[n], "%s", r->plan.node);
        n++;
    }
    return n;
}

void sim_queue_tick(struct sim *s)
{
    struct released {
        char ids[RELEASE_BATCH][96], nodes[RELEASE_BATCH][64];
    } *out = NULL;
    size_t n;
    if (!s->conf.engine_queue)
        return;
    pthread_mutex_lock(&s->mu);
    int idle = s->n_held == 0;
    if (idle)
        s->release_all = 0;
    pthread_mutex_unlock(&s->mu);
    if (idle || !(out = malloc(sizeof *out)))
        return;
    do {
        pthread_mutex_lock(&s->mu);
        n = release_due(s, out->ids, out->nodes, RELEASE_BATCH);
        if (n < RELEASE_BATCH)
            s->release_all = 0;
        pthread_mutex_unlock(&s->mu);
        for (size_t i = 0; i < n; i++) {
            char msg[128];
            snprintf(msg, sizeof msg, "running on %s", out->nodes[i]);
            int rc = s->host->replica_status(s->self, out->ids[i], "Running", out->nodes[i],
                                             msg);
            if (rc != CUBE_OK)
                s->host->log(s->self, CUBE_LOG_WARN, "replica_status(%s): %d", out->ids[i],
                             rc);
        }
    } while (n == RELEASE_BATCH);
    free(out);
}

/* POST /api/v1/sim/release: every held replica runs at the next tick. */
static int sim_release(void *state, cube_req *req)
{
    struct sim *s = state;
    char body[64];
    pthread_mutex_lock(&s->mu);
    size_t n = s->n_held;
    s->release_all = 1;
    pthread_mutex_unlock(&s->mu);
    snprintf(body, sizeof body, "{\"released\":%zu}", n);
    return s->host->resp_json(req, 200, body);
}

int sim_queue_route(struct sim *s)
{
    const struct cube_route_desc route = {
        .size = sizeof route, .method = "POST", .path = "/api/v1/sim/release",
        .permission = CUBE_PERM_ADMIN, .handler = sim_release,
        .summary = "executor-sim: every replica waiting in its simulated queue runs now"};
    return s->host->register_route(s->self, &route);
}
