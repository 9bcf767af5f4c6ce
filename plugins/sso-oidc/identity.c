/* identity.c — verified ID token claims to the identity JSON of
 * cube_auth.h: the user name from username_claim (or sub), displayName
 * from "name", email, the platform role from admin_values found in
 * roles_claim, and project roles from project_roles found in groups_claim. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oidc.h"

/* The claim `name`; a dotted name ("realm_access.roles") that is not a
 * top-level claim is looked up through nested objects. NULL when absent. */
static const cJSON *claim(const cJSON *claims, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(claims, name);
    if (v || !strchr(name, '.'))
        return v;
    char path[256];
    snprintf(path, sizeof path, "%s", name);
    v = claims;
    for (char *save = NULL, *seg = strtok_r(path, ".", &save); seg && v;
         seg = strtok_r(NULL, ".", &save))
        v = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, seg) : NULL;
    return v;
}

/* Nonzero when a claim value (a string or an array of strings) holds s. */
static int claim_has(const cJSON *v, const char *s)
{
    if (cJSON_IsString(v))
        return strcmp(v->valuestring, s) == 0;
    const cJSON *item, *arr = cJSON_IsArray(v) ? v : NULL;
    cJSON_ArrayForEach(item, arr)
        if (cJSON_IsString(item) && strcmp(item->valuestring, s) == 0)
            return 1;
    return 0;
}

/* The rank of a project role: creator 4 > ops 3 > dev 2 > viewer 1. */
static int role_rank(const char *role)
{
    static const char *const order[] = {"viewer", "dev", "ops", "creator"};
    for (int i = 0; i < 4; i++)
        if (strcmp(role, order[i]) == 0)
            return i + 1;
    return 0;
}

/* The user name claim's value (or sub when allowed); NULL with err. */
static const char *user_name(const cJSON *claims, const struct oidc_config *c,
                             char *err, size_t errlen)
{
    const cJSON *u = claim(claims, c->username_claim);
    if (cJSON_IsString(u) && u->valuestring[0])
        return u->valuestring;
    const cJSON *sub = cJSON_GetObjectItemCaseSensitive(claims, "sub");
    if (c->username_fallback_sub && cJSON_IsString(sub) && sub->valuestring[0])
        return sub->valuestring;
    snprintf(err, errlen, "ID token has no \"%.64s\" claim to name the user%s",
             c->username_claim, c->username_fallback_sub ? "" : " (see username_fallback_sub)");
    return NULL;
}

/* Adds {"project": "role"} for every project_roles entry whose group the
 * user is in, keeping the highest role per project. */
static int add_projects(cJSON *id, const cJSON *claims, const struct oidc_config *c)
{
    const cJSON *groups = claim(claims, c->groups_claim);
    cJSON *projects = NULL;
    for (size_t i = 0; i < c->n_project_roles; i++) {
        const struct oidc_project_role *m = &c->project_roles[i];
        if (!claim_has(groups, m->group))
            continue;
        if (!projects && !(projects = cJSON_AddObjectToObject(id, "projects")))
            return -1;
        cJSON *have = cJSON_GetObjectItemCaseSensitive(projects, m->project);
        if (have && role_rank(have->valuestring) >= role_rank(m->role))
            continue;
        cJSON_DeleteItemFromObjectCaseSensitive(projects, m->project);
        if (!cJSON_AddStringToObject(projects, m->project, m->role))
            return -1;
    }
    return 0;
}

/* Adds "role": admin when a roles_claim value is in admin_values, "user"
 * otherwise; nothing when no admin_values are configured. */
static int add_role(cJSON *id, const cJSON *claims, const struct oidc_config *c)
{
    if (c->n_admin == 0)
        return 0;
    const cJSON *roles = claim(claims, c->roles_claim);
    int admin = 0;
    for (size_t i = 0; i < c->n_admin && !admin; i++)
        admin = claim_has(roles, c->admin_values[i]);
    return cJSON_AddStringToObject(id, "role", admin ? "admin" : "user") ? 0 : -1;
}

char *oidc_identity_json(const cJSON *claims, const struct oidc_config *c,
                         char *err, size_t errlen)
{
    char *out = NULL;
    const char *user = user_name(claims, c, err, errlen);
    if (!user)
        return NULL;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(claims, "name");
    const cJSON *email = cJSON_GetObjectItemCaseSensitive(claims, "email");
    cJSON *id = cJSON_CreateObject();
    if (!id || !cJSON_AddStringToObject(id, "username", user) ||
        (cJSON_IsString(name) && !cJSON_AddStringToObject(id, "displayName", name->valuestring)) ||
        (cJSON_IsString(email) && !cJSON_AddStringToObject(id, "email", email->valuestring)) ||
        add_role(id, claims, c) < 0 || add_projects(id, claims, c) < 0 ||
        !(out = cJSON_PrintUnformatted(id)))
        snprintf(err, errlen, "out of memory");
    cJSON_Delete(id);
    return out;
}
