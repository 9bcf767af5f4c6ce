/* openapi_kinds.c — the generic resource routes (those with {plural}) of
 * the OpenAPI document, written out per kind of the matching scope: the
 * kind's object and list schemas as bodies and answers, its permission rule,
 * and one path per registered action. openapi.c calls
 * cube_openapi_kind_route for each generic route and kind, after the
 * literal routes, so that a literal route wins over a kind's path. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "auth/auth.h"
#include "ctx/ctx.h"
#include "objects/kinds.h"
#include "openapi_priv.h"

enum { B_NONE, B_OBJECT, B_PATCH, B_ANY };
enum { R_ANY, R_OBJECT, R_LIST, R_STATUS, R_EVENTS };

static const struct generic {
    const char *method, *suffix; /* the route's path after {plural} */
    int body, resp, query;
    const char *code, *desc;
} GENERIC[] = {
    {"GET", "", B_NONE, R_LIST, Q_LIST, "200",
     "A page of objects; with watch, a text/event-stream of changes"},
    {"POST", "", B_OBJECT, R_OBJECT, Q_NONE, "201", "Created"},
    {"GET", "/{name}", B_NONE, R_OBJECT, Q_NONE, "200", "The object"},
    {"PUT", "/{name}", B_OBJECT, R_OBJECT, Q_NONE, "200", "Replaced"},
    {"PATCH", "/{name}", B_PATCH, R_OBJECT, Q_NONE, "200", "Patched"},
    {"DELETE", "/{name}", B_NONE, R_STATUS, Q_NONE, "200", "Deleted"},
    {"PUT", "/{name}/status", B_OBJECT, R_OBJECT, Q_NONE, "200", "Status replaced"},
    {"GET", "/{name}/events", B_NONE, R_EVENTS, Q_EVENTS, "200", "A page of events"},
    {"POST", "/{name}/{action}", B_ANY, R_ANY, Q_NONE, "200", "The action's answer"},
    {"GET", "/{name}/{action}", B_NONE, R_ANY, Q_NONE, "200", "The view"},
};

static void request_body(struct doc *d, cJSON *op, const char *ctype, cJSON *schema,
                         bool required)
{
    cJSON *b = cube_openapi_put(d, op, "requestBody", cJSON_CreateObject());
    if (!b) {
        cJSON_Delete(schema);
        return;
    }
    cJSON_AddBoolToObject(b, "required", required);
    cube_openapi_put(d,
                     cJSON_AddObjectToObject(cJSON_AddObjectToObject(b, "content"), ctype),
                     "schema", schema);
}

static void generic_body(struct doc *d, cJSON *op, const struct generic *g,
                         const struct kind_names *n)
{
    if (g->body == B_OBJECT)
        request_body(d, op, OPENAPI_JSON, cube_openapi_ref(n->object), true);
    else if (g->body == B_PATCH)
        request_body(d, op, "application/merge-patch+json",
                     cJSON_Parse("{\"type\":\"object\",\"description\":\"A JSON merge "
                                 "patch (RFC 7396) of the object\"}"), true);
    else if (g->body == B_ANY)
        request_body(d, op, OPENAPI_JSON, cJSON_CreateObject(), false);
}

static void generic_fill(struct doc *d, cJSON *op, const struct generic *g,
                         const struct kind_names *n)
{
    if (!g) {
        cube_openapi_respond(d, op, "200", "Success", NULL, NULL);
        return;
    }
    generic_body(d, op, g, n);
    cube_openapi_query_params(d, op, g->query);
    const char *target = g->resp == R_OBJECT ? n->object : g->resp == R_LIST ? n->list
                       : g->resp == R_STATUS ? "Status" : "EventList";
    cube_openapi_respond(d, op, g->code, g->desc, OPENAPI_JSON,
                         g->resp == R_ANY ? cJSON_CreateObject()
                                          : cube_openapi_ref(target));
    if (g->resp == R_LIST) {
        cJSON *content = cJSON_GetObjectItem(
            cJSON_GetObjectItem(cJSON_GetObjectItem(op, "responses"), g->code), "content");
        cube_openapi_put(d, cJSON_AddObjectToObject(content, "text/event-stream"),
                         "schema", cJSON_Parse("{\"type\":\"string\"}"));
    }
    if (g->resp == R_STATUS)
        cube_openapi_respond(d, op, "202", "Deletion pending on finalizers",
                             OPENAPI_JSON, cube_openapi_ref("Status"));
}

