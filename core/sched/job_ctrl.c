/* job_ctrl.c — the Job controller: a new Job is queued with the policy
 * engine (Pending, or Admitted at once when it fits), an admitted one gets
 * its replicas started on their executors by a starter thread (job_start.c;
 * Running), a deleted one is stopped first (finalizer). After a
 * restart the same reconcile puts every Job back into the engine. Exits,
 * stops, preemption and lost nodes are in job_exit.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctx/ctx.h"
#include "job_status.h"
#include "jobs.h"
#include "base/log.h"
#include "objects/objects.h"
#include "base/strmap.h"

static int is_terminal(const char *phase)
{
    return !strcmp(phase, "Succeeded") || !strcmp(phase, "Failed") ||
           !strcmp(phase, "Cancelled");
}

/* -- queueing ------------------------------------------------------------- */

struct submit_result {
    int rc;
    char message[600];
    uint64_t seq;
};

static int mark_queued(void *cls, const cJSON *job, cJSON *status)
{
    const struct submit_result *r = cls;
    if (*job_status_str(job, "phase"))
        return 1;   /* the loop admitted it already (or it was stopped) */
    if (r->rc == CUBE_OK) {
        job_set_str(status, "phase", "Pending");
        job_set_str(status, "reason", "Queued");
        job_set_str(status, "message", "waiting for the scheduler");
        if (!cJSON_HasObjectItem(status, "queued"))
            job_set_now(status, "queued");
        job_set_num(status, "seq", (double)r->seq);
    } else {
        job_set_str(status, "phase", "Failed");
        job_set_str(status, "reason", r->rc == CUBE_ETOOBIG ? "Unschedulable"
                                      : r->rc == CUBE_EPERM ? "PoolNotAllowed" : "InvalidSpec");
        job_set_str(status, "message", r->message);
        job_set_now(status, "finished");
    }
    return 0;
}

/* The FIFO key: the one recorded, else the time now (microseconds). */
static uint64_t job_seq(const cJSON *job)
{
    const cJSON *seq = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "status"), "seq");
    if (cJSON_IsNumber(seq) && seq->valuedouble > 0)
        return (uint64_t)seq->valuedouble;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Why a Job may not run in its pool, into msg. */
static void pool_refusal(const char *project, const char *pool, char *msg, size_t len)
{
    snprintf(msg, len, "spec.pool: project %s may not use pool %s (its spec.pools)", project,
             pool && *pool ? pool : CUBE_SP_DEFAULT_POOL);
}

/* A Pending Job whose project may not use its pool (spec.pools changed
 * after it was queued): Failed, never placed there. */
static int mark_refused(void *cls, const cJSON *job, cJSON *status)
{
    const char *phase = job_status_str(job, "phase");
    if (*phase && strcmp(phase, "Pending") != 0)
        return 1;
    job_set_str(status, "phase", "Failed");
    job_set_str(status, "reason", "PoolNotAllowed");
    job_set_str(status, "message", cls);
    job_set_now(status, "finished");
    cJSON_DeleteItemFromObjectCaseSensitive(status, "waiting");
    cJSON_DeleteItemFromObjectCaseSensitive(status, "queuePosition");
    return 0;
}

/* Hands a Job to the engine (pending). Returns CUBE_OK, or an error with
 * the message in r (a spec the engine refuses; CUBE_EPERM: a pool the
 * project may not use). */
