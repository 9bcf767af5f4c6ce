/* openapi.c — GET /api/v1/openapi.json (see openapi.h): one operation per
 * route of the table (core and plugins); the generic resource routes
 * (those with {plural}) written out per kind of the matching scope, with
 * the kind's schema and one path per registered action. */
#include "openapi.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "ctx.h"
#include "cube_build.h"
#include "http_req.h"
#include "kinds.h"
#include "log.h"

#define REF "#/components/schemas/"
#define JSON_CT "application/json"

/* Component names of a kind's schemas (unique even if a kind is called
 * "Status" or "WidgetList"). */
struct kind_names {
    char object[72], list[80];
};

struct doc {
    const struct cube_ctx *ctx;
    cJSON *root, *paths, *schemas, *tags;
    cJSON *op_ids;               /* operationIds taken (not in the output) */
    cJSON *shapes;               /* "METHOD path-with-{}" taken (not in the output) */
    struct kind_names *names;    /* per ctx->kinds.items[i] */
    bool oom;
};

/* Sets obj[key] = item; an item that cannot be added is freed. */
static cJSON *put(struct doc *d, cJSON *obj, const char *key, cJSON *item)
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

static cJSON *ref(const char *name)
{
    char target[128];
    snprintf(target, sizeof target, REF "%s", name);
    cJSON *r = cJSON_CreateObject();
    if (r && !cJSON_AddStringToObject(r, "$ref", target)) {
        cJSON_Delete(r);
        return NULL;
    }
    return r;
}

static void tag_add(struct doc *d, const char *name, const char *description)
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
    put(d, d->shapes, shape, cJSON_CreateTrue());
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
        if (!list && !(list = put(d, op, "parameters", cJSON_CreateArray())))
            return;
        cJSON *param = cJSON_CreateObject();
        cJSON_AddStringToObject(param, "name", name);
        cJSON_AddStringToObject(param, "in", "path");
        cJSON_AddTrueToObject(param, "required");
        cJSON_AddStringToObject(cJSON_AddObjectToObject(param, "schema"), "type", "string");
        append(d, list, param);
    }
}

struct op_spec {
    const char *method, *path, *summary, *description, *tag;
    const char *perm;          /* x-cube-permission: a CUBE_PERM_* or "self" */
    const char *project_param; /* x-cube-project-param, or NULL */
};

/* Adds an operation (no responses but "default" yet); NULL when the path
 * already has one for the method (a literal route wins over a kind's) or
 * the method has no OpenAPI name. */
static cJSON *op_add(struct doc *d, const struct op_spec *s)
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
    if (!item && !(item = put(d, d->paths, path, cJSON_CreateObject())))
        return NULL;
    if (cJSON_HasObjectItem(item, method))
        return NULL;
    cJSON *op = put(d, item, method, cJSON_CreateObject());
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

/* responses[code] with a schema (owned) under content type ctype. */
static void respond(struct doc *d, cJSON *op, const char *code, const char *desc,
                    const char *ctype, cJSON *schema)
{
    cJSON *r = put(d, cJSON_GetObjectItem(op, "responses"), code, cJSON_CreateObject());
    cJSON_AddStringToObject(r, "description", desc);
    if (!ctype || !r) {
        cJSON_Delete(schema);
        return;
    }
    cJSON *media = cJSON_AddObjectToObject(cJSON_AddObjectToObject(r, "content"), ctype);
    put(d, media, "schema", schema ? schema : cJSON_CreateObject());
}

static void request_body(struct doc *d, cJSON *op, const char *ctype, cJSON *schema,
                         bool required)
{
    cJSON *b = put(d, op, "requestBody", cJSON_CreateObject());
    if (!b) {
        cJSON_Delete(schema);
        return;
    }
    cJSON_AddBoolToObject(b, "required", required);
    put(d, cJSON_AddObjectToObject(cJSON_AddObjectToObject(b, "content"), ctype),
        "schema", schema);
}

