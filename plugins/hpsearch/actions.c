/* actions.c — the Experiment's sub-resources:
 *   POST .../experiments/{name}/stop     stop: running trials are stopped,
 *                                         then the experiment is Stopped
 *   POST .../experiments/{name}/resume   go on (to maxTrials) after a stop,
 *                                         a failure or the duration limit
 *   POST .../experiments/{name}/trials   {"parameters": {...}}: a trial of
 *                                         the user's choice, checked against
 *                                         the search space (422 naming the
 *                                         parameter), run before the tuner's
 *   GET  .../experiments/{name}/trials   every trial: parameters, phase,
 *                                         final value, intermediate results
 *                                         (?curves=0: without), duration
 * The writes go to the Experiment's status (stopRequested, requests, phase)
 * with its resourceVersion, again on a conflict; the controller acts on
 * them. The host checks the permission (project:operate, a dev only for
 * their own experiments; project:view to read) and that it exists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpsearch.h"

/* What an action does to the status: 0 to write it, else an HTTP status
 * it answered with (msg, code). */
typedef int (*edit_fn)(struct hs *p, const cJSON *obj, cJSON *st, void *ctx, char *msg,
                       size_t len);

static int answer_error(struct hs *p, cube_req *req, int status, const char *msg)
{
    const char *code = status == 404 ? "NotFound" : status == 409 ? "Conflict"
                       : status == 422 ? "Invalid" : status == 400 ? "BadRequest"
                       : "Unavailable";
    return p->host->resp_error(req, status, code, msg);
}

/* Reads, edits and writes the status, again when another write came first. */
static int edit(struct hs *p, cube_req *req, edit_fn fn, void *ctx, int ok_status)
{
    const char *project = p->host->req_param(req, "project"), *name = p->host->req_param(req, "name");
    char msg[600];
    for (int attempt = 0; attempt < 8; attempt++) {
        int rc;
        cJSON *obj = cu_json_take(p->host, p->host->obj_get(p->self, "Experiment", project,
                                                            name, &rc));
        if (!obj)
            return answer_error(p, req, rc == CUBE_ENOTFOUND ? 404 : 503, "cannot read it");
        const cJSON *stored = cJSON_GetObjectItemCaseSensitive(obj, "status");
        cJSON *st = stored ? cJSON_Duplicate(stored, 1) : cJSON_CreateObject();
        int status = fn(p, obj, st, ctx, msg, sizeof msg);
        if (status) {
            cJSON_Delete(st);
            cJSON_Delete(obj);
            return status < 300 ? p->host->resp_json(req, status, msg)
                                : answer_error(p, req, status, msg);
        }
        char *doc = cJSON_PrintUnformatted(st);
        char *out = doc ? p->host->obj_update_status(p->self, "Experiment", project, name, doc,
                                                     cu_meta(obj, "resourceVersion"), &rc)
                        : NULL;
        free(doc);
        cJSON_Delete(st);
        cJSON_Delete(obj);
        if (out) {
            int r = p->host->resp_json(req, ok_status, out);
            p->host->free(out);
            return r;
        }
        if (rc != CUBE_ECONFLICT)
            break;
    }
    return answer_error(p, req, 503, "the experiment's status could not be written; try again");
}

static int terminal(const char *phase)
{
    return phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed") ||
                     !strcmp(phase, "Stopped"));
}

/* Running again from now (resume, a trial added to an ended experiment). */
static void run_again(cJSON *st)
{
    char now[40];
    hs_now(now, sizeof now);
    cu_set_str(st, "phase", "Running");
    cu_set_str(st, "activeSince", now);
    cJSON_DeleteItemFromObjectCaseSensitive(st, "finished");
    cJSON_DeleteItemFromObjectCaseSensitive(st, "message");
    cJSON_DeleteItemFromObjectCaseSensitive(st, "stopRequested");
}

static int do_stop(struct hs *p, const cJSON *obj, cJSON *st, void *ctx, char *msg, size_t len)
{
    (void)p, (void)obj, (void)ctx;
    if (terminal(cu_str(st, "phase"))) {
        snprintf(msg, len, "the experiment has ended (%s)", cu_str(st, "phase"));
        return 409;
    }
    cu_set_item(st, "stopRequested", cJSON_CreateTrue());
    return 0;
}

static int do_resume(struct hs *p, const cJSON *obj, cJSON *st, void *ctx, char *msg,
                     size_t len)
{
    (void)ctx;
    const char *phase = cu_str(st, "phase");
    if (!terminal(phase)) {
        snprintf(msg, len, "the experiment is running");
        return 409;
    }
    struct hp_err e;
    int rc;
    struct hs_exp *x = hs_memo_take(p, obj, &e, &rc);
    if (x) {
        int own = 0;
        for (int i = 0; i < x->n; i++)
            own += !x->trials[i].foreign;
        int left = !x->tuner_done && own < x->spec.max_trials;
        long long max = (long long)x->spec.max_trials;
        hs_memo_release(x);
        if (!left) {
            snprintf(msg, len, "nothing is left to run: %d trials of maxTrials %lld were made "
                     "(or the tuner has no more); raise spec.maxTrials first", own, max);
            return 409;
        }
    }
    run_again(st);
    return 0;
}

struct add_ctx {
    cJSON *params;
};

