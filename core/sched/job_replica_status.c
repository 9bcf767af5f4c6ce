/* job_replica_status.c — executors that place and queue work themselves
 * (ABI 1.5, CUBE_EXECUTOR_ENGINE_QUEUE): a replica they started is
 * Pending until they report it Running with the replica_status slot, and
 * its Job is Admitted (reason EngineQueued) until every replica runs.
 * Reports about a replica, these and its endpoints (replica_endpoints,
 * job_endpoints.c), take one path here: one that arrives before the
 * replica's start returned (the status does not name its engine id yet)
 * is kept, the latest of each part, and applied once the start is
 * recorded (job_engine_track). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx/ctx.h"
#include "job_status.h"
#include "jobs.h"
#include "base/strmap.h"

#define EARLY_STATUS_MAX 4096

/* A report and the engine id it is about (the edit's argument). */
struct report_edit {
    const char *engine;
    const struct job_report *rep;
};

unsigned sched_node_flags(struct cube_sched *s, const char *node)
{
    pthread_mutex_lock(&s->mu);
    struct sched_executor *ex = sched_executor_of_node(s, node);
    unsigned flags = ex ? ex->desc.flags : 0;
    pthread_mutex_unlock(&s->mu);
    return flags;
}

int sched_node_engine_queues(struct cube_sched *s, const char *node)
{
    return (sched_node_flags(s, node) & CUBE_EXECUTOR_ENGINE_QUEUE) != 0;
}

void job_report_free(void *rep)
{
    struct job_report *r = rep;
    if (r)
        cJSON_Delete(r->endpoints);
    free(r);
}

static const char *rstr(const cJSON *r, const char *key)
{
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, key));
    return v ? v : "";
}

void job_phase_from_replicas(cJSON *status)
{
    const cJSON *r, *waiting = NULL;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(status, "replicas"))
        if (!waiting && (!strcmp(rstr(r, "phase"), "Pending") ||
                         !strcmp(rstr(r, "phase"), "Admitted")))
            waiting = r;
    if (waiting) {
        char msg[320];
        snprintf(msg, sizeof msg, "replica %d waits in the engine's queue%s%s",
                 (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(waiting, "index")),
                 *rstr(waiting, "message") ? ": " : "", rstr(waiting, "message"));
        job_set_str(status, "phase", "Admitted");
        job_set_str(status, "reason", "EngineQueued");
        job_set_str(status, "message", msg);
        return;
    }
    job_set_str(status, "phase", "Running");
    job_set_str(status, "reason", "Running");
    job_set_str(status, "message", "every replica started");
    if (!cJSON_HasObjectItem(status, "started"))
        job_set_now(status, "started");
}

/* The phase part of a report onto replica r: 1 when it changed r. */
static int apply_phase(cJSON *r, const struct job_report *rep)
{
    if (!strcmp(rstr(r, "phase"), rep->phase) && !strcmp(rstr(r, "message"), rep->message) &&
        (!rep->node[0] || !strcmp(rstr(r, "node"), rep->node)))
        return 0;                      /* nothing new */
    job_set_str(r, "phase", rep->phase);
    if (rep->node[0])
        job_set_str(r, "node", rep->node);
    if (rep->message[0])
        job_set_str(r, "message", rep->message);
    else
        cJSON_DeleteItemFromObjectCaseSensitive(r, "message");
    return 1;
}

/* Applies one report to the replica with its engine id. */
static int edit_report(void *cls, const cJSON *job, cJSON *status)
{
    const struct report_edit *ed = cls;
    const char *phase = job_status_str(job, "phase");
    cJSON *r;
    if (strcmp(phase, "Admitted") && strcmp(phase, "Running"))
        return 1;                      /* over, or queued again by Cube */
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(status, "replicas")) {
        const char *rp = rstr(r, "phase");
        if (strcmp(rstr(r, "engineId"), ed->engine) ||
            (strcmp(rp, "Pending") && strcmp(rp, "Running")))
            continue;                  /* another one, or it has ended */
        int moved = ed->rep->has_phase && apply_phase(r, ed->rep);
        int located = ed->rep->endpoints && job_endpoints_set(r, job, ed->rep->endpoints);
        if (moved)
            job_phase_from_replicas(status);
        return moved || located ? 0 : 1;
    }
    return 1;
}

