/* auth.h — who is calling and what they may do: permissions and project
 * roles, the request's principal (API token, session cookie, trusted proxy
 * header or the configured admin token), and the auth subsystem's life
 * cycle. Users, projects, sessions and tokens live in auth_*.c. */
#ifndef CUBE_AUTH_CORE_H
#define CUBE_AUTH_CORE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>

#include "base/perm.h"

struct cube_ctx;
struct cube_kind;
struct cube_actor;

/* Reads the auth config, registers the User and Project kinds and the
 * auth routes (before plugins load). 0 or -1 with a logged reason. */
int cube_auth_init(struct cube_ctx *ctx);
/* After the store opened: loads users and memberships, creates the first
 * admin and the default project on first start. 0 or -1. */
int cube_auth_start(struct cube_ctx *ctx);
/* Forgets the login methods a plugin registered (its init failed). */
void cube_auth_drop_plugin(struct cube_ctx *ctx, struct cube_plugin *plugin);
/* After a request was answered: records an audit event when it acted as
 * an identity other than the one who authenticated (the admin token). */
void cube_auth_audit_request(cube_req *req);
/* Frees what cube_auth_init/start made. */
void cube_auth_free(struct cube_ctx *ctx);

/* Resolves the request's principal (once). Returns 0 (anonymous is fine),
 * or -1 after answering 401 (a bad or expired credential, a disabled user). */
int cube_auth_identify(cube_req *req);
/* Checks perm for the request; project is the route's {project} (NULL when
 * none). Returns 1 when allowed; otherwise answers 401/403/404 and returns 0.
 * Cookie-authenticated unsafe methods must carry a valid X-CSRF-Token. */
int cube_auth_check(cube_req *req, int perm, const char *project);
/* As cube_auth_check; for project:operate, owner (the object's
 * metadata.owner, may be NULL) admits a dev who owns the object. */
int cube_auth_check_owner(cube_req *req, int perm, const char *project,
                          const char *owner);
/* The permission check of a route (run before its handler): route->perm
 * for the project in its {project} parameter; with route->owner_kind,
 * project:operate also admits the dev who owns the object {name} of that
 * kind (as cube_auth_resource does for the generic API). Answers and
 * returns 0 when refused; 1 allowed. */
struct cube_route_entry;
int cube_auth_route(cube_req *req, const struct cube_route_entry *route);
/* The caller's role in project (CUBE_ROLE_ADMIN for administrators). */
int cube_auth_role(cube_req *req, const char *project);
/* 1 when the project exists (administrators pass project checks for any
 * name: routes that write under a project ask this too). */
int cube_auth_project_exists(struct cube_ctx *ctx, const char *project);
/* The request's principal (identify first). */
const struct cube_principal *cube_auth_who(cube_req *req);
/* The actor for audit and metadata.owner: the user, or "anonymous". */
struct cube_actor cube_auth_actor(cube_req *req);
/* Checks what the generic resource routes may do with a kind: verb is
 * "get", "list", "create", "update", "delete" or "status"; name the object
 * (NULL for list/create). Answers and returns 0 when refused; 1 allowed. */
int cube_auth_resource(cube_req *req, const struct cube_kind *k,
                       const char *project, const char *verb, const char *name);
/* What the generic API asks for one verb of one kind: a permission, the
 * route parameter naming the project it applies to ("project", or "name"
 * for the Project kind itself; NULL for none), and `self` when a signed-in
 * user may act on their own User object only. */
struct cube_res_rule {
    int perm;
    const char *project_param;
    int self;
};
/* The rule for verb ("get", "list", "create", "update", "delete",
 * "status") of kind k. */
struct cube_res_rule cube_auth_resource_rule(const struct cube_ctx *ctx,
                                             const struct cube_kind *k,
                                             const char *verb);
/* The rule as one word for the OpenAPI document: a CUBE_PERM_* value, or
 * "self" for the User kind's own object. */
const char *cube_auth_rule_name(const struct cube_res_rule *r);
/* For the User and Project kinds' lists: 1 when the caller may see this
 * object (cluster kinds the caller can list but not all items of). */
int cube_auth_list_filter(cube_req *req, const struct cube_kind *k,
                          const char *name);

/* -- what auth asks of the layers above it ------------------------------ */
/* Both tables are wired by ctx.c at start-up, so auth/ includes neither
 * proxy/ nor sched/ (ARCHITECTURE.md, "Layering"). */

struct cube_op_error;
struct cube_auth;

/* The apps origin (proxy/apps.h). */
struct cube_auth_apps {
    /* The apps listener's cookie credential of req into req->who; 0:
     * found, or anonymous (cube_apps_identify). */
    int (*identify)(cube_req *req);
    /* An unsafe method's origin check: 1 when it may proceed, else it
     * answered 403 and gives 0 (cube_apps_same_origin). */
    int (*same_origin)(cube_req *req);
};
void cube_auth_set_apps(struct cube_auth *a, const struct cube_auth_apps *apps);

/* The scheduler's interest in Projects (sched/jobs.h). */
struct cube_auth_projects {
    /* A changed spec.env or spec.mounts: 0, or -1 with e filled. */
    int (*check_env)(const cJSON *env, const char *base, struct cube_op_error *e);
    int (*check_mounts)(const cJSON *mounts, const char *base, struct cube_op_error *e);
    /* A Project changed (obj NULL: deleted), after its write committed. */
    void (*changed)(struct cube_ctx *ctx, const char *name, const cJSON *obj);
};
void cube_auth_set_projects(struct cube_auth *a, const struct cube_auth_projects *p);

/* The host table's auth (ABI 1.2, host_auth.c) slots (listed by plugins/host_table.c; contracts
 * in abi/cube/cube_host.h). */
int cube_slot_register_auth_provider(cube_plugin *self, const struct cube_auth_desc *in);
int cube_slot_auth_complete(cube_req *req, const char *provider, const char *identity,
                            const char *next);
const char *cube_slot_req_user(cube_req *req);
const char *cube_slot_req_project_role(cube_req *req, const char *project);
char *cube_slot_token_issue(cube_plugin *self, const char *user, unsigned ttl,
                            const char *purpose, int *rc);

#endif
