/* auth_kinds.c — the core's User and Project kinds (cluster scope): their
 * schemas, the checks only the core can make (who may change quotas, the
 * creator of a project), the index updates after every write, the first
 * start's admin and default project, and adding members. Credentials are
 * never part of these objects (see auth_cred.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "auth_password.h"
#include "auth_priv.h"
#include "ctx/ctx.h"
#include "objects/kinds.h"
#include "base/log.h"
#include "objects/objects.h"

/* The User and Project kinds' spec schemas and printer columns:
 * user.schema.json, project.schema.json, user.columns.json and
 * project.columns.json beside this file, embedded at build time. */
#include "auth/project_columns.h"
#include "auth/project_schema.h"
#include "auth/user_columns.h"
#include "auth/user_schema.h"

/* -- checks ------------------------------------------------------------- */

static int user_check(struct cube_ctx *ctx, const struct cube_actor *who, cJSON *obj,
                      const cJSON *old, struct cube_op_error *e)
{
    (void)ctx; (void)who; (void)old;
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "name"));
    if (name && (strcmp(name, "anonymous") == 0 || strcmp(name, "system") == 0)) {
        cube_op_fail(e, 422, "Invalid", "metadata.name", "metadata.name: \"%s\" is reserved",
                     name);
        return -1;
    }
    return 0;
}

/* 422 when a user is listed twice among the members. */
static int members_unique(const cJSON *members, struct cube_op_error *e)
{
    int n = cJSON_GetArraySize(members);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            const char *a = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                cJSON_GetArrayItem(members, i), "user"));
            const char *b = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                cJSON_GetArrayItem(members, j), "user"));
            if (a && b && strcmp(a, b) == 0) {
                char field[64];
                snprintf(field, sizeof field, "spec.members[%d].user", i);
                cube_op_fail(e, 422, "Invalid", field, "%s: \"%s\" is listed twice", field, a);
                return -1;
            }
        }
    return 0;
}

/* 409 when a write would leave a project that had a creator without one
 * (the members routes refuse the same; PUT, PATCH and apply of
 * spec.members come here). Removing a deleted user (the core's purge) is
 * the one exception. */
static int keeps_creator(const struct cube_actor *who, const cJSON *members,
                         const cJSON *old, struct cube_op_error *e)
{
    const cJSON *was = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(old, "spec"), "members");
    if (!old || strcmp(who->user, AUTH_SYSTEM_ACTOR) == 0 || auth_creator_count(was) == 0 ||
        auth_creator_count(members) > 0)
        return 0;
    cube_op_fail(e, 409, "Conflict", "spec.members", "spec.members: a project keeps at least "
                 "one creator (this change removes or demotes the last one)");
    return -1;
}

/* 1 when spec.<key> differs between the two objects (absent == absent). */
static int spec_changed(const cJSON *obj, const cJSON *old, const char *key)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "spec"), key);
    const cJSON *b = old ? cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(old, "spec"), key) : NULL;
    return a || b ? !a || !b || !cJSON_Compare(a, b, 1) : 0;
}

/* A project a user creates lists them as its creator. */
static void add_creator(cJSON *members, const char *user)
{
    cJSON *m;
    cJSON_ArrayForEach(m, members) {
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "user")) ?: "",
                   user) == 0) {
            cJSON_ReplaceItemInObjectCaseSensitive(m, "role", cJSON_CreateString("creator"));
            return;
        }
    }
    m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "user", user);
    cJSON_AddStringToObject(m, "role", "creator");
    cJSON_AddItemToArray(members, m);
}

