/* job_exit.c — how Jobs end: replica ends reported by executors (also
 * before start returned, and after a restart through adoption), the
 * Job's outcome (Succeeded, Failed, a retry after back-off, back to
 * Pending after preemption or a lost node, Cancelled after a stop), and
 * the stop action. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "objects/controller.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "job_status.h"
#include "jobs.h"
#include "objects/kinds.h"
#include "base/log.h"
#include "objects/objects.h"
#include "base/strmap.h"

#define DEFAULT_GRACE_S 10
#define EARLY_MAX 4096

struct job_exit {
    int code;
    char reason[32], message[256];
};

/* -- the outcome -------------------------------------------------------------- */

/* What one edit learnt: replicas still running, and whether the others
 * must be stopped (one failed in a gang). */
struct exit_edit {
    struct cube_sched *s;
    const char *engine;        /* NULL: only evaluate the outcome */
    int replica;
    struct job_exit x;
    int running, stop_others;
    int ended;                 /* the run is over: finished or queued again */
};

static int num(const cJSON *o, const char *key, int def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? (int)v->valuedouble : def;
}

/* The first failed replica's reason and message. */
static const cJSON *first_failure(const cJSON *reps)
{
    const cJSON *r, *stopped = NULL;
    cJSON_ArrayForEach(r, reps) {
        const char *phase = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "phase"));
        const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "reason"));
        if (!phase || strcmp(phase, "Failed") != 0)
            continue;
        if (why && !strcmp(why, CUBE_EXIT_STOPPED))
            stopped = stopped ? stopped : r;   /* stopped because another failed */
        else
            return r;
    }
    return stopped;
}

/* Every replica ended: the Job's next phase. */
static void decide_outcome(struct exit_edit *ed, const cJSON *job, cJSON *status)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(job, "spec");
    const cJSON *retries = cJSON_GetObjectItemCaseSensitive(spec, "retries");
    const cJSON *failed = first_failure(cJSON_GetObjectItemCaseSensitive(status, "replicas"));
    const char *by = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(status, "preemptedBy"));
    char msg[400];
    (void)job;
    ed->ended = 1;   /* released once this status is written (finish_run) */
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(status, "stopRequested"))) {
        job_set_str(status, "phase", "Cancelled");
        job_set_str(status, "reason", "Stopped");
        job_set_str(status, "message", "stopped on request");
    } else if (by || (failed && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                                            failed, "reason")) ?: "", CUBE_EXIT_LOST))) {
        snprintf(msg, sizeof msg, by ? "preempted by %s; queued again" :
                 "a node was lost; queued again", by);
        job_set_str(status, "phase", "Pending");
        job_set_str(status, "reason", by ? "Preempted" : "NodeLost");
        job_set_str(status, "message", msg);
        cJSON_DeleteItemFromObjectCaseSensitive(status, "preemptedBy");
        return;
    } else if (!failed) {
        job_set_str(status, "phase", "Succeeded");
        job_set_str(status, "reason", "Completed");
        job_set_str(status, "message", "every replica exited 0");
    } else if (num(status, "attempts", 1) <= num(retries, "limit", 0)) {
        int backoff = num(retries, "backoffSeconds", 10);
        snprintf(msg, sizeof msg, "attempt %d failed (%s); retrying in %d s",
                 num(status, "attempts", 1), cJSON_GetStringValue(
                     cJSON_GetObjectItemCaseSensitive(failed, "reason")) ?: "Error", backoff);
        job_set_str(status, "phase", "Pending");
        job_set_str(status, "reason", "BackOff");
        job_set_str(status, "message", msg);
        job_set_num(status, "retryAt", (double)(time(NULL) + backoff));
        return;
    } else {
        const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(failed, "reason"));
        const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(failed, "message"));
        snprintf(msg, sizeof msg, "replica %d: %s", num(failed, "index", 0),
                 m && *m ? m : "failed");
        job_set_str(status, "phase", "Failed");
        job_set_str(status, "reason", why && strcmp(why, CUBE_EXIT_COMPLETED) ? why : "Error");
        job_set_str(status, "message", msg);
    }
    job_set_now(status, "finished");
}

