/* runactions.c — stop and rerun a PipelineRun, read a task's log, fetch
 * its result files (see actions.c for the list and the permission rule). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

static int is_queued(const cJSON *run)
{
    const char *q = cu_str(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(run, "metadata"), "labels"), "queued");
    return q && !strcmp(q, "true");
}

static int mark_stop(void *cls, const cJSON *run, cJSON *status)
{
    (void)cls;
    char now[40];
    if (pl_run_done(cu_str(status, "phase")))
        return 1;
    if (is_queued(run)) {   /* never started: done at once */
        pl_now_text(now, sizeof now);
        cu_set_str(status, "phase", "Stopped");
        cu_set_str(status, "finished", now);
        cu_set_str(status, "message", "stopped while queued");
        return 0;
    }
    cu_set_item(status, "stopRequested", cJSON_CreateTrue());
    return 0;
}

static int answer_run(struct pl *p, cube_req *req)
{
    int rc;
    char *t = p->host->obj_get(p->self, "PipelineRun", p->host->req_param(req, "project"),
                               p->host->req_param(req, "name"), &rc);
    return pl_resp_obj(p, req, 200, t, rc);
}

static int stop_action(void *state, cube_req *req)
{
    struct pl *p = state;
    cJSON *run = pl_req_object(p, req, "PipelineRun");
    if (!run || !pl_may_operate(p, req, run)) {
        cJSON_Delete(run);
        return CUBE_OK;
    }
    const char *project = p->host->req_param(req, "project");
    const char *name = p->host->req_param(req, "name");
    pl_run_edit_status(p, project, name, mark_stop, NULL);
    if (is_queued(run)) {
        cJSON *labels = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(run, "metadata"), "labels");
        cJSON_DeleteItemFromObjectCaseSensitive(labels, "queued");
        pl_run_label(p, run, "finished", "true");
    }
    cJSON_Delete(run);
    return answer_run(p, req);
}

struct rerun {
    const char *from;       /* NULL: the failed tasks */
    char why[PL_ERR];
};

/* Marks task `name` and (with down) everything downstream of it. */
static void mark_down(const cJSON *tasks, const char *name, cJSON *chosen)
{
    const cJSON *t, *u;
    if (cJSON_HasObjectItem(chosen, name))
        return;
    cJSON_AddTrueToObject(chosen, name);
    cJSON_ArrayForEach(t, tasks)
        cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(t, "upstream"))
            if (cJSON_IsString(u) && !strcmp(u->valuestring, name))
                mark_down(tasks, cu_str(t, "name"), chosen);
}

static void reset_task(cJSON *ts)
{
    static const char *const DROP[] = {"job", "started", "finished", "message", "outputs",
                                       "results", "attempts"};
    int gen = (int)cu_num(ts, "rerun", 0) + 1;
    for (size_t i = 0; i < sizeof DROP / sizeof DROP[0]; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(ts, DROP[i]);
    cu_set_str(ts, "phase", "Pending");
    cu_set_num(ts, "rerun", gen);
}

static int mark_rerun(void *cls, const cJSON *run, cJSON *status)
{
    struct rerun *r = cls;
    const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(run, "spec"), "tasks"), *t;
    cJSON *ts_all = cJSON_GetObjectItemCaseSensitive(status, "tasks"), *chosen;
    if (!pl_run_done(cu_str(status, "phase")))
        return snprintf(r->why, sizeof r->why, "the run has not finished"), -1;
    chosen = cJSON_CreateObject();
    if (r->from) {
        mark_down(tasks, r->from, chosen);
    } else {
        cJSON_ArrayForEach(t, tasks) {
            const char *ph = cu_str(cJSON_GetObjectItemCaseSensitive(ts_all, cu_str(t, "name")),
                                    "phase");
            if (ph && (!strcmp(ph, "Failed") || !strcmp(ph, "UpstreamFailed") ||
                       !strcmp(ph, "Stopped")))
                cJSON_AddTrueToObject(chosen, cu_str(t, "name"));
        }
    }
    if (!chosen->child) {
        cJSON_Delete(chosen);
        return snprintf(r->why, sizeof r->why, "no failed or stopped task to run again"), -1;
    }
    cJSON *c;
    cJSON_ArrayForEach(c, chosen) {
        cJSON *ts = cJSON_GetObjectItemCaseSensitive(ts_all, c->string);
        if (ts)
            reset_task(ts);
    }
    cJSON_Delete(chosen);
    cu_set_str(status, "phase", "Running");
    cJSON_DeleteItemFromObjectCaseSensitive(status, "finished");
    cJSON_DeleteItemFromObjectCaseSensitive(status, "stopRequested");
    cJSON_DeleteItemFromObjectCaseSensitive(status, "message");
    cu_set_num(status, "reruns", cu_num(status, "reruns", 0) + 1);
    return 0;
}