static int engine_submit(struct cube_sched *s, const cJSON *job, const char *project,
                         const char *id, struct submit_result *r)
{
    struct job_request req;
    struct cube_op_error e;
    if (job_request(s, job, &req, &e) < 0) {
        snprintf(r->message, sizeof r->message, "%s", e.message);
        return r->rc = CUBE_EINVAL;
    }
    req.job.id = id;
    req.job.project = project;
    req.job.seq = r->seq = job_seq(job);
    sched_project_ensure(s, project, req.job.pool);
    pthread_mutex_lock(&s->mu);
    if (!sched_pool_allowed(s, project, req.job.pool)) {
        pthread_mutex_unlock(&s->mu);
        pool_refusal(project, req.job.pool, r->message, sizeof r->message);
        return r->rc = CUBE_EPERM;
    }
    r->rc = cube_sp_submit(s->policy, &req.job);
    if (r->rc == CUBE_EEXIST)
        r->rc = CUBE_OK;   /* already queued (a repeated reconcile) */
    if (r->rc == CUBE_OK)
        sched_pending_track(s, id);
    if (r->rc != CUBE_OK)
        snprintf(r->message, sizeof r->message, "%s", cube_sp_errmsg(s->policy));
    pthread_mutex_unlock(&s->mu);
    return r->rc;
}

/* A Job without a phase: queue it and say so in its status. */
static int queue_job(struct cube_sched *s, const cJSON *job, const char *project,
                     const char *name)
{
    char id[140];
    struct submit_result r = {0};
    job_id(project, name, id, sizeof id);
    /* A Job that fits now is admitted at once, before its queueing is
     * written: then one status write says queued and admitted (mark_queued
     * finds a phase and leaves it). */
    if (engine_submit(s, job, project, id, &r) == CUBE_OK)
        sched_cycle_now(s);
    if (job_update_status(s, project, name, mark_queued, &r) < 0)
        return CUBE_EUNAVAIL;
    if (r.rc != CUBE_OK)
        job_event(s, project, name, "Warning", "FailedScheduling", r.message);
    sched_poke(s);
    return CUBE_OK;
}

/* -- admission -------------------------------------------------------------- */

/* status.replicas from the engine's placement. */
static cJSON *placement_json(const struct cube_sp_admission *a)
{
    cJSON *list = cJSON_CreateArray();
    for (unsigned i = 0; i < a->n_replicas; i++) {
        const struct cube_sp_replica *r = &a->replicas[i];
        cJSON *o = cJSON_CreateObject(), *devs = cJSON_CreateArray();
        cJSON_AddNumberToObject(o, "index", i);
        cJSON_AddStringToObject(o, "node", r->node);
        cJSON_AddStringToObject(o, "phase", "Admitted");
        for (size_t d = 0; d < r->n_devices; d++) {
            cJSON *dev = cJSON_CreateObject();
            cJSON_AddStringToObject(dev, "id", r->devices[d].id);
            cJSON_AddStringToObject(dev, "resource", r->devices[d].resource);
            cJSON_AddNumberToObject(dev, "share", r->devices[d].share_milli / 1000.0);
            cJSON_AddItemToArray(devs, dev);
        }
        cJSON_AddItemToObject(o, "devices", devs);
        cJSON_AddItemToArray(list, o);
    }
    return list;
}

struct admission {
    struct cube_sched *s;
    const struct cube_sp_admission *a;
    int taken;              /* the status now says Admitted */
};

static int mark_admitted(void *cls, const cJSON *job, cJSON *status)
{
    struct admission *ad = cls;
    const cJSON *att = cJSON_GetObjectItemCaseSensitive(status, "attempts");
    const char *phase = job_status_str(job, "phase");
    ad->taken = 0;
    /* "" too: the loop may admit a Job before its queueing is written */
    if ((*phase && strcmp(phase, "Pending") != 0) ||
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(status, "stopRequested")))
        return 1;   /* stopped or finished meanwhile: the caller releases it */
    if (!cJSON_HasObjectItem(status, "queued"))
        job_set_now(status, "queued");
    if (!cJSON_HasObjectItem(status, "seq"))   /* its FIFO key, were it queued again */
        job_set_num(status, "seq", (double)job_seq(job));
    job_set_str(status, "phase", "Admitted");
    job_set_str(status, "reason", "Admitted");
    job_set_str(status, "message", "placed; starting replicas");
    job_set_num(status, "attempts", (cJSON_IsNumber(att) ? att->valuedouble : 0) + 1);
    job_set_now(status, "admitted");
    cJSON_DeleteItemFromObjectCaseSensitive(status, "waiting");
    cJSON_DeleteItemFromObjectCaseSensitive(status, "queuePosition");
    cJSON_DeleteItemFromObjectCaseSensitive(status, "preemptedBy");
    cJSON_DeleteItemFromObjectCaseSensitive(status, "stopRequested");
    cJSON_DeleteItemFromObjectCaseSensitive(status, "retryAt");
    cJSON_DeleteItemFromObjectCaseSensitive(status, "replicas");
    cJSON_AddItemToObject(status, "replicas", placement_json(ad->a));
    job_ports_assign(ad->s, ad->a->job, job, status);   /* a failure stops its start */
    ad->taken = 1;
    return 0;
}