/* Applies one replica's end (when engine is set) and, once none runs, the
 * outcome. */
static int edit_exit(void *cls, const cJSON *job, cJSON *status)
{
    struct exit_edit *ed = cls;
    cJSON *r, *reps = cJSON_GetObjectItemCaseSensitive(status, "replicas");
    const char *phase = job_status_str(job, "phase");
    int changed = 0;
    ed->running = ed->stop_others = 0;
    if (strcmp(phase, "Running") && strcmp(phase, "Admitted"))
        return 1;
    cJSON_ArrayForEach(r, reps) {
        const char *eng = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "engineId"));
        const char *rp = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "phase"));
        if (ed->engine && eng && !strcmp(eng, ed->engine) && rp &&
            (!strcmp(rp, "Running") || !strcmp(rp, "Pending"))) {
            int ok = ed->x.code == 0 && !strcmp(ed->x.reason, CUBE_EXIT_COMPLETED);
            job_set_str(r, "phase", ok ? "Succeeded" : "Failed");
            job_set_num(r, "exitCode", ed->x.code);
            job_set_str(r, "reason", ed->x.reason);
            job_set_str(r, "message", ed->x.message);
            job_set_now(r, "finished");
            ed->stop_others |= !ok;
            changed = 1;
        } else if (rp && (!strcmp(rp, "Running") || !strcmp(rp, "Admitted") ||
                          !strcmp(rp, "Pending"))) {
            ed->running++;
        }
    }
    if (ed->running == 0 && (changed || !ed->engine)) {
        decide_outcome(ed, job, status);
        return 0;
    }
    return changed ? 0 : 1;
}

/* After the status says the run is over: out of the engine (its room is
 * free), then the controller once more, which queues a Pending Job again.
 * In this order a reconcile never sees a running Job the engine forgot. */
static void finish_run(struct cube_sched *s, const char *project, const char *name)
{
    char id[140];
    job_id(project, name, id, sizeof id);
    job_forget(s, id);
    cube_ctrl_enqueue(s->ctx, s->job_kind, project, name);
}

static void apply_exit(struct cube_sched *s, const struct job_engine *ref, const char *engine,
                       const struct job_exit *x)
{
    struct exit_edit ed = {s, engine, ref->replica, *x, 0, 0, 0};
    job_parts_ended(s, engine);   /* its partitions go, whatever the Job became */
    if (job_update_status(s, ref->project, ref->name, edit_exit, &ed) < 0)
        return;
    if (ed.ended)
        finish_run(s, ref->project, ref->name);
    if (ed.stop_others && ed.running > 0)
        job_stop_replicas(s, ref->project, ref->name, 0);
    sched_poke(s);
}

/* -- engine ids --------------------------------------------------------------- */

void job_engine_track(struct cube_sched *s, const char *engine, const char *project,
                      const char *name, int replica)
{
    struct job_engine *ref = calloc(1, sizeof *ref);
    void *old = NULL;
    if (!ref)
        return;
    snprintf(ref->project, sizeof ref->project, "%s", project);
    snprintf(ref->name, sizeof ref->name, "%s", name);
    ref->replica = replica;
    struct job_engine copy = *ref;   /* the map's may be freed once unlocked */
    pthread_mutex_lock(&s->mu);
    struct job_exit *early = cube_strmap_del(s->early, engine);
    if (cube_strmap_put(s->engines, engine, ref, &old) < 0) {
        free(ref);
        ref = NULL;
    }
    pthread_mutex_unlock(&s->mu);
    free(old);
    if (ref)
        job_status_early_apply(s, engine, &copy);
    if (early && ref)
        apply_exit(s, &copy, engine, early);
    free(early);
}

