/* ctrl_apply.c — the reconcile entry: steps the predictors, applies the
 * outcome to the routing table (ready replicas, traffic as applied, the
 * mirror), wakes parked requests, stops drained retired replicas, sets a
 * public service's API key with the proxy and writes the status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cube/util/json.h>

#include "ctrl.h"

static int64_t wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The traffic share of predictor pi (the first gets 100 without
 * spec.traffic). */
static int weight_of(const cJSON *spec, int pi)
{
    const cJSON *traffic = cJSON_GetObjectItemCaseSensitive(spec, "traffic"), *t;
    const char *name = cu_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(spec,
                                                                                 "predictors"),
                                                 pi), "name");
    if (!traffic)
        return pi == 0 ? 100 : 0;
    cJSON_ArrayForEach(t, traffic)
        if (name && !strcmp(cu_str_or(t, "predictor", ""), name))
            return (int)cu_num(t, "percent", 0);
    return 0;
}

/* Puts the run's outcome into the routing table; returns 1 when a
 * predictor with traffic has a ready replica. */
static int apply_table(struct sv_run *run, const cJSON *psts)
{
    struct sv *sv = run->sv;
    char key[128];
    int n_preds = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(run->spec, "predictors"));
    int any = 0, can = 0;
    sv_key(run->project, run->name, key, sizeof key);
    const cJSON *as = cJSON_GetObjectItemCaseSensitive(run->spec, "autoscale");
    const cJSON *mirror = cJSON_GetObjectItemCaseSensitive(run->spec, "mirror");
    pthread_mutex_lock(&sv->table.mu);
    struct sv_svc *s = sv_table_find(&sv->table, key, 1);
    if (!s) {
        pthread_mutex_unlock(&sv->table.mu);
        return 0;
    }
    for (int pi = 0; pi < n_preds && pi < SV_MAX_PRED; pi++) {
        const cJSON *pred = run_pred(run, pi), *pst = cJSON_GetArrayItem(psts, pi);
        int w = weight_of(run->spec, pi);
        sv_table_set_pred(&sv->table, s, pi, cu_str_or(pred, "name", ""), w,
                          run->serve[pi], run->n_serve[pi]);
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(pred, "replicas");
        s->preds[pi].min = (int)cu_num(as, "minReplicas", cu_num(r, "min", 1));
        s->preds[pi].max = (int)cu_num(r, "max", 1);
        s->preds[pi].desired = (int)cu_num(pst, "desired", 1);
        any |= w > 0 && run->n_serve[pi] > 0;
        /* can serve later: has a template, or is still starting its first */
        can |= w > 0 && (cu_str(pst, "template") || !cu_str(pst, "failedTemplate"));
    }
    for (int pi = n_preds; pi < s->n_preds; pi++)   /* predictors removed from the spec */
        sv_table_set_pred(&sv->table, s, pi, "", 0, NULL, 0);
    s->n_preds = n_preds < SV_MAX_PRED ? n_preds : SV_MAX_PRED;
    s->mirror = mirror ? sv_pred_index(run->spec, cu_str(mirror, "predictor")) : -1;
    s->mirror_percent = mirror ? (unsigned)cu_num(mirror, "percent", 0) : 0;
    s->as_on = as != NULL;
    const char *metric = cu_str_or(as, "metric", "concurrency");
    s->as_metric = !strcmp(metric, "qps") ? 1 : !strcmp(metric, "cpu") ? 2 : 0;
    s->as_target = cu_num(as, "target", 4);
    s->as_delay_ms = (int64_t)cu_num(as, "scaleDownDelaySeconds", 30) * 1000;
    s->failed = !any && !can;
    if (s->failed) {
        const cJSON *pst;
        s->message[0] = '\0';
        cJSON_ArrayForEach(pst, psts)
            if (cu_str(pst, "message") && !s->message[0])
                snprintf(s->message, sizeof s->message, "%s", cu_str(pst, "message"));
    }
    if (!s->last_ms)
        s->last_ms = run->now_ms;
    int wake = any || s->failed;
    if (wake)
        s->wanted = 0;
    pthread_mutex_unlock(&sv->table.mu);
    if (wake && sv->proxied)
        sv->host->proxy_wake(sv->self, SV_PREFIX, key);
    return any;
}