void job_admitted(struct cube_sched *s, const struct cube_sp_admission *a)
{
    char project[64], name[64], msg[300];
    struct admission ad = {s, a, 0};
    int split = job_id_split(a->job, project, name);
    pthread_mutex_lock(&s->mu);
    sched_pending_untrack(s, a->job);
    int allowed = split < 0 || sched_pool_allowed(s, project, a->pool);
    pthread_mutex_unlock(&s->mu);
    if (!allowed) {   /* the project's spec.pools changed while it waited */
        pool_refusal(project, a->pool, msg, sizeof msg);
        job_update_status(s, project, name, mark_refused, msg);
        job_event(s, project, name, "Warning", "PoolNotAllowed", msg);
    }
    if (!allowed || split < 0 ||
        job_update_status(s, project, name, mark_admitted, &ad) < 0 || !ad.taken) {
        pthread_mutex_lock(&s->mu);
        cube_sp_release(s->policy, a->job);   /* gone, stopped or finished */
        pthread_mutex_unlock(&s->mu);
        sched_poke(s);
        return;
    }
    job_start_soon(s, project, name);   /* without waiting for the controller */
}

/* -- starting replicas ---------------------------------------------------- */

/* Records engine ids (one per replica, "" when its start failed), which
 * of them wait in their engine's queue (CUBE_EXECUTOR_ENGINE_QUEUE) and
 * the outcome: Running (Admitted while a replica waits in its engine's
 * queue), or Failed with the start error. */
struct start_outcome {
    cJSON *engines;         /* array of strings */
    cJSON *queued;          /* array of booleans, by replica */
    char error[300];        /* "" when every replica started */
};

static int mark_started(void *cls, const cJSON *job, cJSON *status)
{
    const struct start_outcome *o = cls;
    cJSON *r;
    int i = 0;
    (void)job;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(status, "replicas")) {
        int queued = cJSON_IsTrue(cJSON_GetArrayItem(o->queued, i));
        const char *id = cJSON_GetStringValue(cJSON_GetArrayItem(o->engines, i++));
        const char *had = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "engineId"));
        if (id && *id && (!had || strcmp(had, id))) {   /* started now */
            job_set_str(r, "engineId", id);
            job_set_str(r, "phase", queued ? "Pending" : "Running");
            if (queued)
                job_set_str(r, "message", "waiting in the engine's queue");
        } else if (!(id && *id) && o->error[0]) {
            job_set_str(r, "phase", "Failed");
            job_set_str(r, "reason", CUBE_EXIT_FAILED);
            job_set_str(r, "message", o->error);   /* why, for the Job's outcome */
        }
    }
    if (!o->error[0]) {
        job_phase_from_replicas(status);
        return 0;
    }
    job_set_str(status, "phase", "Running");
    job_set_str(status, "reason", "StartError");
    job_set_str(status, "message", o->error);
    if (!cJSON_HasObjectItem(status, "started"))
        job_set_now(status, "started");
    return 0;
}

