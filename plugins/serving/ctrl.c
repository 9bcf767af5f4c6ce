/* ctrl.c — the InferenceService controller. Each reconcile reads the
 * service, its Jobs (label cube.dev/inferenceservice, controller
 * reference with its uid) and its predictors' Models; records a revision
 * when the spec changed (status.revisions, for rollback); steps each
 * predictor (ctrl_rollout.c); puts the ready replicas and the traffic
 * weights into the routing table and wakes requests parked for a replica;
 * stops retired replicas once their requests ended; sets the public
 * service's API key with the proxy; and writes the status when it
 * changed. Status:
 *   {phase: Pending|Ready|Idle|Failed, url, reason, message, revision,
 *    observedGeneration, revisions: [{revision, created, spec}],
 *    predictors: [{name, template, next, failedTemplate, ready, desired,
 *                  model, reason, message}],
 *    traffic: [{predictor, percent}] as applied, mirror as applied} */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cube/util/json.h>

#include "ctrl.h"

#define MAX_REVISIONS 20

time_t sv_parse_time(const char *s)
{
    struct tm tm = {0};
    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                     &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return timegm(&tm);
}

const cJSON *run_pred(struct sv_run *run, int pi)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(run->spec, "predictors"), pi);
}

const cJSON *run_model(struct sv_run *run, int pi, char *msg, size_t len)
{
    const cJSON *pred = run_pred(run, pi), *m = cJSON_GetArrayItem(run->models, pi);
    if (m && cJSON_IsObject(m)) {
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(m, "status");
        const char *phase = cu_str_or(st, "phase", "Pending");
        if (!strcmp(phase, "Ready"))
            return m;
        snprintf(msg, len, "predictor %s: Model %s is %s%s%s, not Ready", cu_str(pred, "name"),
                 cu_meta(m, "name"), phase, cu_str(st, "message") ? ": " : "",
                 cu_str_or(st, "message", ""));
        return NULL;
    }
    snprintf(msg, len, "predictor %s: Model %s not found in project %s", cu_str(pred, "name"),
             sv_model_ref(pred) ? sv_model_ref(pred) : "(none)", run->project);
    return NULL;
}

int run_desired(struct sv_run *run, int pi, const cJSON *pst)
{
    const cJSON *pred = run_pred(run, pi);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(pred, "replicas");
    const cJSON *as = cJSON_GetObjectItemCaseSensitive(run->spec, "autoscale");
    int lo = (int)cu_num(r, "min", 1), hi = (int)cu_num(r, "max", 1);
    if (!as)
        return lo > 0 ? lo : 1;
    lo = (int)cu_num(as, "minReplicas", lo);
    if (hi < lo)
        hi = lo;
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(pst, "desired");
    int want = cJSON_IsNumber(d) ? d->valueint : lo > 0 ? lo : 1;
    return want < lo ? lo : want > hi ? hi : want;
}

int run_job_is_pred(struct sv_run *run, const cJSON *job, int pi)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(job, "metadata"), *ref;
    const char *pred = cu_str(cJSON_GetObjectItemCaseSensitive(meta, "labels"),
                              "cube.dev/predictor");
    const char *uid = cu_meta(run->obj, "uid");
    int mine = 0;
    cJSON_ArrayForEach(ref, cJSON_GetObjectItemCaseSensitive(meta, "ownerReferences"))
        mine |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ref, "controller")) && uid &&
                !strcmp(cu_str_or(ref, "uid", ""), uid);
    return mine && pred && !strcmp(pred, cu_str_or(run_pred(run, pi), "name", ""));
}

void run_retire(struct sv_run *run, const cJSON *job)
{
    const char *name = cu_meta(job, "name");
    for (int i = 0; i < run->n_retire; i++)
        if (!strcmp(run->retire[i], name))
            return;
    if (name && run->n_retire < (int)(sizeof run->retire / sizeof run->retire[0]))
        run->retire[run->n_retire++] = strdup(name);
}

void run_retire_template(struct sv_run *run, int pi, const char *tmpl)
{
    const cJSON *job;
    cJSON_ArrayForEach(job, run->jobs) {
        const char *t = cu_str(cJSON_GetObjectItemCaseSensitive(
                                   cJSON_GetObjectItemCaseSensitive(job, "metadata"), "labels"),
                               "cube.dev/template");
        if (t && !strcmp(t, tmpl) && run_job_is_pred(run, job, pi))
            run_retire(run, job);
    }
}

