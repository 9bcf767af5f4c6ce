/* actions.c — what users do with pipelines and runs:
 *   POST .../pipelines/{name}/run        [{executionDate}]  -> the new run
 *   POST .../pipelines/{name}/backfill   {start, end}       -> runs per tick
 *   POST .../pipelines/{name}/copy       {name}             -> the copy
 *   POST .../pipelineruns/{name}/stop
 *   POST .../pipelineruns/{name}/rerun   [{from: task}]
 *   GET  .../pipelineruns/{name}/tasks/{task}/logs[?follow=1&offset=N]
 *   GET  .../pipelineruns/{name}/tasks/{task}/results/{file}  (outputs.c)
 * Runs and copies are created by the plugin for the user who asked (the
 * host makes them their owner), so "operating" them is checked here: ops
 * and above, or the dev who owns the object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

int pl_resp_error(struct pl *p, cube_req *req, int status, const char *code, const char *msg)
{
    return p->host->resp_error(req, status, code, msg);
}

int pl_resp_obj(struct pl *p, cube_req *req, int status, char *text, int rc)
{
    if (!text) {
        int st = rc == CUBE_ENOTFOUND ? 404 : rc == CUBE_EEXIST ? 409 : rc == CUBE_EINVAL ? 422
                 : rc == CUBE_ECONFLICT ? 409 : rc == CUBE_EPERM ? 403 : 503;
        const char *why = rc == CUBE_ENOTFOUND ? "no such object"
            : rc == CUBE_EEXIST ? "an object of that name already exists in this project"
            : rc == CUBE_ECONFLICT ? "the object changed meanwhile; read it again and retry"
            : rc == CUBE_EPERM ? "your role in this project does not allow that"
            : rc == CUBE_EINVAL ? "the object does not pass its kind's validation"
            : "the store is unavailable; retry";
        return p->host->resp_error(req, st, st == 404 ? "NotFound" : st == 409 ? "Conflict"
                                   : st == 422 ? "Invalid" : st == 403 ? "Forbidden"
                                   : "Unavailable", why);
    }
    int r = p->host->resp_json(req, status, text);
    p->host->free(text);
    return r;
}

/* The body as a JSON object ({} when empty), or NULL after answering 400. */
cJSON *pl_body_object(struct pl *p, cube_req *req)
{
    size_t len;
    const char *b = p->host->req_body(req, &len);
    cJSON *o = len ? cJSON_Parse(b) : cJSON_CreateObject();
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        pl_resp_error(p, req, 400, "BadRequest", "the body must be a JSON object");
        return NULL;
    }
    return o;
}

/* The object named by the request, or NULL after answering 404. */
cJSON *pl_req_object(struct pl *p, cube_req *req, const char *kind)
{
    int rc;
    const char *project = p->host->req_param(req, "project");
    const char *name = p->host->req_param(req, "name");
    cJSON *o = cu_json_take(p->host, p->host->obj_get(p->self, kind, project, name, &rc));
    if (!o)
        pl_resp_obj(p, req, 0, NULL, rc);
    return o;
}

/* ops and above, or the dev the object is for; else answers 403. */
int pl_may_operate(struct pl *p, cube_req *req, const cJSON *obj)
{
    const char *role = p->host->req_project_role(req, p->host->req_param(req, "project"));
    const char *user = p->host->req_user(req);
    if (role && (!strcmp(role, "admin") || !strcmp(role, "creator") || !strcmp(role, "ops")))
        return 1;
    const char *owner = cu_meta(obj, "owner");
    if (role && !strcmp(role, "dev") && user && owner && !strcmp(owner, user))
        return 1;
    pl_resp_error(p, req, 403, "Forbidden", "only ops, or the dev who owns it, may do that");
    return 0;
}

static int run_action(void *state, cube_req *req)
{
    struct pl *p = state;
    cJSON *body = pl_body_object(p, req), *pl = body ? pl_req_object(p, req, "Pipeline") : NULL;
    int rc = CUBE_OK, r;
    char name[PL_NAME_MAX + 1], msg[PL_ERR];
    if (!pl || !pl_may_operate(p, req, pl))
        goto out;
    const char *date = cu_str(body, "executionDate");
    int64_t t = date ? pl_time_parse(date) : pl_now();
    if (t < 0) {
        pl_resp_error(p, req, 422, "Invalid", "executionDate: not an ISO 8601 date or date-time");
        goto out;
    }
    char *run = pl_run_create(p, req, pl, t, "manual", name, sizeof name, &rc, msg,
                              sizeof msg);
    if (run)
        pl_note_queued(p, cu_meta(pl, "project"), cu_meta(pl, "name"), 0, name);
    if (!run && rc == CUBE_EINVAL)
        pl_resp_error(p, req, 422, "Invalid", msg);
    else
        pl_resp_obj(p, req, 201, run, rc);
out:
    r = CUBE_OK;
    cJSON_Delete(body);
    cJSON_Delete(pl);
    return r;
}

