/* deploy.c — POST .../models/{name}/deploy {"service": "iris",
 * "predictor": "default", "replicas": {"min": 1, "max": 1},
 * "resources": {...}} (every field optional).
 *
 * Zero-code serving of a version: the InferenceService `service` (default:
 * the family's name) is created for the caller (obj_create_for: its
 * replicas run as the caller) with one predictor
 *   {"name": "default", "model": {"name": <this Model>}, "runtime":
 *    <the framework>, "replicas": {"min": 1, "max": 1}}
 * and traffic [{"predictor": "default", "percent": 100}]; or, when it
 * exists, its predictor's model is pointed at this version (the serving
 * plugin then rolls it out), which only its owner or the project's ops
 * may do (403): the replicas run as the service's owner. 201 created, 200
 * updated, with the service. The version must be Ready (409); custom
 * models have no built-in runtime (422). Without the serving plugin the
 * kind is unknown: 409 ServingNotLoaded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"

static int dns_label(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (!n || n > 63 || s[0] == '-' || s[n - 1] == '-')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return 0;
    return 1;
}

/* Answers with what the host refused the last object write with. */
static int answer_refusal(struct mdl *p, cube_req *req, const char *what)
{
    cJSON *e = cu_json_take(p->host, p->host->obj_error(p->self));
    char msg[1400];
    int status = (int)cu_num(e, "status", 503);
    snprintf(msg, sizeof msg, "%s: %s", what, cu_str_or(e, "message", "refused"));
    cJSON_Delete(e);
    return mdl_answer(p, req, status >= 400 && status < 600 ? status : 503, msg);
}

static cJSON *predictor(const char *pname, const char *model, const char *runtime,
                        const cJSON *body)
{
    cJSON *pr = cJSON_CreateObject(), *m = cJSON_CreateObject();
    cJSON_AddStringToObject(pr, "name", pname);
    cJSON_AddStringToObject(m, "name", model);
    cJSON_AddItemToObject(pr, "model", m);
    cJSON_AddStringToObject(pr, "runtime", runtime);
    const cJSON *rep = cJSON_GetObjectItemCaseSensitive(body, "replicas");
    if (rep)
        cJSON_AddItemToObject(pr, "replicas", cJSON_Duplicate(rep, 1));
    else {
        cJSON *r = cJSON_AddObjectToObject(pr, "replicas");
        cJSON_AddNumberToObject(r, "min", 1);
        cJSON_AddNumberToObject(r, "max", 1);
    }
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(body, "resources");
    if (res)
        cJSON_AddItemToObject(pr, "resources", cJSON_Duplicate(res, 1));
    return pr;
}

static cJSON *new_service(const cJSON *model, const char *svc, const char *pname,
                          const char *runtime, const cJSON *body)
{
    cJSON *o = cJSON_CreateObject(), *meta = cJSON_AddObjectToObject(o, "metadata");
    cJSON *spec, *traffic, *t;
    cJSON_AddStringToObject(o, "kind", MDL_SERVICE_KIND);
    cJSON_AddStringToObject(meta, "name", svc);
    cJSON_AddStringToObject(meta, "project", cu_meta(model, "project"));
    cJSON *labels = cJSON_AddObjectToObject(meta, "labels");
    cJSON_AddStringToObject(labels, MDL_LABEL,
                            cu_str(cJSON_GetObjectItemCaseSensitive(model, "spec"), "name"));
    spec = cJSON_AddObjectToObject(o, "spec");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(spec, "predictors"),
                         predictor(pname, cu_meta(model, "name"), runtime, body));
    traffic = cJSON_AddArrayToObject(spec, "traffic");
    t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "predictor", pname);
    cJSON_AddNumberToObject(t, "percent", 100);
    cJSON_AddItemToArray(traffic, t);
    return o;
}

/* Points predictor pname of svc at the model: 0, or an HTTP status. */
static int repoint(cJSON *svc, const cJSON *model, const char *pname, const char *runtime,
                   const cJSON *body, char *msg, size_t len)
{
    cJSON *preds = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(svc,
                                                                                  "spec"),
                                                    "predictors"), *pr;
    cJSON_ArrayForEach(pr, preds)
        if (!strcmp(cu_str_or(pr, "name", ""), pname))
            break;
    if (!pr)
        return snprintf(msg, len, "predictor: the service %s has no predictor %s",
                        cu_meta(svc, "name"), pname), 422;
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "name", cu_meta(model, "name"));
    cu_set_item(pr, "model", m);
    cu_set_str(pr, "runtime", runtime);
    cJSON_DeleteItemFromObjectCaseSensitive(pr, "image");
    cJSON_DeleteItemFromObjectCaseSensitive(pr, "command");
    static const char *const PASS[] = {"replicas", "resources"};
    for (size_t i = 0; i < 2; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(body, PASS[i]);
        if (v)
            cu_set_item(pr, PASS[i], cJSON_Duplicate(v, 1));
    }
    cJSON_DeleteItemFromObjectCaseSensitive(svc, "status");
    return 0;
}

struct dep_ctx {
    const char *svc;
};

static int note_edit(struct mdl *p, const cJSON *obj, cJSON *st, void *ctx, char *msg,
                     size_t mlen)
{
    struct dep_ctx *d = ctx;
    (void)p, (void)obj, (void)msg, (void)mlen;
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(st, "deployments"), *it;
    if (!cJSON_IsArray(arr)) {
        cJSON_DeleteItemFromObjectCaseSensitive(st, "deployments");
        arr = cJSON_AddArrayToObject(st, "deployments");
    }
    cJSON_ArrayForEach(it, arr)
        if (cJSON_IsString(it) && !strcmp(it->valuestring, d->svc))
            return 1;
    cJSON_AddItemToArray(arr, cJSON_CreateString(d->svc));
    return 0;
}