static void query_param(struct doc *d, cJSON *op, const char *name, const char *schema,
                        const char *desc)
{
    cJSON *list = cJSON_GetObjectItem(op, "parameters");
    if (!list)
        list = put(d, op, "parameters", cJSON_CreateArray());
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "name", name);
    cJSON_AddStringToObject(p, "in", "query");
    cJSON_AddStringToObject(p, "description", desc);
    put(d, p, "schema", cJSON_Parse(schema));
    append(d, list, p);
}

enum { Q_NONE, Q_LIST, Q_EVENTS };

static void query_params(struct doc *d, cJSON *op, int which)
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

/* ---- routes with a fixed shape ---------------------------------------------- */

#define STR_PROP(n) "\"" n "\":{\"type\":\"string\"}"

static const struct fixed_resp {
    const char *method, *path, *code, *desc, *ctype, *schema;
    int query;
} FIXED[] = {
    {"GET", "/healthz", "200", "The process answers", JSON_CT,
     "{\"type\":\"object\",\"properties\":{" STR_PROP("status") "}}", Q_NONE},
    {"GET", "/readyz", "200", "Ready", JSON_CT, "{\"$ref\":\"" REF "Readiness\"}", Q_NONE},
    {"GET", "/readyz", "503", "Not ready", JSON_CT, "{\"$ref\":\"" REF "Readiness\"}",
     Q_NONE},
    {"GET", "/metrics", "200", "Prometheus text exposition format", "text/plain",
     "{\"type\":\"string\"}", Q_NONE},
    {"GET", "/api/v1/kinds", "200", "The registered kinds", JSON_CT,
     "{\"$ref\":\"" REF "KindList\"}", Q_NONE},
    {"GET", "/api/v1/version", "200", "Versions of the server, its ABI and its store",
     JSON_CT, "{\"type\":\"object\",\"properties\":{" STR_PROP("version") ","
     STR_PROP("abi") "," STR_PROP("store") "}}", Q_NONE},
    {"GET", "/api/v1/events", "200", "A page of events", JSON_CT,
     "{\"$ref\":\"" REF "EventList\"}", Q_EVENTS},
    {"GET", "/api/v1/projects/{project}/events", "200", "A page of events", JSON_CT,
     "{\"$ref\":\"" REF "EventList\"}", Q_EVENTS},
    {"GET", "/api/v1/openapi.json", "200", "This document (OpenAPI 3.0.3)", JSON_CT,
     "{\"type\":\"object\"}", Q_NONE},
};

static void fixed_route(struct doc *d, const struct cube_route_entry *e)
{
    const struct cube_plugin *p = e->plugin;
    bool core = p == &d->ctx->core;
    const char *tag = core ? "core" : p->name;
    tag_add(d, tag, core ? "The core's own endpoints" : p->desc.description);
    const struct op_spec s = {e->method, e->path, e->summary, NULL, tag,
                              cube_perm_name(e->perm),
                              cube_perm_needs_project(e->perm) ? "project" : NULL};
    cJSON *op = op_add(d, &s);
    bool known = false;
    for (size_t i = 0; op && core && i < sizeof FIXED / sizeof FIXED[0]; i++) {
        const struct fixed_resp *f = &FIXED[i];
        if (strcmp(f->method, e->method) != 0 || strcmp(f->path, e->path) != 0)
            continue;
        respond(d, op, f->code, f->desc, f->ctype, cJSON_Parse(f->schema));
        query_params(d, op, f->query);
        known = true;
    }
    if (op && !known)
        respond(d, op, "200", "Success", NULL, NULL);
}

/* ---- the generic resource routes, per kind ----------------------------------- */

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

static void generic_body(struct doc *d, cJSON *op, const struct generic *g,
                         const struct kind_names *n)
{
    if (g->body == B_OBJECT)
        request_body(d, op, JSON_CT, ref(n->object), true);
    else if (g->body == B_PATCH)
        request_body(d, op, "application/merge-patch+json",
                     cJSON_Parse("{\"type\":\"object\",\"description\":\"A JSON merge "
                                 "patch (RFC 7396) of the object\"}"), true);
    else if (g->body == B_ANY)
        request_body(d, op, JSON_CT, cJSON_CreateObject(), false);
}

