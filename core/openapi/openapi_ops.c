/* openapi_ops.c — the building blocks of the OpenAPI document (see
 * openapi_priv.h): members added with OOM noted once, $refs, tags, and an
 * operation with its path parameters, operationId, security, responses and
 * query parameters. openapi.c (the fixed routes and the document) and
 * openapi_kinds.c (the generic resource routes per kind) build on these. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "auth/auth.h"
#include "openapi_priv.h"

cJSON *cube_openapi_put(struct doc *d, cJSON *obj, const char *key, cJSON *item)
{
    if (!item || !cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        d->oom = true;
        return NULL;
    }
    return item;
}

static void append(struct doc *d, cJSON *list, cJSON *item)
{
    if (!item || !cJSON_AddItemToArray(list, item)) {
        cJSON_Delete(item);
        d->oom = true;
    }
}

cJSON *cube_openapi_ref(const char *name)
{
    char target[128];
    snprintf(target, sizeof target, OPENAPI_REF "%s", name);
    cJSON *r = cJSON_CreateObject();
    if (r && !cJSON_AddStringToObject(r, "$ref", target)) {
        cJSON_Delete(r);
        return NULL;
    }
    return r;
}

void cube_openapi_tag_add(struct doc *d, const char *name, const char *description)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, d->tags) {
        const char *have = cJSON_GetStringValue(cJSON_GetObjectItem(t, "name"));
        if (have && strcmp(have, name) == 0)
            return;
    }
    cJSON *tag = cJSON_CreateObject();
    cJSON_AddStringToObject(tag, "name", name);
    if (description && *description)
        cJSON_AddStringToObject(tag, "description", description);
    append(d, d->tags, tag);
}

/* ---- operations ---------------------------------------------------------- */

/* A route template as an OpenAPI path: the rest-param {x*} becomes {x}. */
static bool api_path(const char *tmpl, char *out, size_t n)
{
    size_t o = 0;
    if (strlen(tmpl) >= n)
        return false;
    for (const char *p = tmpl; *p; p++)
        if (!(p[0] == '*' && p[1] == '}'))
            out[o++] = *p;
    out[o] = '\0';
    return true;
}

/* Records the path's shape (parameters as "{}"): two paths that differ
 * only in parameter names are one route to a server (the first one
 * registered wins: the literal route over a kind's) and may not both be in
 * an OpenAPI document. Returns true when the shape was already taken. */
static bool shape_taken(struct doc *d, const char *method, const char *path)
{
    char shape[1100];
    size_t o = (size_t)snprintf(shape, sizeof shape, "%s ", method);
    for (const char *p = path; *p && o + 3 < sizeof shape; p++) {
        shape[o++] = *p;
        if (*p == '{')
            while (p[1] && p[1] != '}')
                p++;
    }
    shape[o] = '\0';
    if (cJSON_HasObjectItem(d->shapes, shape))
        return true;
    cube_openapi_put(d, d->shapes, shape, cJSON_CreateTrue());
    return false;
}

/* "get_api_v1_projects_project_widgets", made unique with _2, _3 ... */
static void op_id(struct doc *d, const char *method, const char *path,
                  char *out, size_t n)
{
    size_t o = 0;
    for (const char *m = method; *m && o + 2 < n; m++)
        out[o++] = (char)tolower((unsigned char)*m);
    for (const char *p = path; *p && o + 8 < n; p++) { /* room for "_9999" */
        char ch = isalnum((unsigned char)*p) ? *p : '_';
        if (ch != '_' || out[o - 1] != '_')
            out[o++] = ch;
    }
    while (o > 1 && out[o - 1] == '_')
        o--;
    out[o] = '\0';
    for (int i = 2; cJSON_HasObjectItem(d->op_ids, out) && i < 10000; i++)
        snprintf(out + o, n - o, "_%d", i);
    cJSON_AddTrueToObject(d->op_ids, out);
}

/* The {param}s of an OpenAPI path as path parameters. */
static void path_params(struct doc *d, cJSON *op, const char *path)
{
    cJSON *list = NULL;
    for (const char *p = strchr(path, '{'); p; p = strchr(p + 1, '{')) {
        const char *end = strchr(p, '}');
        if (!end)
            break;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
        if (!list
            && !(list = cube_openapi_put(d, op, "parameters", cJSON_CreateArray())))
            return;
        cJSON *param = cJSON_CreateObject();
        cJSON_AddStringToObject(param, "name", name);
        cJSON_AddStringToObject(param, "in", "path");
        cJSON_AddTrueToObject(param, "required");
        cJSON_AddStringToObject(cJSON_AddObjectToObject(param, "schema"), "type", "string");
        append(d, list, param);
    }
}

