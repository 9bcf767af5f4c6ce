/* resources_http.c — the generic REST API every kind gets:
 *   /api/v1/projects/{project}/{plural}[/{name}[/status|/events|/{action}]]
 *   /api/v1/{plural}[/{name}[/status|/events|/{action}]]   (cluster kinds)
 * plus GET /api/v1/kinds and the project and cluster event lists.
 * Every handler checks the kind's rule for its verb (auth_resource.c)
 * before it touches an object. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth.h"
#include "ctx/ctx.h"
#include "cube_build.h"
#include "http/http_req.h"
#include "objects/kinds.h"
#include "base/log.h"
#include "logstore/logstore.h"
#include "base/names.h"
#include "objects/objects.h"
#include "objects/objects_priv.h"
#include "openapi/openapi.h"
#include "objects/selector.h"
#include "store/store.h"
#include "objects/watch.h"

/* The kind named by {plural}, if it has the scope the URL implies and the
 * caller may do `verb` with it; otherwise answers and returns NULL. */
static const struct cube_kind *kind_of(cube_req *req, const char **project,
                                       const char *verb)
{
    struct cube_ctx *ctx = req->ctx;
    *project = cube_route_match_param(&req->match, "project");
    const struct cube_kind *k =
        cube_kinds_by_plural(&ctx->kinds, cube_route_match_param(&req->match, "plural"));
    if (!k || (*project ? k->scope != CUBE_SCOPE_PROJECT : k->scope != CUBE_SCOPE_CLUSTER)) {
        cube_http_answer_error(req, 404, "NotFound", "no such resource type here");
        return NULL;
    }
    char why[128];
    if (*project && cube_name_check(*project, why, sizeof why) < 0) {
        cube_http_answer_error_field(req, 400, "BadRequest", why, "project");
        return NULL;
    }
    if (!cube_auth_resource(req, k, *project, verb, cube_route_match_param(&req->match, "name")))
        return NULL;
    return k;
}

/* Room for a copy of an object's name (valid names are shorter). */
#define NAME_COPY 256

static int answer_op_error(cube_req *req, const struct cube_op_error *e);
static struct cube_actor actor_of(cube_req *req);

/* Records a refused or failed write in the audit trail (when the target
 * is nameable), then answers with the error. */
static int refuse_write(cube_req *req, const struct cube_kind *k, const char *project,
                        const char *name, const char *verb, const struct cube_op_error *e)
{
    char why[128];
    if (name && cube_name_check(name, why, sizeof why) == 0 && e->status != 503) {
        struct cube_actor who = actor_of(req);
        char msg[700];
        snprintf(msg, sizeof msg, "%s %s/%s refused: %s", verb, k->plural, name, e->message);
        cube_obj_record_event(req->ctx, k, project, name, NULL, verb, who.user, e->status,
                              "Warning", "Refused", msg);
    }
    return answer_op_error(req, e);
}

static int answer_op_error(cube_req *req, const struct cube_op_error *e)
{
    return cube_http_answer_error_field(req, e->status, e->code, e->message, e->field);
}

static int answer_tree(cube_req *req, int status, cJSON *tree)
{
    char *text = cJSON_PrintUnformatted(tree);
    cJSON_Delete(tree);
    if (!text)
        return cube_http_answer_error(req, 503, "Unavailable", "out of memory");
    int rc = cube_http_answer(req, status, "application/json", text, strlen(text), 1);
    free(text);
    return rc;
}

/* Parses the request body as JSON; answers 400 naming the byte offset, or
 * 422 naming the field that holds an escaped NUL. */
static cJSON *parse_body(cube_req *req)
{
    const char *end = NULL;
    if (req->body_len == 0) {
        cube_http_answer_error(req, 400, "BadRequest", "a JSON body is required");
        return NULL;
    }
    if (strlen(req->body) != req->body_len) {
        cube_http_answer_error(req, 400, "BadRequest", "the body contains a NUL byte");
        return NULL;
    }
    /* The length includes the NUL the host adds, which cJSON's "nothing
     * may follow the document" check looks for. */
    cJSON *body = cJSON_ParseWithLengthOpts(req->body, req->body_len + 1, &end, 1);
    if (!body) {
        char msg[96];
        snprintf(msg, sizeof msg, "malformed JSON near byte %zu",
                 end ? (size_t)(end - req->body) : (size_t)0);
        cube_http_answer_error(req, 400, "BadRequest", msg);
        return NULL;
    }
    return body;   /* duplicate keys, NUL and bad UTF-8 were refused (json_check.c) */
}