static void generic_fill(struct doc *d, cJSON *op, const struct generic *g,
                         const struct kind_names *n)
{
    if (!g) {
        respond(d, op, "200", "Success", NULL, NULL);
        return;
    }
    generic_body(d, op, g, n);
    query_params(d, op, g->query);
    const char *target = g->resp == R_OBJECT ? n->object : g->resp == R_LIST ? n->list
                       : g->resp == R_STATUS ? "Status" : "EventList";
    respond(d, op, g->code, g->desc, JSON_CT,
            g->resp == R_ANY ? cJSON_CreateObject() : ref(target));
    if (g->resp == R_LIST) {
        cJSON *content = cJSON_GetObjectItem(
            cJSON_GetObjectItem(cJSON_GetObjectItem(op, "responses"), g->code), "content");
        put(d, cJSON_AddObjectToObject(content, "text/event-stream"), "schema",
            cJSON_Parse("{\"type\":\"string\"}"));
    }
    if (g->resp == R_STATUS)
        respond(d, op, "202", "Deletion pending on finalizers", JSON_CT, ref("Status"));
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
    cJSON *op = op_add(d, &s);
    if (op)
        generic_fill(d, op, g, &d->names[ki]);
}

static void kind_route(struct doc *d, const struct cube_route_entry *e, size_t ki)
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
    tag_add(d, k->plural, k->description);
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

/* ---- the document ------------------------------------------------------------ */

static void unique_name(const cJSON *schemas, const char *base, char *out, size_t n)
{
    snprintf(out, n, "%s", base);
    for (int i = 2; cJSON_HasObjectItem(schemas, out) && i < 10000; i++)
        snprintf(out, n, "%s_%d", base, i);
}

static cJSON *list_schema(const char *object)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"type\":\"object\",\"properties\":{\"apiVersion\":{\"type\":\"string\"},"
             "\"kind\":{\"type\":\"string\"},\"items\":{\"type\":\"array\",\"items\":"
             "{\"$ref\":\"" REF "%s\"}},\"metadata\":{\"type\":\"object\",\"properties\":{"
             STR_PROP("resourceVersion") ",\"continue\":{\"type\":\"string\","
             "\"description\":\"Pass as ?continue= for the next page\"}}}}}", object);
    return cJSON_Parse(text);
}

static int add_schemas(struct doc *d)
{
    const struct cube_kinds *reg = &d->ctx->kinds;
    if (cube_openapi_base_schemas(d->schemas) < 0 ||
        !put(d, d->schemas, "Readiness", cJSON_Parse(
            "{\"type\":\"object\",\"properties\":{" STR_PROP("status") "," STR_PROP("store")
            ",\"plugins\":{\"type\":\"object\",\"additionalProperties\":"
            "{\"type\":\"string\"}}}}")))
        return -1;
    d->names = calloc(reg->n ? reg->n : 1, sizeof *d->names);
    if (!d->names)
        return -1;
    for (size_t i = 0; i < reg->n; i++) {
        struct kind_names *n = &d->names[i];
        char base[80];
        unique_name(d->schemas, reg->items[i]->kind, n->object, sizeof n->object);
        cJSON *object = cube_kind_object_schema(reg->items[i]);
        put(d, d->schemas, n->object, cube_openapi_schema(object));
        cJSON_Delete(object);
        snprintf(base, sizeof base, "%sList", n->object);
        unique_name(d->schemas, base, n->list, sizeof n->list);
        put(d, d->schemas, n->list, list_schema(n->object));
    }
    return d->oom ? -1 : 0;
}