/* Stops retired replicas whose requests have ended; 1 when some wait. */
static int stop_retired(struct sv_run *run)
{
    struct sv *sv = run->sv;
    char key[128];
    int waiting = 0;
    sv_key(run->project, run->name, key, sizeof key);
    for (int i = 0; i < run->n_retire; i++) {
        pthread_mutex_lock(&sv->table.mu);
        struct sv_svc *s = sv_table_find(&sv->table, key, 0);
        int64_t n = s ? sv_table_job_inflight(&sv->table, s, run->retire[i]) : 0;
        pthread_mutex_unlock(&sv->table.mu);
        if (n > 0) {
            waiting = 1;
            continue;
        }
        int rc = sv->host->obj_delete(sv->self, "Job", run->project, run->retire[i]);
        if (rc == CUBE_OK)
            run_event(run, "Normal", "ReplicaStopped", "replica %s stopped", run->retire[i]);
        if (rc == CUBE_OK || rc == CUBE_ENOTFOUND)
            run_forget_job(run, run->retire[i]);
        pthread_mutex_lock(&sv->table.mu);
        if ((s = sv_table_find(&sv->table, key, 0)))
            sv_table_forget_job(&sv->table, s, run->retire[i]);
        pthread_mutex_unlock(&sv->table.mu);
    }
    return waiting;
}

/* The public service's API key (or none) with the proxy. */
static void apply_credential(struct sv_run *run)
{
    struct sv *sv = run->sv;
    char key[128], hash[65];
    if (!sv->proxied)
        return;
    sv_key(run->project, run->name, key, sizeof key);
    int pub = cu_bool(run->spec, "public", 0);
    if (pub && sv_apikey_hash(sv, run->project, run->name, hash) == 0)
        sv->host->proxy_credential_set(sv->self, SV_PREFIX, key, hash);
    else
        sv->host->proxy_credential_set(sv->self, SV_PREFIX, key, NULL);
}

static void set_phase(struct sv_run *run, cJSON *st, const cJSON *psts, int serving)
{
    char url[256];
    int starting = 0, idle = 0;
    const cJSON *pst;
    const char *msg = NULL;
    cJSON_ArrayForEach(pst, psts) {
        starting |= cu_num(pst, "ready", 0) < cu_num(pst, "desired", 1);
        idle |= cu_num(pst, "desired", 1) == 0;
        if (!msg)
            msg = cu_str(pst, "message");
    }
    snprintf(url, sizeof url, "/serving/%s/%s/", run->project, run->name);
    const char *phase = serving ? "Ready" : idle ? "Idle" : msg && !starting ? "Failed"
                        : "Pending";
    cu_set_str(st, "phase", phase);
    cu_set_str(st, "url", url);
    cJSON_DeleteItemFromObjectCaseSensitive(st, "message");
    if (msg)
        cu_set_str(st, "message", msg);
    cJSON *traffic = cJSON_CreateArray();
    for (int pi = 0; pi < cJSON_GetArraySize(psts); pi++) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "predictor", cu_str_or(cJSON_GetArrayItem(psts, pi), "name", ""));
        cJSON_AddNumberToObject(t, "percent", weight_of(run->spec, pi));
        cJSON_AddItemToArray(traffic, t);
    }
    cu_set_item(st, "traffic", traffic);
}

static int write_status(struct sv *sv, struct sv_run *run, const cJSON *old, const cJSON *st)
{
    char *a = old ? cJSON_PrintUnformatted(old) : NULL, *b = cJSON_PrintUnformatted(st);
    int rc = CUBE_OK;
    if (b && (!a || strcmp(a, b))) {
        char *out = sv->host->obj_update_status(sv->self, SV_KIND, run->project, run->name, b,
                                                cu_meta(run->obj, "resourceVersion"), &rc);
        sv->host->free(out);
    }
    free(a);
    free(b);
    return rc;
}