int run_was_ready(struct sv_run *run, const char *job)
{
    struct sv *sv = run->sv;
    int found = 0;
    pthread_mutex_lock(&sv->mu);
    for (size_t i = 0; i < sv->n_ready_jobs && !found; i++)
        found = !strcmp(sv->ready_jobs[i], job);
    pthread_mutex_unlock(&sv->mu);
    return found;
}

void run_mark_ready(struct sv_run *run, const char *job)
{
    struct sv *sv = run->sv;
    if (run_was_ready(run, job))
        return;
    run_event(run, "Normal", "ReplicaReady", "replica %s is ready", job);
    pthread_mutex_lock(&sv->mu);
    if (sv->n_ready_jobs == 4096) {
        free(sv->ready_jobs[0]);
        memmove(sv->ready_jobs, sv->ready_jobs + 1, sizeof(char *) * 4095);
        sv->n_ready_jobs--;
    }
    char **v = realloc(sv->ready_jobs, sizeof(char *) * (sv->n_ready_jobs + 1));
    if (v && (v[sv->n_ready_jobs] = strdup(job)))
        sv->n_ready_jobs++;
    if (v)
        sv->ready_jobs = v;
    pthread_mutex_unlock(&sv->mu);
}

void run_forget_job(struct sv_run *run, const char *job)
{
    struct sv *sv = run->sv;
    char k[CUBE_KV_KEY_MAX];
    snprintf(k, sizeof k, "tok/%s/%s", run->project, job);
    sv->host->kv_delete(sv->self, k);
    pthread_mutex_lock(&sv->mu);
    for (size_t i = 0; i < sv->n_ready_jobs; i++)
        if (!strcmp(sv->ready_jobs[i], job)) {
            free(sv->ready_jobs[i]);
            sv->ready_jobs[i] = sv->ready_jobs[--sv->n_ready_jobs];
            break;
        }
    pthread_mutex_unlock(&sv->mu);
}

void run_start(struct sv_run *run, int pi, const char *tmpl, int idx, char *failed, size_t len)
{
    struct sv *sv = run->sv;
    char name[64], msg[64];
    const cJSON *pred = run_pred(run, pi);
    sv_job_name(run->name, cu_str(pred, "name"), tmpl, idx, name, sizeof name);
    const cJSON *model = run_model(run, pi, msg, sizeof msg);
    char *job = sv_job_json(sv, run->obj, pi, model, name, tmpl);
    int rc = CUBE_EINVAL;
    char *out = job ? sv->host->obj_create(sv->self, job, &rc) : NULL;
    free(job);
    sv->host->free(out);
    if (out) {
        run_event(run, "Normal", "ReplicaStarted", "predictor %s: replica %s started",
                  cu_str(pred, "name"), name);
        return;
    }
    if (rc == CUBE_EEXIST)
        return;         /* the previous one of that name is still going away */
    char *why = sv->host->obj_error(sv->self);
    cJSON *e = cJSON_Parse(why ? why : "{}");
    snprintf(failed, len, "the replica's Job %s was refused: %s", name,
             cu_str_or(e, "message", "see cubed's log"));
    cJSON_Delete(e);
    sv->host->free(why);
}

void run_event(struct sv_run *run, const char *type, const char *reason, const char *fmt, ...)
{
    struct sv *sv = run->sv;
    char msg[512], line[sizeof msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line, "%s/%s %s %.400s", run->project, run->name, reason, msg);
    pthread_mutex_lock(&sv->mu);
    int seen = 0;
    for (int i = 0; i < 4; i++)
        seen |= !strcmp(sv->last_event[i], line);
    if (!seen) {
        snprintf(sv->last_event[sv->last_event_at], sizeof sv->last_event[0], "%s", line);
        sv->last_event_at = (sv->last_event_at + 1) % 4;
    }
    pthread_mutex_unlock(&sv->mu);
    if (!seen)
        sv->host->obj_event(sv->self, SV_KIND, run->project, run->name, type, reason, msg);
}

