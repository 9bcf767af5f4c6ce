/* auth.h — who is calling and what they may do: permissions and project
 * roles, the request's principal (API token, session cookie, trusted proxy
 * header or the configured admin token), and the auth subsystem's life
 * cycle. Users, projects, sessions and tokens live in auth_*.c. */
#ifndef CUBE_AUTH_CORE_H
#define CUBE_AUTH_CORE_H

#include <stddef.h>
#include <stdint.h>

#include <cube/cube.h>

struct cube_ctx;
struct cube_kind;
struct cube_actor;

/* A route's or verb's permission (the ABI's CUBE_PERM_* strings). RESOURCE
 * is the core's own: the generic resource routes decide per kind and verb. */
enum cube_perm {
    CUBE_P_PUBLIC = 0, CUBE_P_USER, CUBE_P_ADMIN, CUBE_P_PROJECT_VIEW,
    CUBE_P_PROJECT_EDIT, CUBE_P_PROJECT_OPERATE, CUBE_P_PROJECT_MANAGE,
    CUBE_P_RESOURCE,
};

/* Project roles, ordered: a higher role can do what a lower one can. */
enum cube_role {
    CUBE_ROLE_NONE = 0, CUBE_ROLE_VIEWER, CUBE_ROLE_DEV, CUBE_ROLE_OPS,
    CUBE_ROLE_CREATOR, CUBE_ROLE_ADMIN, /* a platform administrator */
};

/* How the caller proved who they are. */
enum cube_via {
    CUBE_VIA_NONE = 0, CUBE_VIA_ADMIN_TOKEN, CUBE_VIA_TOKEN, CUBE_VIA_SESSION,
    CUBE_VIA_HEADER,
    CUBE_VIA_APP,                 /* the apps origin's cookie (apps.h) */
};

#define CUBE_USER_MAX 64

/* The caller of one request, resolved on first need. */
struct cube_principal {
    int resolved;
    int via;                      /* enum cube_via; NONE: anonymous */
    int admin;                    /* platform administrator */
    char user[CUBE_USER_MAX];     /* "" when anonymous */
    uint8_t session[32];          /* SHA-256 of the session id (via SESSION),
                                   * of the apps cookie (via APP) */
};

/* The permission named by an ABI string, or -1. `resource` is accepted only
 * when allow_resource is set (core routes). */
int cube_perm_parse(const char *s, int allow_resource);
/* The ABI string of a permission. */
const char *cube_perm_name(int perm);
/* 1 when the permission needs a {project} route parameter. */
int cube_perm_needs_project(int perm);
/* The role named s ("creator", "ops", "dev", "viewer"), or CUBE_ROLE_NONE. */
int cube_role_parse(const char *s);
/* The role's name; NULL for CUBE_ROLE_NONE. */
const char *cube_role_name(int role);

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
