/* promote.c — POST .../models/{name}/promote {"stage": "production"}
 * (none, staging, production or archived; default production).
 *
 * One production version per family. The family's production version is
 * one key of the plugin's store ("prod/<project>/<family>" = object
 * name), switched in one write: that is the promote. The statuses follow
 * (the previous production version archived first, then this one marked
 * production), under stage_mu so promotes and uploads do not interleave;
 * should cubed stop between the writes, the controller brings every
 * status of the family in line with the key (controller.c), so readers
 * never see two production versions, at most none for the moment between
 * the writes.
 *
 * Who: the action needs project:operate (the version's owner or ops);
 * production needs ops or the project's creator as well (403 for a dev):
 * it changes what the project's services treat as the model. Staging and
 * production need a Ready version (409). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"

static const char *const STAGES[] = {"none", "staging", "production", "archived"};

struct stage_ctx {
    const char *stage, *by, *only_if;   /* only_if: change only from this stage */
};

static int stage_edit(struct mdl *p, const cJSON *obj, cJSON *st, void *ctx, char *msg,
                      size_t mlen)
{
    struct stage_ctx *s = ctx;
    char from[16];
    snprintf(from, sizeof from, "%s", cu_str_or(st, "stage", "none"));   /* st changes below */
    (void)p;
    (void)obj;
    (void)msg;
    (void)mlen;
    if ((s->only_if && strcmp(from, s->only_if)) || !strcmp(from, s->stage))
        return 1;
    char now[40];
    mdl_now(now, sizeof now);
    cu_set_str(st, "stage", s->stage);
    cJSON *h = cJSON_GetObjectItemCaseSensitive(st, "stageHistory");
    if (!cJSON_IsArray(h)) {
        cJSON_DeleteItemFromObjectCaseSensitive(st, "stageHistory");
        h = cJSON_AddArrayToObject(st, "stageHistory");
    }
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "stage", s->stage);
    cJSON_AddStringToObject(e, "from", from);
    cJSON_AddStringToObject(e, "by", s->by);
    cJSON_AddStringToObject(e, "at", now);
    cJSON_AddItemToArray(h, e);
    while (cJSON_GetArraySize(h) > MDL_HISTORY_MAX)
        cJSON_DeleteItemFromArray(h, 0);
    return 0;
}

/* Archives every other version of the family that says production;
 * their names go to demoted. */
static void demote_others(struct mdl *p, const char *project, const char *family,
                          const char *keep, const char *by, cJSON *demoted)
{
    char sel[128], msg[300];
    int rc;
    snprintf(sel, sizeof sel, MDL_LABEL "=%s", family);
    cJSON *list = cu_json_take(p->host, p->host->obj_list(p->self, MDL_KIND, project, sel, &rc));
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(list, "items")) {
        const char *n = cu_meta(it, "name");
        const char *stage = cu_str(cJSON_GetObjectItemCaseSensitive(it, "status"), "stage");
        if (!n || !strcmp(n, keep) || !stage || strcmp(stage, "production"))
            continue;
        struct stage_ctx s = {"archived", by, "production"};
        if (mdl_status_edit(p, project, n, stage_edit, &s, msg, sizeof msg, NULL) == 0) {
            cJSON_AddItemToArray(demoted, cJSON_CreateString(n));
            char why[400];
            snprintf(why, sizeof why, "archived: %s is the production version of %s now", keep,
                     family);
            p->host->obj_event(p->self, MDL_KIND, project, n, "Normal", "Demoted", why);
        }
    }
    cJSON_Delete(list);
}

/* The stage the body asks for into *stage, or an HTTP status with msg. */
static int body_stage(struct mdl *p, cube_req *req, const char **stage, char *msg, size_t len)
{
    size_t n;
    const char *body = p->host->req_body(req, &n);
    cJSON *b = n ? cJSON_ParseWithLength(body, n) : cJSON_CreateObject();
    if (!cJSON_IsObject(b)) {
        cJSON_Delete(b);
        return snprintf(msg, len, "the body must be a JSON object {\"stage\": ...}"), 400;
    }
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(b, "stage");
    *stage = NULL;
    for (size_t i = 0; i < 4; i++)
        if (!s || (cJSON_IsString(s) && !strcmp(s->valuestring, STAGES[i])))
            *stage = s ? STAGES[i] : "production";
    cJSON_Delete(b);
    if (!*stage)
        return snprintf(msg, len, "stage: must be none, staging, production or archived"), 422;
    return 0;
}