int sv_reconcile(void *state, const char *kind, const char *project, const char *name,
                 const char *object_json)
{
    (void)kind;
    struct sv *sv = state;
    char key[128];
    sv_key(project, name, key, sizeof key);
    if (!object_json) {
        pthread_mutex_lock(&sv->table.mu);
        sv_table_remove(&sv->table, key);
        pthread_mutex_unlock(&sv->table.mu);
        if (sv->proxied) {
            sv->host->proxy_credential_set(sv->self, SV_PREFIX, key, NULL);
            sv->host->proxy_wake(sv->self, SV_PREFIX, key);
        }
        return CUBE_OK;
    }
    struct sv_run run = {.sv = sv, .project = project, .name = name, .now_ms = wall_ms()};
    run.obj = cJSON_Parse(object_json);
    run.spec = cJSON_GetObjectItemCaseSensitive(run.obj, "spec");
    if (!run.obj || cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
                        run.obj, "metadata"), "deletionTimestamp")) {
        cJSON_Delete(run.obj);
        return CUBE_OK;
    }
    int rc = run_load(&run);
    if (rc != CUBE_OK) {
        run_free(&run);
        return rc;
    }
    const cJSON *old = cJSON_GetObjectItemCaseSensitive(run.obj, "status");
    cJSON *st = old ? cJSON_Duplicate(old, 1) : cJSON_CreateObject();
    run_record_revision(&run, st);
    cJSON *psts = run_pred_statuses(&run, st);
    int poll = 0;
    for (int pi = 0; pi < cJSON_GetArraySize(psts) && pi < SV_MAX_PRED; pi++) {
        int p = sv_rollout(&run, pi, cJSON_GetArrayItem(psts, pi));
        if (p && (!poll || p < poll))
            poll = p;
    }
    /* Jobs of this service that no predictor claims any more (a removed
     * predictor, an old template) are retired too. */
    const cJSON *job;
    cJSON_ArrayForEach(job, run.jobs) {
        int claimed = 0;
        const char *t = cu_str(cJSON_GetObjectItemCaseSensitive(
                                   cJSON_GetObjectItemCaseSensitive(job, "metadata"), "labels"),
                               "cube.dev/template");
        for (int pi = 0; pi < cJSON_GetArraySize(psts); pi++) {
            const cJSON *pst = cJSON_GetArrayItem(psts, pi);
            claimed |= run_job_is_pred(&run, job, pi) && t &&
                       ((cu_str(pst, "template") && !strcmp(t, cu_str(pst, "template"))) ||
                        (cu_str(pst, "next") && !strcmp(t, cu_str(pst, "next"))) ||
                        !cu_str(pst, "template"));
        }
        if (!claimed)
            run_retire(&run, job);
    }
    int serving = apply_table(&run, psts);
    if (stop_retired(&run))
        poll = poll ? poll : 200;
    apply_credential(&run);
    for (int pi = 0; pi < cJSON_GetArraySize(psts); pi++) {
        const cJSON *pst = cJSON_GetArrayItem(psts, pi);
        sv_metrics_replicas(sv, project, name, cu_str_or(pst, "name", ""),
                            (int)cu_num(pst, "ready", 0), (int)cu_num(pst, "desired", 0));
    }
    cu_set_item(st, "predictors", psts);
    set_phase(&run, st, psts, serving);
    int wrc = write_status(sv, &run, old, st);
    cJSON_Delete(st);
    run_free(&run);
    if (wrc == CUBE_ECONFLICT)
        poll = 10;          /* changed meanwhile (the autoscaler, an edit): look again */
    else if (wrc != CUBE_OK && wrc != CUBE_ENOTFOUND)
        return wrc;
    if (!poll)
        return CUBE_OK;
    sv->host->retry_after(sv->self, (unsigned)poll);
    return CUBE_EAGAIN;
}

int sv_finalize(void *state, const char *object_json)
{
    (void)state;
    (void)object_json;
    return CUBE_OK;      /* its Jobs go with it (ownerReferences) */
}
