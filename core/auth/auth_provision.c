/* auth_provision.c — turns an identity vouched for by a login method
 * (LDAP, OIDC, a trusted proxy header; see abi/cube/cube_auth.h) into a
 * Cube user: created on first sight, platform role and the mapped project
 * roles kept in line on every login. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth_priv.h"
#include "ctx/ctx.h"
#include "objects/kinds.h"
#include "base/log.h"
#include "base/names.h"
#include "objects/objects.h"

int auth_normalise_user(const char *in, char out[CUBE_USER_MAX])
{
    size_t n = strlen(in);
    char why[128];
    if (n == 0 || n >= CUBE_USER_MAX)
        return -1;
    for (size_t i = 0; i <= n; i++) {
        unsigned char c = (unsigned char)in[i];
        out[i] = (char)(c == '\0' ? '\0' : isalnum(c) && c < 128 ? tolower(c) : '-');
    }
    return cube_name_check(out, why, sizeof why) == 0 ? 0 : -1;
}

static const char *str(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* Creates the user (as the system) from the identity. */
static int create_user(struct cube_auth *a, const char *provider, const char *user,
                       const cJSON *id, char *msg, size_t msglen)
{
    struct cube_actor sys = {AUTH_SYSTEM_ACTOR, 1, NULL};
    struct cube_op_error e;
    cJSON *body = cJSON_CreateObject(), *out = NULL;
    cJSON_AddStringToObject(cJSON_AddObjectToObject(body, "metadata"), "name", user);
    cJSON *spec = cJSON_AddObjectToObject(body, "spec");
    cJSON_AddStringToObject(spec, "displayName", str(id, "displayName") ?: "");
    cJSON_AddStringToObject(spec, "email", str(id, "email") ?: "");
    cJSON_AddStringToObject(spec, "role", str(id, "role") ?: "user");
    cJSON_AddStringToObject(spec, "provider", provider);
    int rc = cube_obj_create(a->ctx, a->user_kind, NULL, body, &sys, &out, &e);
    cJSON_Delete(body);
    cJSON_Delete(out);
    if (rc < 0 && e.status != 409) {
        snprintf(msg, msglen, "cannot create user %s: %s", user, e.message);
        return e.status == 503 ? CUBE_EUNAVAIL : CUBE_EINVAL;
    }
    return CUBE_OK;
}

/* Sets spec fields the identity states and the stored user lacks. */
static void update_user(struct cube_auth *a, const char *user, const cJSON *id)
{
    static const char *const KEYS[] = {"role", "displayName", "email"};
    struct cube_actor sys = {AUTH_SYSTEM_ACTOR, 1, NULL};
    struct cube_op_error e;
    cJSON *patch = cJSON_CreateObject(), *spec = cJSON_AddObjectToObject(patch, "spec");
    cJSON *cur = NULL, *out = NULL;
    if (cube_obj_get(a->ctx, a->user_kind, NULL, user, &cur, &e) < 0)
        goto done;
    const cJSON *have = cJSON_GetObjectItemCaseSensitive(cur, "spec");
    for (size_t i = 0; i < 3; i++) {
        const char *want = str(id, KEYS[i]);
        const char *now = str(have, KEYS[i]);
        if (want && (!now || strcmp(want, now) != 0))
            cJSON_AddStringToObject(spec, KEYS[i], want);
    }
    if (spec->child && cube_obj_patch(a->ctx, a->user_kind, NULL, user, patch, &sys, &out, &e) < 0)
        cube_log(CUBE_LOG_WARN, "auth", "cannot update user %s: %s", user, e.message);
done:
    cJSON_Delete(patch);
    cJSON_Delete(cur);
    cJSON_Delete(out);
}

/* Grants the project roles the identity maps to (never lowers one). */
static void grant_projects(struct cube_auth *a, const char *user, const cJSON *projects)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, projects) {
        int role = cube_role_parse(cJSON_GetStringValue(p));
        if (!role || !auth_index_has_project(a, p->string)) {
            cube_log(CUBE_LOG_WARN, "auth", "identity of %s maps to %s in project %s, which "
                     "%s", user, cJSON_GetStringValue(p) ?: "?", p->string,
                     role ? "does not exist" : "is not a role");
            continue;
        }
        auth_project_add_member(a, p->string, user, role, 1);
    }
}

/* 1 when the existing user belongs to provider. */
static int same_provider(struct cube_auth *a, const char *user, const char *provider)
{
    char have[32];
    return auth_index_provider(a, user, have, sizeof have) == 0 && strcmp(have, provider) == 0;
}

int auth_provision(struct cube_auth *a, const char *provider, const char *identity,
                   char user[CUBE_USER_MAX], char *msg, size_t msglen)
{
    cJSON *id = cJSON_Parse(identity);
    const char *name = str(id, "username"), *role = str(id, "role");
    int admin, disabled, rc = CUBE_EINVAL;
    if (!cJSON_IsObject(id) || !name) {
        snprintf(msg, msglen, "the login method gave no user name");
        goto done;
    }
    if (auth_normalise_user(name, user) < 0) {
        snprintf(msg, msglen, "user name \"%.64s\" cannot be used in Cube", name);
        goto done;
    }
    if (role && strcmp(role, "admin") != 0 && strcmp(role, "user") != 0) {
        snprintf(msg, msglen, "the login method gave role \"%.32s\" (admin or user)", role);
        goto done;
    }
    if (auth_index_get_user(a, user, &admin, &disabled) < 0) {
        if ((rc = create_user(a, provider, user, id, msg, msglen)) != CUBE_OK)
            goto done;
    } else if (disabled) {
        snprintf(msg, msglen, "user %s is disabled", user);
        rc = CUBE_EPERM;
        goto done;
    } else if (!same_provider(a, user, provider)) {
        /* A directory's "admin" is not the local admin: an account answers
         * only to the login method that created it (an administrator may
         * change spec.provider to link one). */
        snprintf(msg, msglen, "user %s signs in with another method, not %s", user, provider);
        rc = CUBE_EPERM;
        goto done;
    } else {
        update_user(a, user, id);
    }
    grant_projects(a, user, cJSON_GetObjectItemCaseSensitive(id, "projects"));
    rc = CUBE_OK;
done:
    cJSON_Delete(id);
    return rc;
}