static int promote(void *state, cube_req *req)
{
    struct mdl *p = state;
    const char *project = p->host->req_param(req, "project"), *name = p->host->req_param(req,
                                                                                          "name");
    const char *stage, *by = p->host->req_user(req);
    char msg[1400], prod[256], key[200];
    int st = body_stage(p, req, &stage, msg, sizeof msg);
    if (st)
        return mdl_answer(p, req, st, msg);
    const char *role = p->host->req_project_role(req, project);
    if (!strcmp(stage, "production") &&
        !(role && (!strcmp(role, "ops") || !strcmp(role, "creator") || !strcmp(role, "admin"))))
        return mdl_answer(p, req, 403, "promoting to production needs the project's ops or "
                                       "creator role (a dev may move own versions to staging, "
                                       "none or archived)");
    cJSON *obj = mdl_request_model(p, req);
    if (!obj)
        return CUBE_OK;
    const cJSON *mst = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const char *phase = cu_str_or(mst, "phase", "Pending");
    const char *family = cu_str(cJSON_GetObjectItemCaseSensitive(obj, "spec"), "name");
    if ((!strcmp(stage, "production") || !strcmp(stage, "staging")) && strcmp(phase, "Ready")) {
        snprintf(msg, sizeof msg, "models/%s is %s, not Ready: only a version whose files are "
                 "in and checked goes to %s", name, phase, stage);
        cJSON_Delete(obj);
        return mdl_answer(p, req, 409, msg);
    }
    cJSON *demoted = cJSON_CreateArray(), *out = NULL;
    pthread_mutex_lock(&p->stage_mu);
    mdl_prod_key(key, sizeof key, project, family);
    int rc = mdl_prod_get(p, project, family, prod, sizeof prod) < 0 ? CUBE_EUNAVAIL : CUBE_OK;
    if (rc == CUBE_OK && !strcmp(stage, "production"))
        rc = p->host->kv_put(p->self, key, name, strlen(name));   /* the switch */
    else if (rc == CUBE_OK && !strcmp(prod, name))
        rc = p->host->kv_delete(p->self, key);
    if (rc == CUBE_OK && !strcmp(stage, "production"))
        demote_others(p, project, family, name, by ? by : "", demoted);
    struct stage_ctx s = {stage, by ? by : "", NULL};
    st = rc != CUBE_OK ? (snprintf(msg, sizeof msg, "the stage cannot be written now (%d)", rc),
                          503)
                       : mdl_status_edit(p, project, name, stage_edit, &s, msg, sizeof msg, &out);
    pthread_mutex_unlock(&p->stage_mu);
    if (!st) {
        char why[400];
        snprintf(why, sizeof why, "%s %s by %s", family, stage, by ? by : "?");
        p->host->obj_event(p->self, MDL_KIND, project, name, "Normal", "Promoted", why);
        cJSON_AddItemToObject(out, "demoted", demoted);
        demoted = NULL;
        st = mdl_answer_json(p, req, 200, out);
    } else {
        st = mdl_answer(p, req, st, msg);
    }
    cJSON_Delete(demoted);
    cJSON_Delete(out);
    cJSON_Delete(obj);
    return st;
}

int mdl_actions_register(struct mdl *p)
{
    const struct cube_action_desc acts[] = {
        {sizeof acts[0], MDL_KIND, "POST", "promote", CUBE_PERM_PROJECT_OPERATE, promote,
         "Change the version's stage ({\"stage\": \"production\"}; one production version "
         "per family: the previous one is archived)"},
        {sizeof acts[0], MDL_KIND, "POST", "deploy", CUBE_PERM_PROJECT_EDIT, mdl_deploy_action,
         "Create or update an InferenceService serving this version ({\"service\": name})"},
    };
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
        if (p->host->register_action(p->self, &acts[i]) != CUBE_OK) {
            p->host->set_error(p->self, "cannot register the %s action (see the log)",
                               acts[i].action);
            return -1;
        }
    return 0;
}
