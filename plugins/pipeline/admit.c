/* admit.c — which queued runs of a pipeline start (see schedule.c). A run
 * is admitted by removing its label queued=true; the run's controller then
 * starts it. Runs are ordered by execution date. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

static cJSON *list_runs(struct pl *p, const char *project, const char *pipeline,
                        const char *extra)
{
    char sel[200];
    int rc;
    snprintf(sel, sizeof sel, "pipeline=%s%s", pipeline, extra);
    cJSON *l = cu_json_take(p->host, p->host->obj_list(p->self, "PipelineRun", project, sel, &rc));
    cJSON *items = cJSON_DetachItemFromObjectCaseSensitive(l, "items");
    cJSON_Delete(l);
    return items;
}

static const char *exec_date(const cJSON *run)
{
    const char *d = cu_str(cJSON_GetObjectItemCaseSensitive(run, "spec"), "executionDate");
    return d ? d : "";
}

static int by_date(const void *a, const void *b)
{
    return strcmp(exec_date(*(const cJSON *const *)a), exec_date(*(const cJSON *const *)b));
}

/* The items of a list as a sorted array (n entries); free the array only. */
static const cJSON **sorted(const cJSON *items, int *n)
{
    *n = cJSON_GetArraySize(items);
    const cJSON **v = calloc((size_t)*n + 1, sizeof *v), *it;
    int i = 0;
    if (!v)
        return NULL;
    cJSON_ArrayForEach(it, items)
        v[i++] = it;
    qsort(v, (size_t)*n, sizeof *v, by_date);
    return v;
}

/* Drops the queued label of a run (its version must still match). */
static int admit_run(struct pl *p, const cJSON *run)
{
    cJSON *obj = cJSON_Duplicate(run, 1);
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
    cJSON *labels = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "labels");
    cJSON_DeleteItemFromObjectCaseSensitive(labels, "queued");
    char *doc = cJSON_PrintUnformatted(obj);
    int rc = CUBE_ENOMEM;
    char *out = doc ? p->host->obj_update(p->self, doc, &rc) : NULL;
    free(doc);
    cJSON_Delete(obj);
    p->host->free(out);
    return out ? CUBE_OK : rc;
}

/* dependsOnPast: tells on the waiting run (status reason WaitingForPastRun
 * and message) which run it waits for. Written only when it changes; a
 * lost race with the run's controller is settled by the next pass. */
static void note_wait(struct pl *p, const cJSON *run, const char *msg)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(run, "status");
    if (cu_str(st, "message") && !strcmp(cu_str(st, "message"), msg))
        return;
    cJSON *status = cJSON_IsObject(st) ? cJSON_Duplicate(st, 1) : cJSON_CreateObject();
    if (!cu_str(status, "phase"))
        cu_set_str(status, "phase", "Queued");
    cu_set_str(status, "reason", "WaitingForPastRun");
    cu_set_str(status, "message", msg);
    char *doc = cJSON_PrintUnformatted(status);
    int rc;
    char *out = doc ? p->host->obj_update_status(p->self, "PipelineRun", cu_meta(run, "project"),
                                                 cu_meta(run, "name"), doc,
                                                 cu_meta(run, "resourceVersion"), &rc)
                    : NULL;
    free(doc);
    p->host->free(out);
    cJSON_Delete(status);
}

/* dependsOnPast: the earliest queued run, once none runs (active lists
 * the runs started and not finished) and the run before it (scheduled or
 * backfilled) Succeeded; until then the run says which one it waits for.
 * *admitted gets 1 when it started. */
static int admit_in_order(struct pl *p, const cJSON *pipeline, const cJSON *first,
                          const cJSON *active, int *admitted)
{
    char msg[400];
    if (cJSON_GetArraySize(active) > 0) {
        snprintf(msg, sizeof msg, "dependsOnPast: waits for run %s to finish",
                 cu_meta(active->child, "name"));
        note_wait(p, first, msg);
        return CUBE_OK;
    }
    cJSON *all = list_runs(p, cu_meta(pipeline, "project"), cu_meta(pipeline, "name"),
                           ",!queued");
    const cJSON *prev = NULL, *r;
    cJSON_ArrayForEach(r, all) {
        const char *trig = cu_str(cJSON_GetObjectItemCaseSensitive(r, "spec"), "trigger");
        if (trig && !strcmp(trig, "manual"))
            continue;
        if (strcmp(exec_date(r), exec_date(first)) < 0 &&
            (!prev || strcmp(exec_date(r), exec_date(prev)) > 0))
            prev = r;
    }
    const char *ph = prev ? cu_str(cJSON_GetObjectItemCaseSensitive(prev, "status"), "phase")
                          : NULL;
    int go = !prev || (ph && !strcmp(ph, "Succeeded"));
    if (!go) {
        snprintf(msg, sizeof msg, "dependsOnPast: waits for run %s (%s) to succeed; it is %s",
                 cu_meta(prev, "name"), exec_date(prev), ph ? ph : "not started");
        note_wait(p, first, msg);
    }
    int rc = go ? admit_run(p, first) : CUBE_OK;
    *admitted = go && rc == CUBE_OK;
    cJSON_Delete(all);
    return rc;
}

/* expiredLimit: deletes the oldest queued runs beyond the newest `keep`. */
static void expire(struct pl *p, const cJSON *pipeline, const cJSON **q, int n, int keep)
{
    for (int i = 0; i + keep < n; i++) {
        char msg[200];
        const char *rn = cu_meta(q[i], "name");
        if (p->host->obj_delete(p->self, "PipelineRun", cu_meta(pipeline, "project"), rn) !=
            CUBE_OK)
            continue;
        snprintf(msg, sizeof msg, "run %s (%s) dropped: expiredLimit keeps the newest %d",
                 rn, exec_date(q[i]), keep);
        p->host->obj_event(p->self, "Pipeline", cu_meta(pipeline, "project"),
                           cu_meta(pipeline, "name"), "Warning", "Expired", msg);
    }
}

int pl_admit(struct pl *p, const cJSON *pipeline, int *left)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(pipeline, "spec");
    const char *project = cu_meta(pipeline, "project"), *name = cu_meta(pipeline, "name");
    cJSON *queued = list_runs(p, project, name, ",queued=true");
    int nq, rc = CUBE_OK, admitted = 0;
    *left = cJSON_GetArraySize(queued);
    if (*left == 0) {
        cJSON_Delete(queued);
        return CUBE_OK;
    }
    cJSON *active_l = list_runs(p, project, name, ",!queued,!finished");
    int active = cJSON_GetArraySize(active_l);
    const cJSON **q = sorted(queued, &nq);
    if (!q) {
        cJSON_Delete(active_l);
        cJSON_Delete(queued);
        return CUBE_ENOMEM;
    }
    int first = 0, limit = (int)cu_num(spec, "expiredLimit", 0);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(spec, "dependsOnPast"))) {
        rc = admit_in_order(p, pipeline, q[0], active_l, &admitted);
    } else {
        if (limit > 0 && nq > limit) {
            expire(p, pipeline, q, nq, limit);
            first = nq - limit;
        }
        int slots = (int)cu_num(spec, "maxActiveRuns", 3) - active;
        for (int i = first; i < nq && slots > 0; i++, slots--) {
            if (admit_run(p, q[i]) != CUBE_OK)
                rc = CUBE_EUNAVAIL;
            else
                admitted++;
        }
    }
    *left = nq - first - admitted;
    free(q);
    cJSON_Delete(active_l);
    cJSON_Delete(queued);
    return rc;
}