static int apply_report(struct cube_sched *s, const struct job_engine *ref, const char *engine,
                        const struct job_report *rep)
{
    struct report_edit ed = {engine, rep};
    return job_update_status(s, ref->project, ref->name, edit_report, &ed) < 0
               ? CUBE_EUNAVAIL : CUBE_OK;
}

void job_status_early_apply(struct cube_sched *s, const char *engine,
                            const struct job_engine *ref)
{
    pthread_mutex_lock(&s->mu);
    struct job_report *early = cube_strmap_del(s->early_status, engine);
    pthread_mutex_unlock(&s->mu);
    if (early)
        apply_report(s, ref, engine, early);
    job_report_free(early);
}

/* Keeps a report for an engine id not tracked yet, over what was kept
 * for it: each part the report has replaces the kept one (caller holds
 * mu). Takes rep->endpoints. */
static void keep_early(struct cube_sched *s, const char *engine, struct job_report *rep)
{
    struct job_report *kept = cube_strmap_get(s->early_status, engine);
    if (!kept) {
        if (cube_strmap_size(s->early_status) >= EARLY_STATUS_MAX ||
            !(kept = calloc(1, sizeof *kept)))
            return;
        if (cube_strmap_put(s->early_status, engine, kept, NULL) < 0) {
            free(kept);
            return;
        }
    }
    if (rep->has_phase) {
        kept->has_phase = 1;
        memcpy(kept->phase, rep->phase, sizeof kept->phase);
        memcpy(kept->node, rep->node, sizeof kept->node);
        memcpy(kept->message, rep->message, sizeof kept->message);
    }
    if (rep->endpoints) {
        cJSON_Delete(kept->endpoints);
        kept->endpoints = rep->endpoints;
        rep->endpoints = NULL;
    }
}

int job_report_submit(struct cube_sched *s, const char *engine, struct job_report *rep)
{
    struct job_engine ref;
    pthread_mutex_lock(&s->mu);
    struct job_engine *found = cube_strmap_get(s->engines, engine);
    if (found)
        ref = *found;
    else
        keep_early(s, engine, rep);
    pthread_mutex_unlock(&s->mu);
    int rc = found ? apply_report(s, &ref, engine, rep) : CUBE_OK;
    cJSON_Delete(rep->endpoints);
    rep->endpoints = NULL;
    return rc;
}

cJSON *job_report_early_endpoints(struct cube_sched *s, const char *engine)
{
    pthread_mutex_lock(&s->mu);
    const struct job_report *kept = cube_strmap_get(s->early_status, engine);
    cJSON *copy = kept && kept->endpoints ? cJSON_Duplicate(kept->endpoints, 1) : NULL;
    pthread_mutex_unlock(&s->mu);
    return copy;
}

int cube_slot_replica_status(cube_plugin *self, const char *engine_id, const char *phase,
                             const char *node, const char *message)
{
    struct cube_sched *s = self->ctx->sched;
    struct job_report rep;
    if (!engine_id || !*engine_id || !phase ||
        (strcmp(phase, "Pending") && strcmp(phase, "Running")))
        return CUBE_EINVAL;
    memset(&rep, 0, sizeof rep);
    rep.has_phase = 1;
    snprintf(rep.phase, sizeof rep.phase, "%s", phase);
    snprintf(rep.node, sizeof rep.node, "%s", node ? node : "");
    snprintf(rep.message, sizeof rep.message, "%s", message ? message : "");
    int allowed = 0, node_ok = 1;
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < s->n_executors; i++)
        allowed |= s->executors[i]->plugin == self &&
                   (s->executors[i]->desc.flags & CUBE_EXECUTOR_ENGINE_QUEUE);
    if (allowed && rep.node[0]) {   /* one of the caller's nodes, or stop finds no executor */
        struct sched_executor *ex = sched_executor_of_node(s, rep.node);
        node_ok = ex && ex->plugin == self;
    }
    pthread_mutex_unlock(&s->mu);
    if (!node_ok)
        return CUBE_EINVAL;
    if (!allowed)
        return CUBE_ESTATE;
    return job_report_submit(s, engine_id, &rep);
}