static struct cube_actor actor_of(cube_req *req)
{
    return cube_auth_actor(req);
}

static int parse_int_query(cube_req *req, const char *name, long long max,
                           long long *out)
{
    const char *v = cube_req_query(req, name);
    char *end;
    *out = 0;
    if (!v || !*v)
        return 0;
    long long n = strtoll(v, &end, 10);
    if (*end || n < 0 || n > max) {
        char msg[96];
        snprintf(msg, sizeof msg, "%s: expected an integer from 0 to %lld", name, max);
        cube_http_answer_error_field(req, 400, "BadRequest", msg, name);
        return -1;
    }
    *out = n;
    return 0;
}

static int watch(cube_req *req, const struct cube_kind *k, const char *project,
                 struct cube_selector *sel)
{
    long long rv;
    const char *last = cube_req_header(req, "Last-Event-ID");
    if (parse_int_query(req, "resourceVersion", INT64_MAX, &rv) < 0) {
        cube_selector_free(sel);
        return CUBE_OK;
    }
    if (!rv && last)
        rv = strtoll(last, NULL, 10);
    return cube_hub_respond(req->ctx->hub, req, k->kind, project, sel, rv);
}

/* Drops the items of a User or Project list the caller may not see. */
static void filter_items(cube_req *req, const struct cube_kind *k, cJSON *items)
{
    for (int i = cJSON_GetArraySize(items) - 1; i >= 0; i--) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(items, i), "metadata"),
            "name"));
        if (!name || !cube_auth_list_filter(req, k, name))
            cJSON_DeleteItemFromArray(items, i);
    }
}

static int list_objects(void *state, cube_req *req)
{
    (void)state;
    const char *project;
    const struct cube_kind *k = kind_of(req, &project, "list");
    char err[256];
    long long limit;
    if (!k || parse_int_query(req, "limit", 100000, &limit) < 0)
        return CUBE_OK;
    struct cube_selector *sel = cube_selector_parse(cube_req_query(req, "labelSelector"),
                                                    err, sizeof err);
    if (!sel)
        return cube_http_answer_error_field(req, 400, "BadRequest", err, "labelSelector");
    const char *w = cube_req_query(req, "watch");
    /* Users and Projects are listed item by item (filter_items); a watch
     * of them cannot be, so it is for administrators. A project kind's
     * watch sees that project only, which list already allowed. */
    int filtered = k->core && k->scope == CUBE_SCOPE_CLUSTER && !cube_auth_who(req)->admin;
    if (w && (strcmp(w, "1") == 0 || strcmp(w, "true") == 0)) {
        if (!filtered)
            return watch(req, k, project, sel);
        cube_selector_free(sel);
        return cube_http_answer_error(req, 403, "Forbidden",
                                      "watching this kind needs a platform administrator");
    }
    cJSON *out;
    struct cube_op_error e;
    int rc = cube_obj_list(req->ctx, k, project, sel, (size_t)limit,
                           cube_req_query(req, "continue"), &out, &e);
    cube_selector_free(sel);
    if (rc < 0)
        return answer_op_error(req, &e);
    if (filtered)
        filter_items(req, k, cJSON_GetObjectItemCaseSensitive(out, "items"));
    return answer_tree(req, 200, out);
}

static int create_object(void *state, cube_req *req)
{
    (void)state;
    const char *project;
    const struct cube_kind *k = kind_of(req, &project, "create");
    cJSON *body = k ? parse_body(req) : NULL;
    char *text, name[NAME_COPY] = "";
    if (!body)
        return CUBE_OK;
    /* The body becomes the object: keep its name for refuse_write. */
    const char *given = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(body, "metadata"), "name"));
    int named = given && strlen(given) < sizeof name;
    if (named)
        memcpy(name, given, strlen(given) + 1);
    struct cube_op_error e;
    struct cube_actor who = actor_of(req);
    if (cube_obj_create_text(req->ctx, k, project, body, &who, &text, &e) < 0) {
        refuse_write(req, k, project, named ? name : NULL, "create", &e);
        return CUBE_OK;
    }
    /* The text stored is the answer: no second print. */
    int rc = cube_http_answer(req, 201, "application/json", text, strlen(text), 1);
    free(text);
    return rc;
}

