/* openapi_priv.h — the document under construction and the operation
 * building blocks, shared by openapi.c (the document, fixed routes),
 * openapi_ops.c (operations, responses, parameters) and openapi_kinds.c
 * (the generic resource routes per kind). Not for other core files. */
#ifndef CUBE_OPENAPI_PRIV_H
#define CUBE_OPENAPI_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "openapi.h"

struct cube_route_entry;

#define OPENAPI_REF "#/components/schemas/"
#define OPENAPI_JSON "application/json"

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

struct op_spec {
    const char *method, *path, *summary, *description, *tag;
    const char *perm;          /* x-cube-permission: a CUBE_PERM_* or "self" */
    const char *project_param; /* x-cube-project-param, or NULL */
};

/* Which query parameters an operation takes (cube_openapi_query_params). */
enum { Q_NONE, Q_LIST, Q_EVENTS };

/* openapi_ops.c */

/* Sets obj[key] = item; an item that cannot be added is freed. */
cJSON *cube_openapi_put(struct doc *d, cJSON *obj, const char *key, cJSON *item);
/* {"$ref": "#/components/schemas/<name>"} (new tree; NULL on OOM). */
cJSON *cube_openapi_ref(const char *name);
/* Adds the tag to the document's list unless it is there already. */
void cube_openapi_tag_add(struct doc *d, const char *name, const char *description);
/* Adds an operation (no responses but "default" yet); NULL when the path
 * already has one for the method (a literal route wins over a kind's) or
 * the method has no OpenAPI name. */
cJSON *cube_openapi_op_add(struct doc *d, const struct op_spec *s);
/* responses[code] with a schema (owned) under content type ctype. */
void cube_openapi_respond(struct doc *d, cJSON *op, const char *code, const char *desc,
                          const char *ctype, cJSON *schema);
/* The query parameters of a list (Q_LIST) or events (Q_EVENTS) operation. */
void cube_openapi_query_params(struct doc *d, cJSON *op, int which);

/* openapi_kinds.c: the operations of generic route e for kind number ki,
 * when the route's scope is the kind's. */
void cube_openapi_kind_route(struct doc *d, const struct cube_route_entry *e, size_t ki);

#endif