static cJSON *head(void)
{
    char text[768];
    snprintf(text, sizeof text,
             "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"Cube API\",\"version\":\"%s\","
             "\"description\":\"The resource API of every registered kind, the core's "
             "endpoints and the plugins' routes.\",\"license\":{\"name\":\"Apache-2.0\"}},"
             "\"servers\":[{\"url\":\"/\"}],\"tags\":[],\"paths\":{},\"components\":{"
             "\"securitySchemes\":{\"bearer\":{\"type\":\"http\",\"scheme\":\"bearer\","
             "\"description\":\"An API token (POST /api/v1/auth/tokens)\"},"
             "\"session\":{\"type\":\"apiKey\",\"in\":\"cookie\",\"name\":"
             "\"cube_session\",\"description\":\"The session cookie of POST "
             "/api/v1/auth/login; unsafe methods also need X-CSRF-Token\"}},"
             "\"schemas\":{}}}", CUBE_VERSION);
    return cJSON_Parse(text);
}

/* Every operation answers errors as Error. */
static void add_default_responses(struct doc *d)
{
    const cJSON *item, *op;
    cJSON_ArrayForEach(item, d->paths)
        cJSON_ArrayForEach(op, item)
            respond(d, (cJSON *)op, "default", "An error", JSON_CT, ref("Error"));
}

/* The route table in registration order (the list is newest first). */
static const struct cube_route_entry **routes_in_order(const struct cube_ctx *ctx,
                                                       size_t *n)
{
    *n = 0;
    for (const struct cube_route_entry *e = ctx->routes; e; e = e->next)
        (*n)++;
    const struct cube_route_entry **v = calloc(*n ? *n : 1, sizeof *v);
    size_t i = *n;
    for (const struct cube_route_entry *e = ctx->routes; v && e; e = e->next)
        v[--i] = e;
    return v;
}

static void add_paths(struct doc *d)
{
    size_t n;
    const struct cube_route_entry **routes = routes_in_order(d->ctx, &n);
    if (!routes) {
        d->oom = true;
        return;
    }
    /* Literal routes first, so that they win over a kind's concrete path. */
    for (size_t i = 0; i < n; i++)
        if (routes[i]->plugin != &d->ctx->core || !strstr(routes[i]->path, "{plural}"))
            fixed_route(d, routes[i]);
    for (size_t i = 0; i < n; i++)
        if (routes[i]->plugin == &d->ctx->core && strstr(routes[i]->path, "{plural}"))
            for (size_t k = 0; k < d->ctx->kinds.n; k++)
                kind_route(d, routes[i], k);
    free(routes);
    add_default_responses(d);
}

cJSON *cube_openapi_build(struct cube_ctx *ctx)
{
    struct doc d = {.ctx = ctx, .root = head(), .op_ids = cJSON_CreateObject(),
                    .shapes = cJSON_CreateObject()};
    if (d.root) {
        d.paths = cJSON_GetObjectItem(d.root, "paths");
        d.tags = cJSON_GetObjectItem(d.root, "tags");
        d.schemas = cJSON_GetObjectItem(cJSON_GetObjectItem(d.root, "components"),
                                        "schemas");
    }
    if (!d.root || !d.op_ids || !d.shapes || add_schemas(&d) < 0)
        d.oom = true;
    else
        add_paths(&d);
    free(d.names);
    cJSON_Delete(d.op_ids);
    cJSON_Delete(d.shapes);
    if (d.oom) {
        cJSON_Delete(d.root);
        return NULL;
    }
    return d.root;
}

static int get_openapi(void *state, cube_req *req)
{
    (void)state;
    cJSON *doc = cube_openapi_build(req->ctx);
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    if (!text)
        return cube_http_answer_error(req, 503, "Unavailable", "out of memory");
    int rc = cube_http_answer(req, 200, JSON_CT, text, strlen(text), 1);
    free(text);
    return rc;
}

int cube_openapi_route_register(struct cube_ctx *ctx)
{
    const struct cube_route_desc d = {sizeof d, "GET", "/api/v1/openapi.json",
                                      CUBE_PERM_PUBLIC, get_openapi,
                                      "This API as an OpenAPI 3.0.3 document"};
    char err[256];
    if (cube_ctx_add_route(ctx, &ctx->core, &d, err, sizeof err) != CUBE_OK) {
        cube_log(CUBE_LOG_ERROR, "core", "openapi route: %s", err);
        return -1;
    }
    return 0;
}
