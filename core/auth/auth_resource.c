/* auth_resource.c — the permissions of the generic resource API: one rule
 * per kind and verb (see cube_auth_resource_rule), checked before any
 * object is touched, and the filters that hide User and Project objects a
 * caller may not see. The OpenAPI document prints the same rules. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "auth.h"
#include "auth_priv.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "objects/kinds.h"
#include "objects/objects.h"
#include "objects/objects_priv.h"

static int is_read(const char *verb)
{
    return strcmp(verb, "get") == 0 || strcmp(verb, "list") == 0;
}

static struct cube_res_rule rule(int perm, const char *param, int self)
{
    return (struct cube_res_rule){perm, param, self};
}

/* Users: administrators manage them; everyone reads their own. */
static struct cube_res_rule user_rule(const char *verb)
{
    if (strcmp(verb, "get") == 0)
        return rule(CUBE_P_USER, NULL, 1);
    return rule(strcmp(verb, "list") == 0 ? CUBE_P_USER : CUBE_P_ADMIN, NULL, 0);
}

/* Projects: members read, creators manage, administrators create and
 * delete (unless auth.users_create_projects). */
static struct cube_res_rule project_rule(const struct cube_ctx *ctx, const char *verb)
{
    if (strcmp(verb, "list") == 0)
        return rule(CUBE_P_USER, NULL, 0);
    if (strcmp(verb, "get") == 0)
        return rule(CUBE_P_PROJECT_VIEW, "name", 0);
    if (strcmp(verb, "create") == 0)
        return rule(ctx->auth && ctx->auth->users_create_projects ? CUBE_P_USER
                                                                  : CUBE_P_ADMIN, NULL, 0);
    if (strcmp(verb, "update") == 0)
        return rule(CUBE_P_PROJECT_MANAGE, "name", 0);
    return rule(CUBE_P_ADMIN, NULL, 0);
}

struct cube_res_rule cube_auth_resource_rule(const struct cube_ctx *ctx,
                                             const struct cube_kind *k, const char *verb)
{
    /* A kind whose controller owns the status: only an administrator
     * writes it over the API (an owner would write status.url, which
     * redirects and links follow); kinds without one keep the rule of
     * update. */
    if (strcmp(verb, "status") == 0 && k->desc.reconcile)
        return rule(CUBE_P_ADMIN, k->scope == CUBE_SCOPE_PROJECT ? "project" : NULL, 0);
    if (k->scope == CUBE_SCOPE_PROJECT)
        return rule(is_read(verb) ? CUBE_P_PROJECT_VIEW
                    : strcmp(verb, "create") == 0 ? CUBE_P_PROJECT_EDIT
                                                  : CUBE_P_PROJECT_OPERATE,
                    "project", 0);
    if (strcmp(k->kind, "User") == 0 && k->core)
        return user_rule(verb);
    if (strcmp(k->kind, "Project") == 0 && k->core)
        return project_rule(ctx, verb);
    return rule(is_read(verb) ? CUBE_P_USER : CUBE_P_ADMIN, NULL, 0);
}

const char *cube_auth_rule_name(const struct cube_res_rule *r)
{
    return r->self ? "self" : cube_perm_name(r->perm);
}

/* The owner of a stored object, copied into out ("" when it has none).
 * 0, or -1 when the object cannot be read (e says why: 404 when it does
 * not exist). */
static int owner_of(cube_req *req, const struct cube_kind *k, const char *project,
                    const char *name, char *out, size_t len, struct cube_op_error *e)
{
    char *text;
    out[0] = '\0';
    if (cube_obj_load_text(req->ctx, k, project, name, &text, NULL, e) < 0)
        return -1;
    cJSON *o = cJSON_Parse(text);
    const char *owner = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(o, "metadata"), "owner"));
    snprintf(out, len, "%s", owner ? owner : "");
    cJSON_Delete(o);
    free(text);
    return 0;
}

int cube_auth_route(cube_req *req, const struct cube_route_entry *route)
{
    const char *project = cube_route_match_param(&req->match, "project");
    const char *name = cube_route_match_param(&req->match, "name");
    if (!route->owner_kind || !name)
        return cube_auth_check(req, route->perm, project);
    /* membership first, so non-members learn nothing from the owner */
    if (!cube_auth_check(req, CUBE_P_PROJECT_VIEW, project))
        return 0;
    char owner[CUBE_USER_MAX] = "";
    if (cube_auth_role(req, project) < CUBE_ROLE_OPS) {
        const struct cube_kind *k = cube_kinds_by_kind(&req->ctx->kinds, route->owner_kind);
        struct cube_op_error e;
        if (!k) {
            cube_http_answer_error(req, 404, "NotFound", "no such kind");
            return 0;
        }
        if (owner_of(req, k, project, name, owner, sizeof owner, &e) < 0) {
            cube_http_answer_error_field(req, e.status, e.code, e.message, e.field);
            return 0;
        }
    }
    return cube_auth_check_owner(req, route->perm, project, owner[0] ? owner : NULL);
}

int cube_auth_resource(cube_req *req, const struct cube_kind *k, const char *project,
                       const char *verb, const char *name)
{
    struct cube_res_rule r = cube_auth_resource_rule(req->ctx, k, verb);
    const char *proj = r.project_param && strcmp(r.project_param, "name") == 0 ? name
                                                                               : project;
    char owner[CUBE_USER_MAX] = "";
    /* A project object whose status is its controller's: members learn
     * 404 or 403 as for the other writes, non-members 404. */
    int controlled = r.perm == CUBE_P_ADMIN && r.project_param && name &&
                     !cube_auth_who(req)->admin;
    if ((r.perm == CUBE_P_PROJECT_OPERATE || controlled) && name) {
        /* Membership first, so non-members learn nothing from the owner.
         * A member who may view the project learns that an object does
         * not exist (404) rather than a 403 about owning it. */
        struct cube_op_error e;
        if (!cube_auth_check(req, CUBE_P_PROJECT_VIEW, proj))
            return 0;
        if ((controlled || cube_auth_role(req, proj) < CUBE_ROLE_OPS) &&
            owner_of(req, k, project, name, owner, sizeof owner, &e) < 0) {
            cube_http_answer_error_field(req, e.status, e.code, e.message, e.field);
            return 0;
        }
    }
    if (!cube_auth_check_owner(req, r.perm, proj, owner[0] ? owner : NULL))
        return 0;
    /* Project objects need their project, administrators' included. */
    if (k->scope == CUBE_SCOPE_PROJECT && strcmp(verb, "create") == 0 &&
        !auth_index_has_project(req->ctx->auth, project)) {
        char msg[128];
        snprintf(msg, sizeof msg, "project \"%s\" not found", project);
        cube_http_answer_error(req, 404, "NotFound", msg);
        return 0;
    }
    if (r.self && name && !req->who.admin && strcmp(name, req->who.user) != 0) {
        cube_http_answer_error(req, 404, "NotFound", "no such user");
        return 0;
    }
    return 1;
}

int cube_auth_list_filter(cube_req *req, const struct cube_kind *k, const char *name)
{
    if (k->scope != CUBE_SCOPE_CLUSTER || !k->core || cube_auth_who(req)->admin)
        return 1;
    if (strcmp(k->kind, "User") == 0)
        return strcmp(name, req->who.user) == 0;
    if (strcmp(k->kind, "Project") == 0)
        return cube_auth_role(req, name) != CUBE_ROLE_NONE;
    return 1;
}