void run_note(struct sv_run *run, cJSON *pst, const char *reason, const char *msg)
{
    (void)run;
    cJSON_DeleteItemFromObjectCaseSensitive(pst, "reason");
    cJSON_DeleteItemFromObjectCaseSensitive(pst, "message");
    if (reason) {
        cu_set_str(pst, "reason", reason);
        cu_set_str(pst, "message", msg);
    }
}

void run_serve(struct sv_run *run, int pi, const struct sv_rep *reps, int n)
{
    memcpy(run->serve[pi], reps, sizeof reps[0] * (size_t)n);
    run->n_serve[pi] = n;
}

/* Loads the Jobs and Models the run reads. */
int run_load(struct sv_run *run)
{
    struct sv *sv = run->sv;
    char sel[160];
    int rc;
    snprintf(sel, sizeof sel, "cube.dev/inferenceservice=%s", run->name);
    cJSON *list = cu_json_take(sv->host, sv->host->obj_list(sv->self, "Job", run->project, sel,
                                                          &rc));
    if (!list)
        return rc;
    run->jobs = cJSON_DetachItemFromObjectCaseSensitive(list, "items");
    cJSON_Delete(list);
    if (!run->jobs)
        run->jobs = cJSON_CreateArray();
    run->models = cJSON_CreateArray();
    const cJSON *pred;
    cJSON_ArrayForEach(pred, cJSON_GetObjectItemCaseSensitive(run->spec, "predictors")) {
        const char *m = sv_model_ref(pred);
        cJSON *model = m ? cu_json_take(sv->host, sv->host->obj_get(sv->self, "Model",
                                                                   run->project, m, &rc))
                         : NULL;
        cJSON_AddItemToArray(run->models, model ? model : cJSON_CreateNull());
    }
    return CUBE_OK;
}

void run_free(struct sv_run *run)
{
    for (int i = 0; i < run->n_retire; i++)
        free(run->retire[i]);
    cJSON_Delete(run->jobs);
    cJSON_Delete(run->models);
    cJSON_Delete(run->obj);
}

/* A new revision when the spec changed since the last one recorded. */
void run_record_revision(struct sv_run *run, cJSON *st)
{
    double gen = cu_num(cJSON_GetObjectItemCaseSensitive(run->obj, "metadata"), "generation", 1);
    if (cu_num(st, "observedGeneration", -1) == gen)
        return;
    cJSON *revs = cJSON_GetObjectItemCaseSensitive(st, "revisions");
    if (!cJSON_IsArray(revs)) {
        cJSON_DeleteItemFromObjectCaseSensitive(st, "revisions");
        revs = cJSON_AddArrayToObject(st, "revisions");
    }
    cJSON *rev = cJSON_CreateObject();
    char now[32];
    time_t t = (time_t)(run->now_ms / 1000);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    cJSON_AddNumberToObject(rev, "revision", gen);
    cJSON_AddStringToObject(rev, "created", now);
    cJSON_AddItemToObject(rev, "spec", cJSON_Duplicate(run->spec, 1));
    cJSON_AddItemToArray(revs, rev);
    while (cJSON_GetArraySize(revs) > MAX_REVISIONS)
        cJSON_DeleteItemFromArray(revs, 0);
    cu_set_num(st, "observedGeneration", gen);
    cu_set_num(st, "revision", gen);
    run_event(run, "Normal", "Revision", "revision %.0f recorded", gen);
}

/* The predictors' status entries in spec order (matched by name). */
cJSON *run_pred_statuses(struct sv_run *run, const cJSON *st)
{
    cJSON *out = cJSON_CreateArray();
    const cJSON *pred, *old;
    cJSON_ArrayForEach(pred, cJSON_GetObjectItemCaseSensitive(run->spec, "predictors")) {
        cJSON *e = NULL;
        cJSON_ArrayForEach(old, cJSON_GetObjectItemCaseSensitive(st, "predictors"))
            if (!strcmp(cu_str_or(old, "name", ""), cu_str_or(pred, "name", "-")))
                e = cJSON_Duplicate(old, 1);
        if (!e) {
            e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "name", cu_str_or(pred, "name", ""));
        }
        cu_set_str(e, "model", sv_model_ref(pred));
        cJSON_AddItemToArray(out, e);
    }
    return out;
}