/* Starts one replica on its node's executor; the engine id into id. */
static int start_one(struct cube_sched *s, const cJSON *job, int i, const char *node,
                     char *id, size_t idlen, char *msg, size_t msglen)
{
    pthread_mutex_lock(&s->mu);
    struct sched_executor *ex = sched_executor_of_node(s, node);
    struct cube_executor_desc desc = ex ? ex->desc : (struct cube_executor_desc){0};
    void *state = ex ? ex->plugin->state : NULL;
    pthread_mutex_unlock(&s->mu);
    if (!ex) {
        snprintf(msg, msglen, "node %s has no executor any more", node);
        return CUBE_ENOTFOUND;
    }
    const char *no_port = job_ports_missing(s, job);
    if (no_port) {
        snprintf(msg, msglen, "%s", no_port);
        return CUBE_EUNAVAIL;
    }
    if (!job_run_as(job)) {
        const char *owner = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(job, "metadata"), "owner"));
        snprintf(msg, msglen, "no user to run as: its owner %s is not a user (a plugin made "
                 "it on nobody's behalf)", owner ? owner : "(none)");
        return CUBE_EPERM;
    }
    /* partitions first (their ids are what gets pinned), then the pins */
    cJSON *ids = NULL, *leases = NULL;
    int rc = job_parts_prepare(s, job, i, &ids, &leases, msg, msglen);
    char *doc = rc == CUBE_OK ? job_pinned_doc(s, job, i, ids, msg, msglen) : NULL;
    if (rc == CUBE_OK)
        rc = doc ? desc.start(state, doc, id, idlen, msg, msglen) : CUBE_EINVAL;
    free(doc);
    cJSON_Delete(ids);
    if (rc == CUBE_OK && !id[0])
        rc = CUBE_EINTERNAL, snprintf(msg, msglen, "the executor gave no engine id");
    if (rc == CUBE_OK)
        job_parts_started(s, leases, id);   /* released when its end is applied */
    else
        job_parts_abort(s, leases);
    return rc;
}

int job_start_replicas(struct cube_sched *s, const cJSON *job, const char *project,
                       const char *name)
{
    /* A copy that learns the endpoints replicas report while they start,
     * so later replicas' MASTER_ADDR is replica 0's (job_endpoints.c). */
    cJSON *work = cJSON_Duplicate(job, 1), *r;
    if (!work)
        return CUBE_EUNAVAIL;
    cJSON *reps = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(work, "status"), "replicas");
    struct start_outcome o = {cJSON_CreateArray(), cJSON_CreateArray(), ""};
    int i = 0, started = 0;
    cJSON_ArrayForEach(r, reps) {
        char id[256] = "", msg[256] = "";
        const char *have = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "engineId"));
        const char *node = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "node"));
        if (have && *have)
            snprintf(id, sizeof id, "%s", have);
        else if (!o.error[0] && start_one(s, work, i, node ? node : "", id, sizeof id, msg,
                                          sizeof msg) != CUBE_OK)
            snprintf(o.error, sizeof o.error, "replica %d on %s: %s", i, node ? node : "?",
                     msg[0] ? msg : "could not start");
        else if (!o.error[0]) {
            started++;
            job_endpoints_peek(s, id, work, r);
        }
        cJSON_AddItemToArray(o.engines, cJSON_CreateString(id));
        cJSON_AddItemToArray(o.queued, cJSON_CreateBool(
            sched_node_engine_queues(s, node ? node : "")));
        i++;
    }
    cJSON_Delete(work);
    if (!started && !o.error[0]) {
        /* every replica was started before (they wait in their engines'
         * queues): nothing to record again */
        cJSON_Delete(o.engines);
        cJSON_Delete(o.queued);
        return CUBE_OK;
    }
    /* "Started" (or "StartError") goes into the same store write */
    char *ev = job_event_doc(s, project, name, o.error[0] ? "Warning" : "Normal",
                             o.error[0] ? "StartError" : "Started",
                             o.error[0] ? o.error : "every replica started");
    int rc = job_update_status_event(s, project, name, mark_started, &o, ev);
    free(ev);
    /* Only now that the status names them: an end reported meanwhile waits
     * in the early table and is applied by job_engine_track. */
    for (i = 0; i < cJSON_GetArraySize(o.engines); i++) {
        const char *id = cJSON_GetStringValue(cJSON_GetArrayItem(o.engines, i));
        if (id && *id)
            job_engine_track(s, id, project, name, i);
    }
    if (o.error[0]) {
        job_stop_replicas(s, project, name, 0);
        job_fail_start(s, project, name);
    }
    cJSON_Delete(o.engines);
    cJSON_Delete(o.queued);
    return rc < 0 ? CUBE_EUNAVAIL : CUBE_OK;
}