static int get_object(void *state, cube_req *req)
{
    (void)state;
    const char *project;
    const struct cube_kind *k = kind_of(req, &project, "get");
    if (!k)
        return CUBE_OK;
    char *text;
    struct cube_op_error e;
    /* The stored text is already the answer: no parse and print. */
    if (cube_obj_load_text(req->ctx, k, project, cube_route_match_param(&req->match, "name"),
                           &text, NULL, &e) < 0)
        return answer_op_error(req, &e);
    int rc = cube_http_answer(req, 200, "application/json", text, strlen(text), 1);
    free(text);
    return rc;
}

/* PUT, PATCH and PUT .../status share the shape: body in, object out. */
static int write_object(cube_req *req, int which)
{
    const char *project;
    const struct cube_kind *k = kind_of(req, &project, which == 2 ? "status" : "update");
    cJSON *body = k ? parse_body(req) : NULL, *out = NULL;
    if (!body)
        return CUBE_OK;
    const char *name = cube_route_match_param(&req->match, "name");
    struct cube_op_error e;
    struct cube_actor who = actor_of(req);
    int rc;
    if (which == 0) {
        rc = cube_obj_replace(req->ctx, k, project, name, body, &who, &out, &e);
    } else if (which == 1) {
        rc = cube_obj_patch(req->ctx, k, project, name, body, &who, &out, &e);
    } else {
        const cJSON *rvj = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(body, "metadata"), "resourceVersion");
        int64_t rv = cJSON_IsString(rvj) ? strtoll(rvj->valuestring, NULL, 10) : 0;
        rc = cube_obj_put_status(req->ctx, k, project, name,
                                 cJSON_GetObjectItemCaseSensitive(body, "status"), rv,
                                 &who, &out, &e);
    }
    cJSON_Delete(body);
    if (rc < 0)
        return refuse_write(req, k, project, name, which == 0 ? "update"
                            : which == 1 ? "patch" : "update-status", &e);
    return answer_tree(req, 200, out);
}

static int put_object(void *state, cube_req *req) { (void)state; return write_object(req, 0); }
static int patch_object(void *state, cube_req *req) { (void)state; return write_object(req, 1); }
static int put_status(void *state, cube_req *req) { (void)state; return write_object(req, 2); }

static int delete_object(void *state, cube_req *req)
{
    (void)state;
    const char *project;
    const struct cube_kind *k = kind_of(req, &project, "delete");
    if (!k)
        return CUBE_OK;
    const char *name = cube_route_match_param(&req->match, "name");
    struct cube_op_error e;
    struct cube_actor who = actor_of(req);
    int rc = cube_obj_delete(req->ctx, k, project, name, &who, &e);
    if (rc < 0)
        return refuse_write(req, k, project, name, "delete", &e);
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "kind", "Status");
    cJSON_AddStringToObject(st, "status", rc == 1 ? "Pending" : "Success");
    cJSON *details = cJSON_AddObjectToObject(st, "details");
    cJSON_AddStringToObject(details, "kind", k->kind);
    cJSON_AddStringToObject(details, "name", name);
    return answer_tree(req, rc == 1 ? 202 : 200, st);
}

struct event_page {
    cJSON *items;
    int64_t last_id;
};

static int take_event(void *cls, int64_t id, const char *doc)
{
    struct event_page *p = cls;
    cJSON *ev = cJSON_Parse(doc);
    if (ev)
        cJSON_AddItemToArray(p->items, ev);
    p->last_id = id;
    return 0;
}