static int project_check(struct cube_ctx *ctx, const struct cube_actor *who, cJSON *obj,
                         const cJSON *old, struct cube_op_error *e)
{
    const struct cube_auth_projects *ph = ctx->auth->project_hooks;
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    cJSON *members = cJSON_GetObjectItemCaseSensitive(spec, "members");
    /* env and mounts are checked when they change: a stored project from
     * before these rules stays editable otherwise. */
    if (members_unique(members, e) < 0 || keeps_creator(who, members, old, e) < 0 ||
        (ph && spec_changed(obj, old, "env") &&
         ph->check_env(cJSON_GetObjectItemCaseSensitive(spec, "env"), "spec.env", e) < 0) ||
        (ph && spec_changed(obj, old, "mounts") &&
         ph->check_mounts(cJSON_GetObjectItemCaseSensitive(spec, "mounts"), "spec.mounts",
                           e) < 0))
        return -1;
    /* An administrator's new project without members gets its author as
     * the first member, a creator (the owner): someone manages it. A list
     * the administrator wrote is kept as written. */
    if (!old && who->admin && !cube_actor_internal(who) && cJSON_GetArraySize(members) == 0) {
        if (!cJSON_IsArray(members) && cJSON_IsObject(spec)) {
            cJSON_DeleteItemFromObjectCaseSensitive(spec, "members");
            members = cJSON_AddArrayToObject(spec, "members");
        }
        if (cJSON_IsArray(members))
            add_creator(members, who->user);
    }
    if (cube_actor_trusted(who))
        return 0;
    static const char *const ADMIN_ONLY[] = {"quotas", "pools"};
    for (size_t i = 0; i < 2; i++)
        if (spec_changed(obj, old, ADMIN_ONLY[i])) {
            cube_op_fail(e, 403, "Forbidden", ADMIN_ONLY[i][0] == 'q' ? "spec.quotas"
                         : "spec.pools", "spec.%s: only a platform administrator may "
                         "change them", ADMIN_ONLY[i]);
            return -1;
        }
    if (!old && cJSON_IsArray(members))
        add_creator(members, who->user);
    return 0;
}

/* -- after writes --------------------------------------------------------- */

static void user_after(struct cube_ctx *ctx, const char *name, const cJSON *obj, int created)
{
    (void)created;
    auth_index_user(ctx->auth, name, obj);
}

/* Before the write that removed, disabled or created a user answers: their
 * sessions and API tokens end (and, removed or new, any password under the
 * name), so no credential outlives the change — enabling the user again
 * brings none back; a new user joins the default project. */
static void user_committed(struct cube_ctx *ctx, const char *name, const cJSON *obj,
                           int created)
{
    struct cube_auth *a = ctx->auth;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    if (!obj || created)
        auth_cred_forget_user(a, name, AUTH_FORGET_TOKENS | AUTH_FORGET_PASSWORD);
    else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(spec, "disabled")))
        auth_cred_forget_user(a, name, AUTH_FORGET_TOKENS);
    if (!obj)
        auth_project_purge_user(a, name);
    if (created && a->default_project[0] && auth_index_has_project(a, a->default_project))
        auth_project_add_member(a, a->default_project, name, a->default_role, 0);
}

static void project_after(struct cube_ctx *ctx, const char *name, const cJSON *obj,
                          int created)
{
    (void)created;
    auth_index_project(ctx->auth, name, obj);
    if (ctx->auth->project_hooks)
        ctx->auth->project_hooks->changed(ctx, name, obj);
}

void cube_auth_set_projects(struct cube_auth *a, const struct cube_auth_projects *p)
{
    a->project_hooks = p;
}

static const struct cube_kind_core USER_CORE = {user_check, user_after, user_committed};
static const struct cube_kind_core PROJECT_CORE = {project_check, project_after, NULL};

static struct cube_kind *add_kind(struct cube_auth *a, const struct cube_kind_desc *d,
                                  const struct cube_kind_core *core)
{
    char err[256];
    struct cube_ctx *ctx = a->ctx;
    if (cube_kinds_add(&ctx->kinds, &ctx->core, d, err, sizeof err) != CUBE_OK) {
        cube_log(CUBE_LOG_ERROR, "auth", "kind %s: %s", d->kind, err);
        return NULL;
    }
    struct cube_kind *k = cube_kinds_by_kind(&ctx->kinds, d->kind);
    k->core = core;
    return k;
}

int auth_kinds_register(struct cube_auth *a)
{
    const struct cube_kind_desc user = {
        .size = sizeof user, .kind = "User", .plural = "users", .scope = CUBE_SCOPE_CLUSTER,
        .group = "Platform", .description = "A person who signs in to Cube",
        .spec_schema = USER_SCHEMA,
        .printer_columns = USER_COLUMNS, .display_name = "User", .display_plural = "Users",
        .display_name_zh = "用户", .display_plural_zh = "用户", .group_zh = "平台"};
    const struct cube_kind_desc project = {
        .size = sizeof project, .kind = "Project", .plural = "projects",
        .scope = CUBE_SCOPE_CLUSTER, .group = "Platform",
        .description = "A project group: members, roles, quotas and defaults",
        .spec_schema = PROJECT_SCHEMA,
        .printer_columns = PROJECT_COLUMNS, .display_name = "Project",
        .display_plural = "Projects", .display_name_zh = "项目", .display_plural_zh = "项目",
        .group_zh = "平台"};
    a->user_kind = add_kind(a, &user, &USER_CORE);
    a->project_kind = add_kind(a, &project, &PROJECT_CORE);
    return a->user_kind && a->project_kind ? 0 : -1;
}