/* -- after a restart ------------------------------------------------------ */

/* Puts an Admitted/Running Job back into the engine where its status says
 * it runs, and asks executors to adopt its running replicas. */
static int restore_job(struct cube_sched *s, const cJSON *job, const char *project,
                       const char *name, const char *id)
{
    const cJSON *r, *reps = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "status"), "replicas");
    struct job_request req;
    struct cube_op_error e;
    int n = cJSON_GetArraySize(reps), i = 0, rc;
    if (job_request(s, job, &req, &e) < 0 || n <= 0)
        return job_fail_start(s, project, name), CUBE_OK;
    struct cube_sp_replica *place = calloc((size_t)n, sizeof *place);
    struct cube_sp_dev_alloc *devs = calloc((size_t)n * CUBE_SP_MAX_DEVICES, sizeof *devs);
    if (!place || !devs) {
        free(place);
        free(devs);
        return CUBE_ENOMEM;
    }
    cJSON_ArrayForEach(r, reps) {
        const cJSON *d;
        place[i].node = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "node"));
        place[i].devices = &devs[i * CUBE_SP_MAX_DEVICES];
        cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(r, "devices")) {
            if (place[i].n_devices == CUBE_SP_MAX_DEVICES)
                break;
            struct cube_sp_dev_alloc *a = &devs[i * CUBE_SP_MAX_DEVICES + place[i].n_devices++];
            const cJSON *share = cJSON_GetObjectItemCaseSensitive(d, "share");
            a->id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "id"));
            a->resource = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "resource"));
            a->share_milli = cJSON_IsNumber(share) ? (int32_t)(share->valuedouble * 1000) : 0;
        }
        i++;
    }
    req.job.id = id;
    req.job.project = project;
    req.job.seq = job_seq(job);
    req.job.flags |= CUBE_SP_NO_FIT_CHECK;
    sched_project_ensure(s, project, req.job.pool);
    pthread_mutex_lock(&s->mu);
    rc = cube_sp_restore(s->policy, &req.job, place);
    if (rc != CUBE_OK)
        cube_log(CUBE_LOG_WARN, "jobs", "%s: cannot restore its placement: %s", id,
                 cube_sp_errmsg(s->policy));
    pthread_mutex_unlock(&s->mu);
    free(place);
    free(devs);
    job_ports_restore(s, id, job);
    job_adopt_replicas(s, job, project, name);
    return CUBE_OK;
}

/* 1 when the stored Job (read again: the copy given to reconcile may be
 * older than its run's end) is still Admitted or Running. */
static int still_running(struct cube_sched *s, const char *project, const char *name)
{
    cJSON *job = NULL;
    struct cube_op_error e;
    if (cube_obj_get(s->ctx, s->job_kind, project, name, &job, &e) < 0)
        return 0;
    const char *phase = job_status_str(job, "phase");
    int running = !strcmp(phase, "Admitted") || !strcmp(phase, "Running");
    cJSON_Delete(job);
    return running;
}