/* Events of one object (name given), or of a project / the cluster. */
static int list_events(cube_req *req, const struct cube_kind *k,
                       const char *project, const char *name)
{
    long long limit, before;
    if (parse_int_query(req, "limit", 1000, &limit) < 0 ||
        parse_int_query(req, "before", INT64_MAX, &before) < 0)
        return CUBE_OK;
    struct event_page p = {.items = cJSON_CreateArray()};
    int rc = cube_store_event_list(req->ctx->store, project ? project : "",
                                   k ? k->kind : NULL, name, before,
                                   limit ? (size_t)limit : 100, take_event, &p);
    if (rc != CUBE_OK) {
        cJSON_Delete(p.items);
        struct cube_op_error e;
        cube_op_store_fail(&e, rc, "events");
        return answer_op_error(req, &e);
    }
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "kind", "EventList");
    cJSON_AddItemToObject(doc, "items", p.items);
    if (p.last_id && cJSON_GetArraySize(p.items) == (limit ? limit : 100)) {
        char next[24];
        snprintf(next, sizeof next, "%" PRId64, p.last_id);
        cJSON_AddStringToObject(cJSON_AddObjectToObject(doc, "metadata"), "before", next);
    }
    return answer_tree(req, 200, doc);
}

static int object_events(void *state, cube_req *req)
{
    (void)state;
    const char *project;
    const struct cube_kind *k = kind_of(req, &project, "get");
    return k ? list_events(req, k, project, cube_route_match_param(&req->match, "name"))
             : CUBE_OK;
}

static int project_events(void *state, cube_req *req)
{
    (void)state;
    return list_events(req, NULL, cube_route_match_param(&req->match, "project"), NULL);
}

static int cluster_events(void *state, cube_req *req)
{
    (void)state;
    return list_events(req, NULL, NULL, NULL);
}

/* GET .../{name}/logs[?stream=S|replica=N][&follow=1][&offset=B]: every
 * kind's log streams (a plugin may register its own "logs" view instead).
 * The default stream is "main" ("replica-0" for Jobs); replica N reads
 * "replica-N". */
static int object_logs(cube_req *req, const struct cube_kind *k, const char *project)
{
    char stream[64];
    long long offset, replica;
    const char *name = cube_route_match_param(&req->match, "name");
    const char *s = cube_req_query(req, "stream"), *follow = cube_req_query(req, "follow");
    if (parse_int_query(req, "offset", INT64_MAX, &offset) < 0 ||
        parse_int_query(req, "replica", 100000, &replica) < 0)
        return CUBE_OK;
    if (s && *s)
        snprintf(stream, sizeof stream, "%s", s);
    else if (cube_req_query(req, "replica"))
        snprintf(stream, sizeof stream, "replica-%lld", replica);
    else   /* a Job's output is per replica: the first by default */
        snprintf(stream, sizeof stream, "%s", k->core && !strcmp(k->kind, "Job")
                 ? "replica-0" : "main");
    cJSON *obj;
    struct cube_op_error e;
    if (cube_obj_get(req->ctx, k, project, name, &obj, &e) < 0)
        return answer_op_error(req, &e);
    cJSON_Delete(obj);
    cube_logstore_respond(req->ctx->logs, req, k->kind, project, name, stream,
                          (uint64_t)offset,
                          follow && (!strcmp(follow, "1") || !strcmp(follow, "true")));
    if (!req->answered) /* only a bad stream name leaves it unanswered */
        return cube_http_answer_error_field(req, 400, "BadRequest", "bad log stream name",
                                            "stream");
    return CUBE_OK;
}

/* Checks an action's own permission: on project kinds the caller must be
 * a member first (404 otherwise), and project:operate admits the dev who
 * owns the object; on cluster kinds project permissions mean admin. */
static int action_allowed(cube_req *req, const struct cube_kind *k, const char *project,
                          const struct cube_action *a, const cJSON *obj)
{
    if (k->scope == CUBE_SCOPE_CLUSTER)
        return cube_auth_check(req, cube_perm_needs_project(a->perm) ? CUBE_P_ADMIN
                                                                    : a->perm, NULL);
    const char *owner = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "owner"));
    return cube_auth_check_owner(req, a->perm, project, owner);
}

/* POST/GET .../{name}/{action}: membership, the object must exist; then
 * the action's own permission and handler. */
