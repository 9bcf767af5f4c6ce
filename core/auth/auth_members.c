/* auth_members.c — project membership: the routes under
 * /api/v1/projects/{project}/members and the helper the core uses to add
 * members (default project, SSO group mappings). Members live in the
 * Project object's spec.members, so every change is a normal, audited,
 * versioned write of that object (retried on a concurrent change). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth_priv.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "objects/kinds.h"
#include "base/log.h"
#include "objects/objects.h"
#include "base/strmap.h"

#define RETRIES 5

/* How one membership change edits the members array: 0 changed, 1
 * nothing to do, -1 refused (e filled). */
typedef int (*member_edit_fn)(cJSON *members, const char *user, int role,
                              struct cube_op_error *e);

static cJSON *find_member(cJSON *members, const char *user)
{
    cJSON *m;
    cJSON_ArrayForEach(m, members) {
        const char *u = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "user"));
        if (u && strcmp(u, user) == 0)
            return m;
    }
    return NULL;
}

int auth_creator_count(const cJSON *members)
{
    const cJSON *m;
    int n = 0;
    cJSON_ArrayForEach(m, members)
        n += cube_role_parse(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "role")))
             == CUBE_ROLE_CREATOR;
    return n;
}

/* Reads the project, applies edit, writes it back; retries on a conflict.
 * Returns 0, 1 (no change needed) or -1 with e. */
static int edit_project(struct cube_auth *a, const char *project, const char *user,
                        int role, member_edit_fn edit, const struct cube_actor *who,
                        struct cube_op_error *e)
{
    for (int attempt = 0; attempt < RETRIES; attempt++) {
        cJSON *obj, *out = NULL;
        if (cube_obj_get(a->ctx, a->project_kind, NULL, project, &obj, e) < 0)
            return -1;
        cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
        cJSON *members = cJSON_GetObjectItemCaseSensitive(spec, "members");
        if (!members)
            members = cJSON_AddArrayToObject(spec, "members");
        int rc = edit(members, user, role, e);
        if (rc == 0 && cube_obj_replace(a->ctx, a->project_kind, NULL, project, obj, who,
                                        &out, e) < 0)
            rc = e->status == 409 && strcmp(e->code, "Conflict") == 0 ? 2 : -1;
        cJSON_Delete(obj);
        cJSON_Delete(out);
        if (rc != 2)
            return rc;
    }
    return -1;
}

static int edit_add(cJSON *members, const char *user, int role, struct cube_op_error *e)
{
    if (find_member(members, user)) {
        cube_op_fail(e, 409, "AlreadyExists", "user", "%s is already a member", user);
        return -1;
    }
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "user", user);
    cJSON_AddStringToObject(m, "role", cube_role_name(role));
    cJSON_AddItemToArray(members, m);
    return 0;
}

/* Adds, or raises the role of an existing member (never lowers it). */
static int edit_ensure(cJSON *members, const char *user, int role, struct cube_op_error *e)
{
    cJSON *m = find_member(members, user);
    if (!m)
        return edit_add(members, user, role, e);
    int now = cube_role_parse(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "role")));
    if (now >= role)
        return 1;
    cJSON_ReplaceItemInObjectCaseSensitive(m, "role", cJSON_CreateString(cube_role_name(role)));
    return 0;
}

static int edit_set(cJSON *members, const char *user, int role, struct cube_op_error *e)
{
    cJSON *m = find_member(members, user);
    if (!m) {
        cube_op_fail(e, 404, "NotFound", "user", "%s is not a member", user);
        return -1;
    }
    int was = cube_role_parse(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "role")));
    if (was == CUBE_ROLE_CREATOR && role != CUBE_ROLE_CREATOR && auth_creator_count(members) == 1) {
        cube_op_fail(e, 409, "Conflict", "role", "%s is the project's last creator", user);
        return -1;
    }
    cJSON_ReplaceItemInObjectCaseSensitive(m, "role", cJSON_CreateString(cube_role_name(role)));
    return 0;
}

static int edit_remove(cJSON *members, const char *user, int role, struct cube_op_error *e)
{
    (void)role;
    cJSON *m = find_member(members, user);
    if (!m) {
        cube_op_fail(e, 404, "NotFound", "user", "%s is not a member", user);
        return -1;
    }
    int was = cube_role_parse(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "role")));
    if (was == CUBE_ROLE_CREATOR && auth_creator_count(members) == 1) {
        cube_op_fail(e, 409, "Conflict", "user", "%s is the project's last creator", user);
        return -1;
    }
    cJSON_DetachItemViaPointer(members, m);
    cJSON_Delete(m);
    return 0;
}

/* Removes a deleted user, whatever their role. */
static int edit_purge(cJSON *members, const char *user, int role, struct cube_op_error *e)
{
    (void)role;
    (void)e;
    cJSON *m = find_member(members, user);
    if (!m)
        return 1;
    cJSON_DetachItemViaPointer(members, m);
    cJSON_Delete(m);
    return 0;
}

static int collect_project(void *cls, const char *name, void *value)
{
    (void)value;
    cJSON_AddItemToArray(cls, cJSON_CreateString(name));
    return 0;
}