/* 1 when the engine knows the Job. */
static int engine_knows(struct cube_sched *s, const char *id)
{
    struct cube_sp_job_info info;
    pthread_mutex_lock(&s->mu);
    int known = cube_sp_job_info(s->policy, id, &info, NULL, 0) == CUBE_OK;
    pthread_mutex_unlock(&s->mu);
    return known;
}

/* A Pending Job the engine does not know (after a restart, or a retry
 * whose back-off is over): queue it again. Returns ms to wait, or 0. */
static int requeue_pending(struct cube_sched *s, const cJSON *job, const char *project,
                           const char *id)
{
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "status"), "retryAt");
    if (cJSON_IsNumber(at) && at->valuedouble > (double)time(NULL))
        return (int)((at->valuedouble - (double)time(NULL)) * 1000) + 10;
    struct submit_result r = {0};
    char name[64], pname[64];
    if (engine_submit(s, job, project, id, &r) == CUBE_EPERM &&
        job_id_split(id, pname, name) == 0) {
        job_update_status(s, project, name, mark_refused, r.message);
        job_event(s, project, name, "Warning", "PoolNotAllowed", r.message);
    } else if (r.rc != CUBE_OK)
        cube_log(CUBE_LOG_WARN, "jobs", "%s: cannot queue it again: %s", id, r.message);
    sched_poke(s);
    return 0;
}

/* -- the controller --------------------------------------------------------- */

int job_reconcile(void *state, const char *kind, const char *project, const char *name,
                  const char *object_json)
{
    (void)kind;
    struct cube_sched *s = ((struct cube_ctx *)state)->sched;
    char id[140];
    job_id(project, name, id, sizeof id);
    if (!object_json)
        return job_forget(s, id), CUBE_OK;
    cJSON *job = cJSON_Parse(object_json);
    if (!job)
        return CUBE_EINVAL;
    const char *phase = job_status_str(job, "phase");
    int rc = CUBE_OK;
    if (cJSON_HasObjectItem(cJSON_GetObjectItemCaseSensitive(job, "metadata"),
                            "deletionTimestamp"))
        rc = CUBE_OK;                               /* the finalizer's */
    else if ((!*phase || !strcmp(phase, "Pending")) && job_stop_asked(job))
        job_stop_on_request(s, job, project, name);     /* its owner stopped it */
    else if (!*phase)
        rc = queue_job(s, job, project, name);
    else if (!strcmp(phase, "Pending") && !engine_knows(s, id))
        rc = requeue_pending(s, job, project, id);
    else if (!strcmp(phase, "Admitted") || !strcmp(phase, "Running")) {
        int known = engine_knows(s, id);
        if (!known && still_running(s, project, name)) {   /* after a restart */
            rc = restore_job(s, job, project, name, id);
            known = 1;
        }
        /* unknown and not running any more: a stale copy, its run has ended */
        if (known && rc == CUBE_OK && job_stop_asked(job))
            job_stop_on_request(s, job, project, name);
        else if (known && rc == CUBE_OK && !strcmp(phase, "Admitted"))
            job_start_soon(s, project, name);   /* unless it is starting already */
    } else if (is_terminal(phase))
        job_forget(s, id);
    cJSON_Delete(job);
    return rc;
}

int job_finalize(void *state, const char *object_json)
{
    (void)state;
    cJSON *job = cJSON_Parse(object_json);
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(job, "metadata");
    const char *project = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "project"));
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "name"));
    struct cube_sched *s = ((struct cube_ctx *)state)->sched;
    int running = project && name ? job_stop_replicas(s, project, name, 0) : 0;
    if (project && name && !running) {
        char id[140];
        job_id(project, name, id, sizeof id);
        job_forget(s, id);
        job_points_forget(s, job);   /* its metrics go with it */
    }
    cJSON_Delete(job);
    return running ? CUBE_EUNAVAIL : CUBE_OK;
}