static int run_action(void *state, cube_req *req)
{
    (void)state;
    const char *project;
    const char *action = cube_route_match_param(&req->match, "action");
    int view = strcmp(action, "logs") == 0 && strcmp(req->method, "POST") != 0;
    const struct cube_kind *k = kind_of(req, &project, view ? "get" : "list");
    if (!k)
        return CUBE_OK;
    const struct cube_action *a = cube_kinds_action(&req->ctx->kinds, k->kind, req->method,
                                                    action);
    if (!a && view)
        return object_logs(req, k, project);
    if (!a)
        return cube_http_answer_error(req, 404, "NotFound", "no such action for this kind");
    cJSON *obj;
    struct cube_op_error e;
    if (cube_obj_get(req->ctx, k, project, cube_route_match_param(&req->match, "name"),
                     &obj, &e) < 0)
        return answer_op_error(req, &e);
    int allowed = action_allowed(req, k, project, a, obj);
    cJSON_Delete(obj);
    if (!allowed)
        return CUBE_OK; /* answered 401/403 */
    int rc = a->handler(a->plugin ? a->plugin->state : req->ctx, req);
    if (!req->answered) {
        const char *code;
        int status = cube_status_for(rc == CUBE_OK ? CUBE_EINTERNAL : rc, &code);
        cube_http_answer_error(req, status, code, "the action failed");
    }
    return CUBE_OK;
}

static int get_kinds(void *state, cube_req *req)
{
    (void)state;
    return answer_tree(req, 200, cube_kinds_to_json(&req->ctx->kinds));
}

static int get_version(void *state, cube_req *req)
{
    (void)state;
    char body[160];
    snprintf(body, sizeof body, "{\"version\":\"%s\",\"abi\":\"%d.%d\",\"store\":\"%s\"}",
             CUBE_VERSION, CUBE_ABI_MAJOR, CUBE_ABI_MINOR,
             req->ctx->store ? cube_store_driver(req->ctx->store) : "none");
    return cube_http_answer(req, 200, "application/json", body, strlen(body), 0);
}

int cube_resources_routes_register(struct cube_ctx *ctx)
{
    /* Decided per kind and verb by the handlers (cube_auth_resource). */
    static const char PERM_RES[] = "resource";
#define R(m, p, perm, h, s) {sizeof(struct cube_route_desc), m, p, perm, h, s, 0, 0, NULL}
    static const char *const prefixes[] = {"/api/v1/projects/{project}/{plural}",
                                           "/api/v1/{plural}"};
    const struct cube_route_desc fixed[] = {
        R("GET", "/api/v1/kinds", CUBE_PERM_PUBLIC, get_kinds, "Registered kinds"),
        R("GET", "/api/v1/version", CUBE_PERM_PUBLIC, get_version, "Server version"),
        R("GET", "/api/v1/events", CUBE_PERM_ADMIN, cluster_events, "Cluster events"),
        R("GET", "/api/v1/projects/{project}/events", CUBE_PERM_PROJECT_VIEW, project_events,
          "A project's events"),
    };
    char err[256], path[160];
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (cube_ctx_add_route(ctx, &ctx->core, &fixed[i], err, sizeof err) != CUBE_OK)
            goto fail;
    for (size_t p = 0; p < 2; p++) {
        const struct { const char *m, *suffix, *perm; cube_route_fn h; const char *s; } per[] = {
            {"GET", "", PERM_RES, list_objects, "List or watch objects"},
            {"POST", "", PERM_RES, create_object, "Create an object"},
            {"GET", "/{name}", PERM_RES, get_object, "Read an object"},
            {"PUT", "/{name}", PERM_RES, put_object, "Replace an object"},
            {"PATCH", "/{name}", PERM_RES, patch_object, "Merge-patch an object"},
            {"DELETE", "/{name}", PERM_RES, delete_object, "Delete an object"},
            {"PUT", "/{name}/status", PERM_RES, put_status, "Replace the status"},
            {"GET", "/{name}/events", PERM_RES, object_events, "An object's events"},
            {"POST", "/{name}/{action}", PERM_RES, run_action, "Run an action"},
            {"GET", "/{name}/{action}", PERM_RES, run_action, "Read a view"},
        };
        for (size_t i = 0; i < sizeof per / sizeof per[0]; i++) {
            snprintf(path, sizeof path, "%s%s", prefixes[p], per[i].suffix);
            const struct cube_route_desc d = R(per[i].m, path, per[i].perm, per[i].h, per[i].s);
            if (cube_ctx_add_route(ctx, &ctx->core, &d, err, sizeof err) != CUBE_OK)
                goto fail;
        }
    }
    return cube_openapi_route_register(ctx);
#undef R
fail:
    cube_log(CUBE_LOG_ERROR, "core", "resource routes: %s", err);
    return -1;
}
