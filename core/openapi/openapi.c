/* openapi.c — GET /api/v1/openapi.json (see openapi.h): one operation per
 * route of the table (core and plugins); the generic resource routes
 * (those with {plural}) written out per kind of the matching scope, with
 * the kind's schema and one path per registered action. This file holds the
 * document itself (head, component schemas, the walk over the route table),
 * the routes with a fixed shape and the route serving it; the building
 * blocks of an operation are in openapi_ops.c, the per-kind routes in
 * openapi_kinds.c. */
#include "openapi.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth.h"
#include "ctx/ctx.h"
#include "cube_build.h"
#include "http/http_req.h"
#include "objects/kinds.h"
#include "base/log.h"
#include "openapi_priv.h"

/* ---- routes with a fixed shape ---------------------------------------------- */

#define FILES "/api/v1/projects/{project}/files"
/* Response schemas of the fixed routes: responses.schema.json beside this
 * file, embedded at build time. A fixed route names one of its entries, or
 * (a reference, a plain type) gives its schema inline. */
#include "openapi/responses_schema.h"

static const struct fixed_resp {
    const char *method, *path, *code, *desc, *ctype, *schema;
    int query;
} FIXED[] = {
    {"GET", "/healthz", "200", "The process answers", OPENAPI_JSON,
     "Health", Q_NONE},
    {"GET", "/readyz", "200", "Ready", OPENAPI_JSON,
     "{\"$ref\":\"" OPENAPI_REF "Readiness\"}", Q_NONE},
    {"GET", "/readyz", "503", "Not ready", OPENAPI_JSON,
     "{\"$ref\":\"" OPENAPI_REF "Readiness\"}", Q_NONE},
    {"GET", "/metrics", "200", "Prometheus text exposition format", "text/plain",
     "{\"type\":\"string\"}", Q_NONE},
    {"GET", "/api/v1/kinds", "200", "The registered kinds", OPENAPI_JSON,
     "{\"$ref\":\"" OPENAPI_REF "KindList\"}", Q_NONE},
    {"GET", "/api/v1/version", "200", "Versions of the server, its ABI and its store",
     OPENAPI_JSON, "Version", Q_NONE},
    {"GET", "/api/v1/events", "200", "A page of events", OPENAPI_JSON,
     "{\"$ref\":\"" OPENAPI_REF "EventList\"}", Q_EVENTS},
    {"GET", "/api/v1/projects/{project}/events", "200", "A page of events", OPENAPI_JSON,
     "{\"$ref\":\"" OPENAPI_REF "EventList\"}", Q_EVENTS},
    {"GET", "/api/v1/openapi.json", "200", "This document (OpenAPI 3.0.3)", OPENAPI_JSON,
     "{\"type\":\"object\"}", Q_NONE},
    {"GET", FILES, "200", "The project directory's listing", OPENAPI_JSON, "FileList", Q_NONE},
    {"GET", FILES "/{path*}", "200", "The file's bytes; for a directory, its listing "
     "(application/json, as GET .../files)", "application/octet-stream", "Bytes", Q_NONE},
    {"GET", FILES "/{path*}", "206", "The range a Range header asked for",
     "application/octet-stream", "Bytes", Q_NONE},
    {"PUT", FILES "/{path*}", "201", "Created: the file's entry", OPENAPI_JSON, "FileEntry",
     Q_NONE},
    {"PUT", FILES "/{path*}", "200", "Replaced: the file's entry", OPENAPI_JSON, "FileEntry",
     Q_NONE},
    {"DELETE", FILES "/{path*}", "200", "Deleted: what the entry was", OPENAPI_JSON,
     "FileEntry", Q_NONE},
};

/* A fixed route's response schema: inline JSON, or the name of an entry of
 * responses.schema.json (a new tree either way; NULL on OOM). */
static cJSON *fixed_schema(const char *schema)
{
    if (schema[0] == '{')
        return cJSON_Parse(schema);
    cJSON *all = cJSON_Parse(RESPONSES_SCHEMA);
    cJSON *one = cJSON_DetachItemFromObjectCaseSensitive(all, schema);
    cJSON_Delete(all);
    return one;
}

static void fixed_route(struct doc *d, const struct cube_route_entry *e)
{
    const struct cube_plugin *p = e->plugin;
    bool core = p == &d->ctx->core;
    const char *tag = core ? "core" : p->name;
    cube_openapi_tag_add(d, tag, core ? "The core's own endpoints"
                                      : p->desc.description);
    const struct op_spec s = {e->method, e->path, e->summary, NULL, tag,
                              cube_perm_name(e->perm),
                              cube_perm_needs_project(e->perm) ? "project" : NULL};
    cJSON *op = cube_openapi_op_add(d, &s);
    bool known = false;
    for (size_t i = 0; op && core && i < sizeof FIXED / sizeof FIXED[0]; i++) {
        const struct fixed_resp *f = &FIXED[i];
        if (strcmp(f->method, e->method) != 0 || strcmp(f->path, e->path) != 0)
            continue;
        cube_openapi_respond(d, op, f->code, f->desc, f->ctype, fixed_schema(f->schema));
        cube_openapi_query_params(d, op, f->query);
        known = true;
    }
    if (op && !known)
        cube_openapi_respond(d, op, "200", "Success", NULL, NULL);
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
             "{\"$ref\":\"" OPENAPI_REF "%s\"}},"
             "\"metadata\":{\"type\":\"object\",\"properties\":{"
             "\"resourceVersion\":{\"type\":\"string\"},\"continue\":{\"type\":\"string\","
             "\"description\":\"Pass as ?continue= for the next page\"}}}}}", object);
    return cJSON_Parse(text);
}

static int add_schemas(struct doc *d)
{
    const struct cube_kinds *reg = &d->ctx->kinds;
    if (cube_openapi_base_schemas(d->schemas) < 0)
        return -1;
    d->names = calloc(reg->n ? reg->n : 1, sizeof *d->names);
    if (!d->names)
        return -1;
    for (size_t i = 0; i < reg->n; i++) {
        struct kind_names *n = &d->names[i];
        char base[80];
        unique_name(d->schemas, reg->items[i]->kind, n->object, sizeof n->object);
        cJSON *object = cube_kind_object_schema(reg->items[i]);
        cube_openapi_put(d, d->schemas, n->object, cube_openapi_schema(object));
        cJSON_Delete(object);
        snprintf(base, sizeof base, "%sList", n->object);
        unique_name(d->schemas, base, n->list, sizeof n->list);
        cube_openapi_put(d, d->schemas, n->list, list_schema(n->object));
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
            cube_openapi_respond(d, (cJSON *)op, "default", "An error", OPENAPI_JSON,
                                 cube_openapi_ref("Error"));
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
                cube_openapi_kind_route(d, routes[i], k);
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
    int rc = cube_http_answer(req, 200, OPENAPI_JSON, text, strlen(text), 1);
    free(text);
    return rc;
}

int cube_openapi_route_register(struct cube_ctx *ctx)
{
    const struct cube_route_desc d = {sizeof d, "GET", "/api/v1/openapi.json",
                                      CUBE_PERM_PUBLIC, get_openapi,
                                      "This API as an OpenAPI 3.0.3 document", 0, 0, NULL};
    char err[256];
    if (cube_ctx_add_route(ctx, &ctx->core, &d, err, sizeof err) != CUBE_OK) {
        cube_log(CUBE_LOG_ERROR, "core", "openapi route: %s", err);
        return -1;
    }
    return 0;
}