/* {"created": [names], "existing": n} for the ticks in [start, end], both
 * inclusive; bare dates are days in the pipeline's time zone
 * (pl_schedule_range). */
static int backfill_action(void *state, cube_req *req)
{
    struct pl *p = state;
    cJSON *body = pl_body_object(p, req), *pl = body ? pl_req_object(p, req, "Pipeline") : NULL;
    int64_t *ticks = NULL;
    char msg[PL_ERR], name[PL_NAME_MAX + 1];
    if (!pl || !pl_may_operate(p, req, pl))
        goto out;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(pl, "spec");
    int64_t start, end;
    if (pl_schedule_range(spec, cu_str(body, "start"), cu_str(body, "end"), &start, &end, msg,
                          sizeof msg) < 0) {
        pl_resp_error(p, req, 422, "Invalid", msg);
        goto out;
    }
    int n = pl_schedule_ticks(spec, start, end, p->max_backfill, 0, &ticks, msg, sizeof msg);
    if (n < 0) {
        pl_resp_error(p, req, 422, "Invalid", msg);
        goto out;
    }
    cJSON *res = cJSON_CreateObject(), *made = cJSON_AddArrayToObject(res, "created");
    int existing = 0;
    for (int i = 0; i < n; i++) {
        int rc;
        char *run = pl_run_create(p, req, pl, ticks[i], "backfill", name,
                                  sizeof name, &rc, msg, sizeof msg);
        if (run)
            cJSON_AddItemToArray(made, cJSON_CreateString(name));
        existing += !run && rc == CUBE_EEXIST;
        p->host->free(run);
    }
    int nmade = cJSON_GetArraySize(made);
    if (nmade)
        pl_note_queued(p, cu_meta(pl, "project"), cu_meta(pl, "name"), nmade,
                       cJSON_GetStringValue(cJSON_GetArrayItem(made, nmade - 1)));
    cJSON_AddNumberToObject(res, "existing", existing);
    cJSON_AddNumberToObject(res, "ticks", n);
    char *text = cJSON_PrintUnformatted(res);
    cJSON_Delete(res);
    p->host->resp_json(req, 201, text);
    free(text);
out:
    free(ticks);
    cJSON_Delete(body);
    cJSON_Delete(pl);
    return CUBE_OK;
}

static int copy_action(void *state, cube_req *req)
{
    struct pl *p = state;
    cJSON *body = pl_body_object(p, req), *pl = body ? pl_req_object(p, req, "Pipeline") : NULL;
    int rc;
    if (!pl)
        goto out;
    const char *to = cu_str(body, "name");
    if (!to) {
        pl_resp_error(p, req, 422, "Invalid", "name: required, the new pipeline's name");
        goto out;
    }
    cJSON *copy = cJSON_CreateObject(), *meta = cJSON_AddObjectToObject(copy, "metadata");
    cJSON_AddStringToObject(copy, "kind", "Pipeline");
    cJSON_AddStringToObject(meta, "name", to);
    cJSON_AddStringToObject(meta, "project", cu_meta(pl, "project"));
    cJSON_AddItemToObject(copy, "spec", cJSON_DetachItemFromObjectCaseSensitive(pl, "spec"));
    char *doc = cJSON_PrintUnformatted(copy);
    cJSON_Delete(copy);
    pl_resp_obj(p, req, 201, doc ? p->host->obj_create_for(p->self, req, doc, &rc) : NULL,
                doc ? rc : CUBE_EUNAVAIL);
    free(doc);
out:
    cJSON_Delete(body);
    cJSON_Delete(pl);
    return CUBE_OK;
}

int pl_pipeline_actions(struct pl *p)
{
    const struct cube_action_desc acts[] = {
        {sizeof acts[0], "Pipeline", "POST", "run", CUBE_PERM_PROJECT_VIEW, run_action,
         "Run the pipeline now: answers the new PipelineRun"},
        {sizeof acts[0], "Pipeline", "POST", "backfill", CUBE_PERM_PROJECT_VIEW,
         backfill_action, "One run per cron tick in [start, end], both inclusive; dates are days in the pipeline's time zone"},
        {sizeof acts[0], "Pipeline", "POST", "copy", CUBE_PERM_PROJECT_EDIT, copy_action,
         "Copy the pipeline under a new name ({name})"},
    };
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
        if (p->host->register_action(p->self, &acts[i]) != CUBE_OK)
            return -1;
    return 0;
}