static const struct generic *generic_of(const char *method, const char *suffix)
{
    for (size_t i = 0; i < sizeof GENERIC / sizeof GENERIC[0]; i++)
        if (strcmp(GENERIC[i].method, method) == 0 && strcmp(GENERIC[i].suffix, suffix) == 0)
            return &GENERIC[i];
    return NULL;
}

/* The resource verb a generic route serves (see cube_auth_resource_rule). */
static const char *verb_of(const struct cube_route_entry *e, const struct cube_action *a)
{
    const char *suffix = strstr(e->path, "{plural}") + strlen("{plural}");
    if (a || strcmp(suffix, "/{name}/events") == 0)
        return "get";
    if (strcmp(suffix, "/{name}/status") == 0)
        return "status";
    if (!*suffix)
        return strcmp(e->method, "GET") == 0 ? "list" : "create";
    return strcmp(e->method, "GET") == 0 ? "get"
           : strcmp(e->method, "DELETE") == 0 ? "delete" : "update";
}

/* One concrete operation: `path` with {action} replaced when a is given. */
static void kind_op(struct doc *d, const struct cube_route_entry *e, const char *path,
                    size_t ki, const struct cube_action *a, const struct generic *g)
{
    const struct cube_kind *k = d->ctx->kinds.items[ki];
    char summary[256], concrete[1024];
    const char *act = a ? strstr(path, "{action}") : NULL;
    if (act)
        snprintf(concrete, sizeof concrete, "%.*s%s%s", (int)(act - path), path, a->action,
                 act + strlen("{action}"));
    else
        snprintf(concrete, sizeof concrete, "%s", path);
    snprintf(summary, sizeof summary, "%s (%s)", a && *a->summary ? a->summary
             : e->summary ? e->summary : e->path, k->kind);
    struct cube_res_rule r = cube_auth_resource_rule(d->ctx, k, verb_of(e, a));
    if (a) /* as run_action checks it */
        r = (struct cube_res_rule){k->scope == CUBE_SCOPE_CLUSTER &&
                                   cube_perm_needs_project(a->perm) ? CUBE_P_ADMIN : a->perm,
                                   k->scope == CUBE_SCOPE_PROJECT ? "project" : NULL, 0};
    const struct op_spec s = {e->method, concrete, summary, k->description, k->plural,
                              cube_auth_rule_name(&r), r.project_param};
    cJSON *op = cube_openapi_op_add(d, &s);
    if (op)
        generic_fill(d, op, g, &d->names[ki]);
}

void cube_openapi_kind_route(struct doc *d, const struct cube_route_entry *e, size_t ki)
{
    const struct cube_kinds *reg = &d->ctx->kinds;
    const struct cube_kind *k = reg->items[ki];
    const char *at = strstr(e->path, "{plural}"), *proj = strstr(e->path, "{project}");
    bool project_path = proj && proj < at;
    if (project_path != (k->scope == CUBE_SCOPE_PROJECT))
        return;
    const char *suffix = at + strlen("{plural}");
    const struct generic *g = generic_of(e->method, suffix);
    char path[1024];
    if ((size_t)snprintf(path, sizeof path, "%.*s%s%s", (int)(at - e->path), e->path,
                         k->plural, suffix) >= sizeof path)
        return;
    cube_openapi_tag_add(d, k->plural, k->description);
    if (!strstr(suffix, "{action}")) {
        kind_op(d, e, path, ki, NULL, g);
        return;
    }
    for (size_t i = 0; i < reg->n_actions; i++) {
        const struct cube_action *a = reg->actions[i];
        if (strcmp(a->kind, k->kind) == 0 && strcmp(a->method, e->method) == 0)
            kind_op(d, e, path, ki, a, g);
    }
}