void auth_project_purge_user(struct cube_auth *a, const char *user)
{
    struct cube_actor sys = {AUTH_SYSTEM_ACTOR, 1, NULL};
    struct cube_op_error e;
    cJSON *names = cJSON_CreateArray(), *n;
    pthread_rwlock_rdlock(&a->mu);
    cube_strmap_each(a->projects, collect_project, names);
    pthread_rwlock_unlock(&a->mu);
    cJSON_ArrayForEach(n, names)
        if (auth_index_role(a, n->valuestring, user) != CUBE_ROLE_NONE &&
            edit_project(a, n->valuestring, user, 0, edit_purge, &sys, &e) < 0)
            cube_log(CUBE_LOG_WARN, "auth", "cannot remove deleted user %s from project %s: "
                     "%s", user, n->valuestring, e.message);
    cJSON_Delete(names);
}

int auth_project_add_member(struct cube_auth *a, const char *project, const char *user,
                            int role, int raise)
{
    struct cube_actor sys = {AUTH_SYSTEM_ACTOR, 1, NULL};
    struct cube_op_error e;
    (void)raise;
    if (edit_project(a, project, user, role, edit_ensure, &sys, &e) < 0) {
        cube_log(CUBE_LOG_WARN, "auth", "cannot add %s to project %s: %s", user, project,
                 e.message);
        return -1;
    }
    return 0;
}

/* -- routes ---------------------------------------------------------------- */

static int answer_members(cube_req *req, struct cube_auth *a, const char *project, int status)
{
    cJSON *obj;
    struct cube_op_error e;
    if (cube_obj_get(a->ctx, a->project_kind, NULL, project, &obj, &e) < 0)
        return cube_http_answer_error_field(req, e.status, e.code, e.message, e.field);
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "kind", "MemberList");
    cJSON *items = cJSON_DetachItemFromObjectCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "spec"), "members");
    cJSON_AddItemToObject(doc, "items", items ? items : cJSON_CreateArray());
    cJSON_Delete(obj);
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    int rc = text ? cube_http_answer(req, status, "application/json", text, strlen(text), 1)
                  : cube_http_answer_error(req, 503, "Unavailable", "out of memory");
    free(text);
    return rc;
}

static int list_members(void *state, cube_req *req)
{
    return answer_members(req, AUTH_OF(state), cube_route_match_param(&req->match, "project"),
                          200);
}

/* Reads {"user"?, "role"} from the body; answers 400/422 on error. */
static int member_body(cube_req *req, int need_user, char user[CUBE_USER_MAX], int *role)
{
    cJSON *b = auth_json_body(req, "{user, role}");
    const char *u = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "user"));
    const char *r = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "role"));
    int ok = 0;
    if (!b)
        ;   /* answered */
    else if (need_user && (!u || strlen(u) >= CUBE_USER_MAX))
        cube_http_answer_error_field(req, 422, "Invalid", "user: required, a user name", "user");
    else if (!(*role = cube_role_parse(r)))
        cube_http_answer_error_field(req, 422, "Invalid",
                                     "role: must be creator, ops, dev or viewer", "role");
    else
        ok = 1;
    if (ok && need_user)
        snprintf(user, CUBE_USER_MAX, "%s", u);
    cJSON_Delete(b);
    return ok;
}

/* Runs one membership edit as the caller and answers the new list. */
static int change(cube_req *req, struct cube_auth *a, const char *user, int role,
                  member_edit_fn edit, int status)
{
    const char *project = cube_route_match_param(&req->match, "project");
    struct cube_actor who = cube_auth_actor(req);
    struct cube_op_error e;
    if (edit_project(a, project, user, role, edit, &who, &e) < 0)
        return cube_http_answer_error_field(req, e.status, e.code, e.message, e.field);
    return answer_members(req, a, project, status);
}

static int add_member(void *state, cube_req *req)
{
    struct cube_auth *a = AUTH_OF(state);
    char user[CUBE_USER_MAX];
    int role, admin, disabled;
    if (!member_body(req, 1, user, &role))
        return CUBE_OK;
    if (auth_index_get_user(a, user, &admin, &disabled) < 0)
        return cube_http_answer_error_field(req, 422, "Invalid", "user: no such user", "user");
    return change(req, a, user, role, edit_add, 201);
}

static int set_member(void *state, cube_req *req)
{
    int role;
    if (!member_body(req, 0, NULL, &role))
        return CUBE_OK;
    return change(req, AUTH_OF(state), cube_route_match_param(&req->match, "user"), role,
                  edit_set, 200);
}

static int remove_member(void *state, cube_req *req)
{
    return change(req, AUTH_OF(state), cube_route_match_param(&req->match, "user"), 0,
                  edit_remove, 200);
}

int auth_members_routes_register(struct cube_auth *a)
{
    static const char base[] = "/api/v1/projects/{project}/members";
    const struct cube_route_desc routes[] = {
        {sizeof routes[0], "GET", base, CUBE_PERM_PROJECT_VIEW, list_members,
         "A project's members and their roles", 0, 0, NULL},
        {sizeof routes[0], "POST", base, CUBE_PERM_PROJECT_MANAGE, add_member,
         "Add a member {user, role}", 0, 0, NULL},
        {sizeof routes[0], "PUT", "/api/v1/projects/{project}/members/{user}",
         CUBE_PERM_PROJECT_MANAGE, set_member, "Change a member's role {role}", 0, 0, NULL},
        {sizeof routes[0], "DELETE", "/api/v1/projects/{project}/members/{user}",
         CUBE_PERM_PROJECT_MANAGE, remove_member, "Remove a member", 0, 0, NULL},
    };
    return cube_ctx_add_core_routes(a->ctx, routes, sizeof routes / sizeof routes[0], "members");
}
