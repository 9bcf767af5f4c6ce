/* porting.c — pipelines in and out as files:
 *   GET  .../pipelines/{name}/export[?format=json]   YAML (or JSON)
 *   POST .../pipelines/import[?name=new-name]         YAML or JSON body
 * The exported document is {apiVersion, kind, metadata: {name, labels},
 * spec}; import creates a pipeline from it in the URL's project, checked
 * like any create (with the field named when something is wrong). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/util/yaml.h>

#include "pipeline.h"

static int export_view(void *state, cube_req *req)
{
    struct pl *p = state;
    cJSON *pl = pl_req_object(p, req, "Pipeline");
    if (!pl)
        return CUBE_OK;
    cJSON *doc = cJSON_CreateObject(), *meta;
    cJSON_AddStringToObject(doc, "apiVersion", "cube/v1");
    cJSON_AddStringToObject(doc, "kind", "Pipeline");
    meta = cJSON_AddObjectToObject(doc, "metadata");
    cJSON_AddStringToObject(meta, "name", cu_meta(pl, "name"));
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(pl, "metadata"), "labels");
    if (labels && labels->child)
        cJSON_AddItemToObject(meta, "labels", cJSON_Duplicate(labels, 1));
    cJSON_AddItemToObject(doc, "spec", cJSON_DetachItemFromObjectCaseSensitive(pl, "spec"));
    const char *fmt = p->host->req_query(req, "format");
    int json = fmt && !strcmp(fmt, "json");
    char *text = json ? cJSON_Print(doc) : pl_yaml_write(doc);
    char disp[200];
    snprintf(disp, sizeof disp, "attachment; filename=\"%s.%s\"", cu_meta(pl, "name"),
             json ? "json" : "yaml");
    p->host->resp_header(req, "Content-Disposition", disp);
    if (text)
        p->host->resp_text(req, 200, json ? "application/json" : "application/yaml; charset=utf-8",
                           text);
    else
        pl_resp_error(p, req, 503, "Unavailable", "out of memory");
    free(text);
    cJSON_Delete(doc);
    cJSON_Delete(pl);
    return CUBE_OK;
}

/* The pipeline object to create from an imported document, or NULL after
 * answering. */
static cJSON *import_object(struct pl *p, cube_req *req, cJSON *doc)
{
    const char *kind = cu_str(doc, "kind"), *name = p->host->req_query(req, "name");
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(doc, "spec");
    if (!name)
        name = cu_meta(doc, "name");
    if (kind && strcmp(kind, "Pipeline") != 0)
        return pl_resp_error(p, req, 422, "Invalid", "kind: must be Pipeline"), NULL;
    if (!name)
        return pl_resp_error(p, req, 422, "Invalid", "metadata.name: required (or ?name=)"),
               NULL;
    if (!cJSON_IsObject(spec))
        return pl_resp_error(p, req, 422, "Invalid", "spec: required, an object"), NULL;
    cJSON *obj = cJSON_CreateObject(), *meta = cJSON_AddObjectToObject(obj, "metadata");
    cJSON_AddStringToObject(obj, "kind", "Pipeline");
    cJSON_AddStringToObject(meta, "name", name);
    cJSON_AddStringToObject(meta, "project", p->host->req_param(req, "project"));
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "metadata"), "labels");
    const cJSON *l;
    cJSON *keep = labels ? cJSON_AddObjectToObject(meta, "labels") : NULL;
    cJSON_ArrayForEach(l, labels)   /* Cube's own keys are not the user's to bring */
        if (strncmp(l->string, "cube.dev/", 9) != 0)
            cJSON_AddItemToObject(keep, l->string, cJSON_Duplicate(l, 1));
    cJSON_AddItemToObject(obj, "spec", cJSON_Duplicate(spec, 1));
    return obj;
}

static int import_route(void *state, cube_req *req)
{
    struct pl *p = state;
    size_t len;
    char msg[PL_ERR], field[200], emsg[PL_ERR];
    const char *body = p->host->req_body(req, &len);
    if (strlen(body) != len)
        return pl_resp_error(p, req, 400, "BadRequest", "the body must be text");
    /* YAML or JSON; a fault is named "line N: ..." */
    cJSON *doc = cu_yaml_parse(body, len, NULL, msg, sizeof msg);
    if (!cJSON_IsObject(doc)) {
        if (doc)
            snprintf(msg, sizeof msg, "must be a mapping (a Pipeline document)");
        cJSON_Delete(doc);
        char m[PL_ERR + 32];
        snprintf(m, sizeof m, "body: %s", msg);
        return pl_resp_error(p, req, 400, "BadRequest", m);
    }
    cJSON *obj = import_object(p, req, doc);
    cJSON_Delete(doc);
    if (!obj)
        return CUBE_OK;
    int rc;
    char *text = cJSON_PrintUnformatted(obj);
    char *out = text ? p->host->obj_create_for(p->self, req, text, &rc) : NULL;
    free(text);
    if (!out && rc == CUBE_EINVAL && pl_pipeline_check(p, obj, field, sizeof field, emsg,
                                                       sizeof emsg) < 0) {
        char m[sizeof field + sizeof emsg + 4];
        snprintf(m, sizeof m, "%s: %s", field, emsg);
        pl_resp_error(p, req, 422, "Invalid", m);
    } else if (!out && rc == CUBE_EEXIST) {
        char m[PL_NAME_MAX + 160];
        snprintf(m, sizeof m, "pipeline %s already exists in this project: delete it first, or "
                 "import under another name (?name=)", cu_meta(obj, "name"));
        pl_resp_error(p, req, 409, "Conflict", m);
    } else if (!out && rc == CUBE_EINVAL) {
        pl_resp_error(p, req, 422, "Invalid", "the pipeline does not pass its schema (create it "
                      "through the API to see the field)");
    } else {
        pl_resp_obj(p, req, 201, out, rc);
    }
    cJSON_Delete(obj);
    return CUBE_OK;
}

int pl_porting_register(struct pl *p)
{
    const struct cube_action_desc exp = {
        sizeof exp, "Pipeline", "GET", "export", CUBE_PERM_PROJECT_VIEW, export_view,
        "The pipeline as YAML (?format=json: JSON)"};
    const struct cube_route_desc imp = {
        sizeof imp, "POST", "/api/v1/projects/{project}/pipelines/import",
        CUBE_PERM_PROJECT_EDIT, import_route,
        "Create a pipeline from an exported YAML or JSON document (?name= renames it)", 0, 0, NULL};
    if (p->host->register_action(p->self, &exp) != CUBE_OK ||
        p->host->register_route(p->self, &imp) != CUBE_OK)
        return -1;
    return 0;
}
