/* job_replica_status.c — executors that place and queue work themselves
 * (ABI 1.5, CUBE_EXECUTOR_ENGINE_QUEUE): a replica they started is
 * Pending until they report it Running with the replica_status slot, and
 * its Job is Admitted (reason EngineQueued) until every replica runs. A
 * report that arrives before the replica's start returned (the status
 * does not name its engine id yet) is kept, latest only, and applied once
 * the start is recorded (job_engine_track). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx/ctx.h"
#include "job_status.h"
#include "jobs.h"
#include "base/strmap.h"

#define EARLY_STATUS_MAX 4096

/* One replica_status report. */
struct job_report {
    char phase[16], node[64], message[256];
};

/* A report and the engine id it is about (the edit's argument). */
struct report_edit {
    const char *engine;
    const struct job_report *rep;
};

int sched_node_engine_queues(struct cube_sched *s, const char *node)
{
    pthread_mutex_lock(&s->mu);
    struct sched_executor *ex = sched_executor_of_node(s, node);
    int queues = ex && (ex->desc.flags & CUBE_EXECUTOR_ENGINE_QUEUE);
    pthread_mutex_unlock(&s->mu);
    return queues;
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
        if (!strcmp(rp, ed->rep->phase) && !strcmp(rstr(r, "message"), ed->rep->message) &&
            (!ed->rep->node[0] || !strcmp(rstr(r, "node"), ed->rep->node)))
            return 1;                  /* nothing new */
        job_set_str(r, "phase", ed->rep->phase);
        if (ed->rep->node[0])
            job_set_str(r, "node", ed->rep->node);
        if (ed->rep->message[0])
            job_set_str(r, "message", ed->rep->message);
        else
            cJSON_DeleteItemFromObjectCaseSensitive(r, "message");
        job_phase_from_replicas(status);
        return 0;
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
    free(early);
}

/* Keeps a report for an engine id not tracked yet (caller holds mu). */
static void keep_early(struct cube_sched *s, const char *engine, const struct job_report *rep)
{
    struct job_report *copy;
    void *old = NULL;
    if (cube_strmap_size(s->early_status) >= EARLY_STATUS_MAX || !(copy = malloc(sizeof *copy)))
        return;
    *copy = *rep;
    if (cube_strmap_put(s->early_status, engine, copy, &old) < 0)
        free(copy);
    free(old);
}

int cube_slot_replica_status(cube_plugin *self, const char *engine_id, const char *phase,
                             const char *node, const char *message)
{
    struct cube_sched *s = self->ctx->sched;
    struct job_report rep;
    struct job_engine ref;
    if (!engine_id || !*engine_id || !phase ||
        (strcmp(phase, "Pending") && strcmp(phase, "Running")))
        return CUBE_EINVAL;
    memset(&rep, 0, sizeof rep);
    snprintf(rep.phase, sizeof rep.phase, "%s", phase);
    snprintf(rep.node, sizeof rep.node, "%s", node ? node : "");
    snprintf(rep.message, sizeof rep.message, "%s", message ? message : "");
    int allowed = 0, known = 0, node_ok = 1;
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < s->n_executors; i++)
        allowed |= s->executors[i]->plugin == self &&
                   (s->executors[i]->desc.flags & CUBE_EXECUTOR_ENGINE_QUEUE);
    if (allowed && rep.node[0]) {   /* one of the caller's nodes, or stop finds no executor */
        struct sched_executor *ex = sched_executor_of_node(s, rep.node);
        node_ok = ex && ex->plugin == self;
        allowed = node_ok;
    }
    struct job_engine *found = allowed ? cube_strmap_get(s->engines, engine_id) : NULL;
    if (found) {
        ref = *found;
        known = 1;
    } else if (allowed) {
        keep_early(s, engine_id, &rep);
    }
    pthread_mutex_unlock(&s->mu);
    if (!node_ok)
        return CUBE_EINVAL;
    if (!allowed)
        return CUBE_ESTATE;
    return known ? apply_report(s, &ref, engine_id, &rep) : CUBE_OK;
}