/* Creates or updates the service; answers. */
static int deploy_to(struct mdl *p, cube_req *req, const cJSON *model, const char *svc,
                     const char *pname, const cJSON *body)
{
    const char *project = cu_meta(model, "project");
    const char *runtime = cu_str(cJSON_GetObjectItemCaseSensitive(model, "spec"), "framework");
    char msg[1400], what[200];
    snprintf(what, sizeof what, "inferenceservices/%s", svc);
    for (int attempt = 0; attempt < 4; attempt++) {
        int rc, created = 0;
        cJSON *cur = cu_json_take(p->host, p->host->obj_get(p->self, MDL_SERVICE_KIND, project,
                                                            svc, &rc));
        char *text = NULL;
        if (!cur && rc == CUBE_EINVAL)
            return p->host->resp_error(req, 409, "ServingNotLoaded",
                                       "the serving plugin is not loaded (kind InferenceService "
                                       "is unknown): enable it in conf.d to deploy models");
        if (!cur && rc != CUBE_ENOTFOUND)
            return mdl_answer(p, req, 503, "the service cannot be read now");
        if (cur && !mdl_may_operate(p, req, cur)) {
            snprintf(msg, sizeof msg, "%s belongs to %s: only its owner or the project's ops "
                     "may point it at another model", what, cu_meta(cur, "owner"));
            cJSON_Delete(cur);
            return mdl_answer(p, req, 403, msg);
        }
        if (cur) {
            int st = repoint(cur, model, pname, runtime, body, msg, sizeof msg);
            char *doc = st ? NULL : cJSON_PrintUnformatted(cur);
            cJSON_Delete(cur);
            if (st)
                return mdl_answer(p, req, st, msg);
            text = doc ? p->host->obj_update(p->self, doc, &rc) : NULL;
            free(doc);
            if (!text && rc == CUBE_ECONFLICT)
                continue;
        } else {
            cJSON *o = new_service(model, svc, pname, runtime, body);
            char *doc = cJSON_PrintUnformatted(o);
            cJSON_Delete(o);
            text = doc ? p->host->obj_create_for(p->self, req, doc, &rc) : NULL;
            free(doc);
            if (!text && rc == CUBE_EEXIST)
                continue;   /* made meanwhile: update it */
            created = 1;
        }
        if (!text)
            return answer_refusal(p, req, what);
        cJSON *out = cJSON_CreateObject();
        cJSON_AddBoolToObject(out, "created", created);
        cJSON_AddItemToObject(out, "service", cu_json_take(p->host, text));
        mdl_status_edit(p, project, cu_meta(model, "name"), note_edit, &(struct dep_ctx){svc},
                        msg, sizeof msg, NULL);
        snprintf(msg, sizeof msg, "%s %s (predictor %s)", created ? "created" : "updated", what,
                 pname);
        p->host->obj_event(p->self, MDL_KIND, project, cu_meta(model, "name"), "Normal",
                           "Deployed", msg);
        rc = mdl_answer_json(p, req, created ? 201 : 200, out);
        cJSON_Delete(out);
        return rc;
    }
    return mdl_answer(p, req, 409, "the service changed under every try; try again");
}

int mdl_deploy_action(void *state, cube_req *req)
{
    struct mdl *p = state;
    size_t n;
    char msg[1400];
    const char *text = p->host->req_body(req, &n);
    cJSON *body = n ? cJSON_ParseWithLength(text, n) : cJSON_CreateObject();
    if (!cJSON_IsObject(body)) {
        cJSON_Delete(body);
        return mdl_answer(p, req, 400, "the body must be a JSON object");
    }
    cJSON *model = mdl_request_model(p, req);
    if (!model) {
        cJSON_Delete(body);
        return CUBE_OK;
    }
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(model, "spec");
    const char *phase = cu_str_or(cJSON_GetObjectItemCaseSensitive(model, "status"), "phase",
                                  "Pending");
    const char *svc = cu_str_or(body, "service", cu_str(spec, "name"));
    const char *pname = cu_str_or(body, "predictor", "default");
    const cJSON *rep = cJSON_GetObjectItemCaseSensitive(body, "replicas");
    int st = 0;
    if (!dns_label(svc))
        st = 422, snprintf(msg, sizeof msg, "service: must be a DNS label (a-z, 0-9, '-'; 1-63)");
    else if (!dns_label(pname))
        st = 422, snprintf(msg, sizeof msg, "predictor: must be a DNS label");
    else if (rep && (!cJSON_IsObject(rep) || cu_num(rep, "min", 1) < 0 ||
                     cu_num(rep, "max", 1) < cu_num(rep, "min", 1)))
        st = 422, snprintf(msg, sizeof msg, "replicas: {min >= 0, max >= min}");
    else if (!strcmp(cu_str_or(spec, "framework", ""), "custom"))
        st = 422, snprintf(msg, sizeof msg, "framework: custom models have no built-in runtime: "
                           "create an InferenceService with your own image or command");
    else if (strcmp(phase, "Ready"))
        st = 409, snprintf(msg, sizeof msg, "models/%s is %s, not Ready: deploy it once its "
                           "files are in and checked", cu_meta(model, "name"), phase);
    int rc = st ? mdl_answer(p, req, st, msg) : deploy_to(p, req, model, svc, pname, body);
    cJSON_Delete(model);
    cJSON_Delete(body);
    return rc;
}