/* Nonzero when the run's spec has a task named name. */
static int has_task(const cJSON *run, const char *name)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(
                              cJSON_GetObjectItemCaseSensitive(run, "spec"), "tasks"))
        if (!strcmp(cu_str(t, "name") ? cu_str(t, "name") : "", name))
            return 1;
    return 0;
}

static int rerun_action(void *state, cube_req *req)
{
    struct pl *p = state;
    cJSON *body = pl_body_object(p, req), *run = body ? pl_req_object(p, req, "PipelineRun")
                                                      : NULL;
    struct rerun r = {.from = cu_str(body, "from")};
    if (!run || !pl_may_operate(p, req, run))
        goto out;
    if (r.from && !has_task(run, r.from)) {
        pl_resp_error(p, req, 422, "Invalid", "from: no task of this run has that name");
        goto out;
    }
    int rc = pl_run_edit_status(p, p->host->req_param(req, "project"),
                                p->host->req_param(req, "name"), mark_rerun, &r);
    if (rc == CUBE_EINVAL) {
        pl_resp_error(p, req, 409, "Conflict", r.why);
        goto out;
    }
    pl_run_label(p, run, "finished", NULL);
    answer_run(p, req);
out:
    cJSON_Delete(body);
    cJSON_Delete(run);
    return CUBE_OK;
}

/* GET .../pipelineruns/{name}/tasks/{task}/logs: the task's Job log. */
static int logs_route(void *state, cube_req *req)
{
    struct pl *p = state;
    const struct cube_host *h = p->host;
    cJSON *run = pl_req_object(p, req, "PipelineRun");
    if (!run)
        return CUBE_OK;
    const char *task = h->req_param(req, "task");
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(run, "status"), "tasks"), task ? task : "");
    const char *job = cu_str(ts, "job");
    const char *off = h->req_query(req, "offset"), *follow = h->req_query(req, "follow");
    int rc;
    if (!has_task(run, task ? task : ""))
        rc = h->resp_error(req, 404, "NotFound", "no task of this run has that name");
    else if (!job)
        rc = h->resp_error(req, 404, "NotFound", "the task has not started");
    else
        rc = h->resp_log(req, "Job", h->req_param(req, "project"), job, "replica-0",
                         off ? strtoull(off, NULL, 10) : 0,
                         follow && strcmp(follow, "0") && strcmp(follow, "false"));
    cJSON_Delete(run);
    return rc == CUBE_ENOTFOUND ? h->resp_text(req, 200, NULL, "") : CUBE_OK;
}

int pl_run_actions(struct pl *p)
{
    const struct cube_action_desc acts[] = {
        {sizeof acts[0], "PipelineRun", "POST", "stop", CUBE_PERM_PROJECT_VIEW, stop_action,
         "Stop the run: its running tasks' Jobs are stopped"},
        {sizeof acts[0], "PipelineRun", "POST", "rerun", CUBE_PERM_PROJECT_VIEW, rerun_action,
         "Run failed tasks again, or {from: task} and everything downstream"},
    };
    const struct cube_route_desc routes[] = {
        {sizeof routes[0], "GET", "/api/v1/projects/{project}/pipelineruns/{name}/tasks/{task}/logs",
         CUBE_PERM_PROJECT_VIEW, logs_route, "A task's log (its Job's, replica 0)", 0, 0, NULL},
        {sizeof routes[0], "GET",
         "/api/v1/projects/{project}/pipelineruns/{name}/tasks/{task}/results/{file}",
         CUBE_PERM_PROJECT_VIEW, pl_result_route, "A result file of a task", 0, 0, NULL},
    };
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
        if (p->host->register_action(p->self, &acts[i]) != CUBE_OK)
            return -1;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (p->host->register_route(p->self, &routes[i]) != CUBE_OK)
            return -1;
    return 0;
}