static int do_add(struct hs *p, const cJSON *obj, cJSON *st, void *ctx, char *msg, size_t len)
{
    struct add_ctx *a = ctx;
    struct hp_err e = {.field = "", .msg = ""};
    int rc;
    if (!strcmp(cu_str_or(st, "phase", ""), "Stopped")) {
        snprintf(msg, len, "the experiment is stopped: resume it first");
        return 409;
    }
    struct hs_exp *x = hs_memo_take(p, obj, &e, &rc);
    if (!x) {
        snprintf(msg, len, "cannot read the experiment (%s)", e.msg);
        return 503;
    }
    double *cfg = calloc((size_t)x->spec.space->n + 1, sizeof *cfg);
    int bad = !cfg || hp_params_parse(x->spec.space, a->params, HP_BUDGET_PARAM, cfg, &e) < 0;
    hs_memo_release(x);
    free(cfg);
    if (bad) {
        snprintf(msg, len, "parameters%s%s: %s", *e.field ? "." : "", e.field, e.msg);
        return 422;
    }
    cJSON *reqs = cJSON_GetObjectItemCaseSensitive(st, "requests");
    if (!reqs)
        reqs = cJSON_AddArrayToObject(st, "requests");
    if (cJSON_GetArraySize(reqs) >= HS_MAX_REQUESTS) {
        snprintf(msg, len, "%d trials are waiting already", HS_MAX_REQUESTS);
        return 409;
    }
    int seq = (int)cu_num(st, "requestSeq", 0) + 1;
    char id[32], now[40];
    snprintf(id, sizeof id, "r%d", seq);
    hs_now(now, sizeof now);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "id", id);
    cJSON_AddItemToObject(r, "parameters", cJSON_Duplicate(a->params, 1));
    cJSON_AddStringToObject(r, "requested", now);
    cJSON_AddItemToArray(reqs, r);
    cu_set_num(st, "requestSeq", seq);
    if (terminal(cu_str(st, "phase")))
        run_again(st);
    return 0;
}

static int stop_action(void *state, cube_req *req)
{
    return edit(state, req, do_stop, NULL, 202);
}

static int resume_action(void *state, cube_req *req)
{
    return edit(state, req, do_resume, NULL, 202);
}

static int add_trial(void *state, cube_req *req)
{
    struct hs *p = state;
    size_t len;
    const char *body = p->host->req_body(req, &len);
    cJSON *doc = cJSON_ParseWithLength(body, len);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(doc, "parameters");
    int rc;
    if (!cJSON_IsObject(params))
        rc = answer_error(p, req, 422, "parameters: required, an object of the trial's "
                          "parameters");
    else
        rc = edit(p, req, do_add, &(struct add_ctx){(cJSON *)params}, 202);
    cJSON_Delete(doc);
    return rc;
}

static int list_trials(void *state, cube_req *req)
{
    struct hs *p = state;
    const char *project = p->host->req_param(req, "project"), *name = p->host->req_param(req, "name");
    const char *curves = p->host->req_query(req, "curves");
    int rc, with = !curves || (strcmp(curves, "0") && strcmp(curves, "false"));
    cJSON *obj = cu_json_take(p->host, p->host->obj_get(p->self, "Experiment", project, name,
                                                        &rc));
    struct hp_err e = {.field = "", .msg = ""};
    struct hs_exp *x = obj ? hs_memo_take(p, obj, &e, &rc) : NULL;
    cJSON_Delete(obj);
    if (!x)
        return answer_error(p, req, rc == CUBE_ENOTFOUND ? 404 : rc == CUBE_EINVAL ? 409 : 503,
                            *e.msg ? e.msg : "cannot read the experiment");
    cJSON *out = cJSON_CreateObject(), *items;
    cJSON_AddStringToObject(out, "kind", "TrialList");
    cJSON_AddStringToObject(out, "experiment", x->name);
    cJSON_AddStringToObject(out, "metric", x->spec.metric);
    cJSON_AddStringToObject(out, "direction", x->spec.maximize ? "maximize" : "minimize");
    items = cJSON_AddArrayToObject(out, "items");
    for (int i = 0; i < x->n; i++) {
        if (with && hs_trial_active(&x->trials[i]) && !x->spec.assessor)
            hs_results_read(p, x, &x->trials[i]);   /* live curves on demand */
        cJSON_AddItemToArray(items, hs_trial_json(x, &x->trials[i], with));
    }
    hs_memo_release(x);
    char *text = cJSON_PrintUnformatted(out);
    cJSON_Delete(out);
    rc = text ? p->host->resp_json(req, 200, text)
              : answer_error(p, req, 503, "out of memory");
    free(text);
    return rc;
}

int hs_actions_register(struct hs *p)
{
    const struct cube_action_desc acts[] = {
        {sizeof acts[0], "Experiment", "POST", "stop", CUBE_PERM_PROJECT_OPERATE, stop_action,
         "Stop the experiment: its running trials are stopped"},
        {sizeof acts[0], "Experiment", "POST", "resume", CUBE_PERM_PROJECT_OPERATE,
         resume_action, "Go on after a stop, a failure or the duration limit, to maxTrials"},
        {sizeof acts[0], "Experiment", "POST", "trials", CUBE_PERM_PROJECT_OPERATE, add_trial,
         "Add a trial with the parameters given ({\"parameters\": {...}})"},
        {sizeof acts[0], "Experiment", "GET", "trials", CUBE_PERM_PROJECT_VIEW, list_trials,
         "The trials: parameters, phase, final value, intermediate results, duration"},
    };
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
        if (p->host->register_action(p->self, &acts[i]) != CUBE_OK) {
            p->host->set_error(p->self, "cannot register the %s action (see the log)",
                               acts[i].action);
            return -1;
        }
    return 0;
}