int job_replica_exited(struct cube_sched *s, const char *engine, int code,
                       const char *reason, const char *message)
{
    struct job_exit x = {.code = code};
    struct job_engine ref;
    snprintf(x.reason, sizeof x.reason, "%s", reason);
    snprintf(x.message, sizeof x.message, "%s", message ? message : "");
    pthread_mutex_lock(&s->mu);
    struct job_engine *known = cube_strmap_get(s->engines, engine);
    if (known)
        ref = *known;
    else if (cube_strmap_size(s->early) < EARLY_MAX) {
        /* start() has not returned yet: applied by job_engine_track */
        struct job_exit *copy = malloc(sizeof *copy);
        void *old = NULL;
        if (copy && (*copy = x, cube_strmap_put(s->early, engine, copy, &old) < 0))
            free(copy);
        free(old);
    }
    pthread_mutex_unlock(&s->mu);
    if (known)
        apply_exit(s, &ref, engine, &x);
    return CUBE_OK;
}

struct drop_job {
    const char *prefix;   /* "project/name" */
    struct cube_strmap *map;
};

static int drop_engine(void *cls, const char *engine, void *value)
{
    struct drop_job *d = cls;
    const struct job_engine *ref = value;
    char id[140];
    job_id(ref->project, ref->name, id, sizeof id);
    if (strcmp(id, d->prefix) == 0)
        cube_strmap_put(d->map, engine, (void *)1, NULL);
    return 0;
}

static int del_engine(void *cls, const char *engine, void *value)
{
    (void)value;
    free(cube_strmap_del(cls, engine));
    return 0;
}

void job_forget(struct cube_sched *s, const char *id)
{
    struct cube_sp_job_info info;
    struct drop_job d = {id, cube_strmap_new()};
    pthread_mutex_lock(&s->mu);
    if (cube_sp_job_info(s->policy, id, &info, NULL, 0) == CUBE_OK)
        info.state == CUBE_SP_PENDING ? cube_sp_cancel(s->policy, id)
                                      : cube_sp_release(s->policy, id);
    sched_pending_untrack(s, id);
    if (d.map) {
        cube_strmap_each(s->engines, drop_engine, &d);
        cube_strmap_each(d.map, del_engine, s->engines);
    }
    pthread_mutex_unlock(&s->mu);
    job_ports_release(s, id);
    cube_strmap_free(d.map, NULL);
    sched_poke(s);
}

/* -- stopping -------------------------------------------------------------- */

/* The executor of a node and its state, copied under mu. */
static int executor_for(struct cube_sched *s, const char *node, struct cube_executor_desc *d,
                        void **state)
{
    pthread_mutex_lock(&s->mu);
    struct sched_executor *ex = node ? sched_executor_of_node(s, node) : NULL;
    if (ex) {
        *d = ex->desc;
        *state = ex->plugin->state;
    }
    pthread_mutex_unlock(&s->mu);
    return ex ? 0 : -1;
}

/* 1 when status replica r runs, or waits in its engine's queue (it has an
 * engine id): *eng and *node set. */
static int running_replica(const cJSON *r, const char **eng, const char **node)
{
    const char *phase = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "phase"));
    *eng = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "engineId"));
    *node = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "node"));
    return *eng && phase && (!strcmp(phase, "Running") || !strcmp(phase, "Pending"));
}

int job_stop_replicas(struct cube_sched *s, const char *project, const char *name,
                      unsigned grace)
{
    cJSON *job = NULL;
    struct cube_op_error e;
    int running = 0;
    if (cube_obj_get(s->ctx, s->job_kind, project, name, &job, &e) < 0)
        return 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(
                              cJSON_GetObjectItemCaseSensitive(job, "status"), "replicas")) {
        const char *eng, *node;
        struct cube_executor_desc d;
        void *state;
        if (!running_replica(r, &eng, &node))
            continue;
        running++;
        if (executor_for(s, node, &d, &state) < 0 ||
            d.stop(state, eng, grace ? grace : DEFAULT_GRACE_S) == CUBE_ENOTFOUND) {
            struct job_exit x = {-1, CUBE_EXIT_LOST, "its executor no longer knows it"};
            struct job_engine ref;
            snprintf(ref.project, sizeof ref.project, "%s", project);
            snprintf(ref.name, sizeof ref.name, "%s", name);
            ref.replica = 0;
            apply_exit(s, &ref, eng, &x);
            running--;
        }
    }
    cJSON_Delete(job);
    return running;
}