cJSON *cube_openapi_op_add(struct doc *d, const struct op_spec *s)
{
    static const char *const METHODS[] = {"GET", "POST", "PUT", "PATCH", "DELETE"};
    char path[1024], method[8], id[160];
    size_t i = 0;
    while (i < sizeof METHODS / sizeof METHODS[0] && strcmp(METHODS[i], s->method) != 0)
        i++;
    if (i == sizeof METHODS / sizeof METHODS[0] || !api_path(s->path, path, sizeof path))
        return NULL;
    for (i = 0; s->method[i] && i + 1 < sizeof method; i++)
        method[i] = (char)tolower((unsigned char)s->method[i]);
    method[i] = '\0';
    if (shape_taken(d, s->method, path))
        return NULL;
    cJSON *item = cJSON_GetObjectItemCaseSensitive(d->paths, path);
    if (!item && !(item = cube_openapi_put(d, d->paths, path, cJSON_CreateObject())))
        return NULL;
    if (cJSON_HasObjectItem(item, method))
        return NULL;
    cJSON *op = cube_openapi_put(d, item, method, cJSON_CreateObject());
    if (!op)
        return NULL;
    cJSON_AddItemToArray(cJSON_AddArrayToObject(op, "tags"), cJSON_CreateString(s->tag));
    cJSON_AddStringToObject(op, "summary", s->summary && *s->summary ? s->summary
                                                                     : s->path);
    if (s->description && *s->description)
        cJSON_AddStringToObject(op, "description", s->description);
    op_id(d, s->method, path, id, sizeof id);
    cJSON_AddStringToObject(op, "operationId", id);
    path_params(d, op, path);
    cJSON *sec = cJSON_AddArrayToObject(op, "security");
    if (strcmp(s->perm, CUBE_PERM_PUBLIC) != 0) {
        append(d, sec, cJSON_Parse("{\"bearer\":[]}"));
        append(d, sec, cJSON_Parse("{\"session\":[]}"));
    }
    cJSON_AddStringToObject(op, "x-cube-permission", s->perm);
    if (s->project_param)
        cJSON_AddStringToObject(op, "x-cube-project-param", s->project_param);
    cJSON_AddObjectToObject(op, "responses");
    return op;
}

void cube_openapi_respond(struct doc *d, cJSON *op, const char *code, const char *desc,
                          const char *ctype, cJSON *schema)
{
    cJSON *r = cube_openapi_put(d, cJSON_GetObjectItem(op, "responses"), code,
                                cJSON_CreateObject());
    cJSON_AddStringToObject(r, "description", desc);
    if (!ctype || !r) {
        cJSON_Delete(schema);
        return;
    }
    cJSON *media = cJSON_AddObjectToObject(cJSON_AddObjectToObject(r, "content"), ctype);
    cube_openapi_put(d, media, "schema", schema ? schema : cJSON_CreateObject());
}

static void query_param(struct doc *d, cJSON *op, const char *name, const char *schema,
                        const char *desc)
{
    cJSON *list = cJSON_GetObjectItem(op, "parameters");
    if (!list)
        list = cube_openapi_put(d, op, "parameters", cJSON_CreateArray());
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "name", name);
    cJSON_AddStringToObject(p, "in", "query");
    cJSON_AddStringToObject(p, "description", desc);
    cube_openapi_put(d, p, "schema", cJSON_Parse(schema));
    append(d, list, p);
}

void cube_openapi_query_params(struct doc *d, cJSON *op, int which)
{
    if (which == Q_LIST) {
        query_param(d, op, "labelSelector", "{\"type\":\"string\"}",
                    "Label selector, e.g. app=web,tier!=db,env in (a,b),!canary");
        query_param(d, op, "limit", "{\"type\":\"integer\",\"minimum\":0,\"maximum\":100000}",
                    "Page size (0: all)");
        query_param(d, op, "continue", "{\"type\":\"string\"}",
                    "The metadata.continue token of the previous page");
        query_param(d, op, "watch", "{\"type\":\"boolean\"}",
                    "Stream changes as server-sent events instead of listing");
        query_param(d, op, "resourceVersion", "{\"type\":\"string\"}",
                    "With watch: send the changes after this resourceVersion");
    } else if (which == Q_EVENTS) {
        query_param(d, op, "limit", "{\"type\":\"integer\",\"minimum\":0,\"maximum\":1000}",
                    "Page size (0: 100)");
        query_param(d, op, "before", "{\"type\":\"integer\",\"minimum\":0}",
                    "The metadata.before token of the previous page");
    }
}