void job_fail_start(struct cube_sched *s, const char *project, const char *name)
{
    struct exit_edit ed = {s, NULL, -1, {0}, 0, 0, 0};
    if (job_update_status(s, project, name, edit_exit, &ed) == 0 && ed.ended)
        finish_run(s, project, name);
    sched_poke(s);
}

void job_adopt_replicas(struct cube_sched *s, const cJSON *job, const char *project,
                        const char *name)
{
    const cJSON *r;
    int i = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(
                              cJSON_GetObjectItemCaseSensitive(job, "status"), "replicas")) {
        const char *eng, *node;
        struct cube_executor_desc d;
        void *state;
        int index = i++;
        if (!running_replica(r, &eng, &node))
            continue;
        job_engine_track(s, eng, project, name, index);
        char msg[256];
        cJSON *ids = job_parts_ids(s, eng);
        char *doc = job_pinned_doc(s, job, index, ids, msg, sizeof msg);
        cJSON_Delete(ids);
        if (!doc) {   /* adoption does not start it: the unpinned document will do */
            cube_log(CUBE_LOG_WARN, "jobs", "%s/%s replica %d: %s", project, name, index, msg);
            doc = job_replica_doc(s, job, index);
        }
        int rc = executor_for(s, node, &d, &state) < 0 || !d.adopt || !doc
                     ? CUBE_ENOTFOUND : d.adopt(state, eng, doc);
        free(doc);
        if (rc != CUBE_OK)
            job_replica_exited(s, eng, -1, CUBE_EXIT_LOST,
                               "not running any more after cubed restarted");
    }
}

/* -- preemption, lost nodes -------------------------------------------------- */

static int mark_preempted(void *cls, const cJSON *job, cJSON *status)
{
    (void)job;
    job_set_str(status, "preemptedBy", cls);
    job_set_str(status, "reason", "Preempting");
    job_set_str(status, "message", "stopping to make room for a job of higher priority "
                "or with a guarantee");
    return 0;
}

void job_preempt(struct cube_sched *s, const char *victim, const char *for_job)
{
    char vp[64], vn[64], bp[64], bn[64], msg[300];
    if (job_id_split(victim, vp, vn) < 0 || job_id_split(for_job, bp, bn) < 0)
        return;
    job_update_status(s, vp, vn, mark_preempted, (void *)for_job);
    snprintf(msg, sizeof msg, "preempted for %s", for_job);
    job_event(s, vp, vn, "Warning", "Preempted", msg);
    snprintf(msg, sizeof msg, "preempting %s", victim);
    job_event(s, bp, bn, "Normal", "Preempting", msg);
    if (job_stop_replicas(s, vp, vn, DEFAULT_GRACE_S) == 0)
        job_fail_start(s, vp, vn);   /* nothing ran: requeue now */
}

void job_lost(struct cube_sched *s, const char *id)
{
    char project[64], name[64];
    if (job_id_split(id, project, name) < 0)
        return;
    job_event(s, project, name, "Warning", "NodeLost", "a node it ran on went away");
    job_stop_replicas(s, project, name, 0);
}

/* -- the stop action, and stops asked through the status -------------------- */

/* A stop: stopRequested (and stopGraceSeconds when given) recorded; a Job
 * that had not started is Cancelled at once (pending). */
struct stop_req {
    int pending;
    int grace;          /* -1: not given */
};

static int mark_stop(void *cls, const cJSON *job, cJSON *status)
{
    struct stop_req *q = cls;
    const char *phase = job_status_str(job, "phase");
    const cJSON *had = cJSON_GetObjectItemCaseSensitive(status, "stopGraceSeconds");
    q->pending = !strcmp(phase, "Pending") || !*phase;
    if (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed") || !strcmp(phase, "Cancelled"))
        return 1;
    if (!q->pending && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(status, "stopRequested")) &&
        (q->grace < 0 || (cJSON_IsNumber(had) && had->valuedouble == q->grace)))
        return 1;   /* recorded already: writing it again would only wake the controller */
    cJSON_DeleteItemFromObjectCaseSensitive(status, "stopRequested");
    cJSON_AddTrueToObject(status, "stopRequested");
    if (q->grace >= 0)
        job_set_num(status, "stopGraceSeconds", q->grace);
    if (q->pending) {
        job_set_str(status, "phase", "Cancelled");
        job_set_str(status, "reason", "Stopped");
        job_set_str(status, "message", "stopped before it ran");
        job_set_now(status, "finished");
    }
    return 0;
}

/* Cancels a Job that has not started, or signals its running replicas
 * (SIGTERM, SIGKILL after grace seconds; 0: the default). */
static void stop_job(struct cube_sched *s, const char *project, const char *name, int grace)
{
    struct stop_req q = {0, grace};
    char id[140];
    job_id(project, name, id, sizeof id);
    job_update_status(s, project, name, mark_stop, &q);
    if (q.pending)
        job_forget(s, id);
    else if (job_stop_replicas(s, project, name, grace > 0 ? (unsigned)grace : 0) == 0)
        job_fail_start(s, project, name);
}

int job_stop_asked(const cJSON *job)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "status"), "stopRequested"));
}

void job_stop_on_request(struct cube_sched *s, const cJSON *job, const char *project,
                         const char *name)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "status"), "stopGraceSeconds");
    int grace = cJSON_IsNumber(g) && g->valuedouble >= 0 && g->valuedouble <= 3600
                    ? (int)g->valuedouble : -1;
    stop_job(s, project, name, grace);
}

/* The audit event of a stop asked over the API: StopRequested, naming who
 * asked and the grace period (the Job's own end is recorded as it ends). */
static void audit_stop(struct cube_sched *s, cube_req *req, const cJSON *job,
                       const char *project, const char *name, int grace)
{
    struct cube_actor who = cube_auth_actor(req);
    const char *uid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "metadata"), "uid"));
    char msg[200];
    if (grace >= 0)
        snprintf(msg, sizeof msg, "stop requested by %s (grace %d s)", who.user, grace);
    else
        snprintf(msg, sizeof msg, "stop requested by %s", who.user);
    cube_obj_record_event(s->ctx, s->job_kind, project, name, uid ? uid : "", "stop",
                          who.user, 200, "Normal", "StopRequested", msg);
}

/* POST .../jobs/{name}/stop [{"graceSeconds": n}]: SIGTERM, then SIGKILL. */
static int stop_action(void *state, cube_req *req)
{
    struct cube_sched *s = ((struct cube_ctx *)state)->sched;
    const char *project = cube_route_match_param(&req->match, "project");
    const char *name = cube_route_match_param(&req->match, "name");
    cJSON *body = req->body_len ? cJSON_Parse(req->body) : NULL, *job = NULL;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(body, "graceSeconds");
    struct cube_op_error e;
    if ((req->body_len && !cJSON_IsObject(body)) ||
        (g && (!cJSON_IsNumber(g) || g->valuedouble < 0 || g->valuedouble > 3600))) {
        cJSON_Delete(body);
        return cube_http_answer_error_field(req, 400, "BadRequest",
                                            "graceSeconds: a number of seconds, 0 to 3600",
                                            "graceSeconds");
    }
    int grace = g ? (int)g->valuedouble : -1;
    stop_job(s, project, name, grace);
    cJSON_Delete(body);
    if (cube_obj_get(s->ctx, s->job_kind, project, name, &job, &e) < 0)
        return cube_http_answer_error(req, e.status, e.code, e.message);
    audit_stop(s, req, job, project, name, grace);
    char *text = cJSON_PrintUnformatted(job);
    cJSON_Delete(job);
    int rc = cube_http_answer(req, 200, "application/json", text, strlen(text), 1);
    free(text);
    return rc;
}

int job_actions_register(struct cube_sched *s)
{
    const struct cube_action_desc stop = {
        sizeof stop, "Job", "POST", "stop", CUBE_PERM_PROJECT_OPERATE, stop_action,
        "Stop the Job: SIGTERM to its replicas, SIGKILL after graceSeconds (default 10)"};
    char err[256];
    if (cube_kinds_add_action(&s->ctx->kinds, &s->ctx->core, &stop, err, sizeof err) != CUBE_OK) {
        cube_log(CUBE_LOG_ERROR, "jobs", "stop action: %s", err);
        return -1;
    }
    return 0;
}
