/* identity.c — turns what the directory said about a user into the
 * identity JSON of cube_auth.h, mapping group DNs (case-insensitively) to
 * the platform role and to project roles (the highest role wins). */
#include "sso_ldap.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

/* 1 when group dn (normalised) is among u's groups, ignoring case. */
static int member_of(const struct ssoldap_user *u, const char *dn)
{
    for (size_t i = 0; i < u->n_groups; i++)
        if (strcasecmp(u->groups[i], dn) == 0)
            return 1;
    return 0;
}

/* The platform role: "admin" or "user" when admin_groups is set, else
 * NULL (the core keeps the user's role). */
static const char *platform_role(const struct ssoldap_conf *c, const struct ssoldap_user *u)
{
    if (c->n_admin_groups == 0)
        return NULL;
    for (size_t i = 0; i < c->n_admin_groups; i++)
        if (member_of(u, c->admin_groups[i]))
            return "admin";
    return "user";
}

/* The highest role u gets in project p through project_roles. */
static int project_role(const struct ssoldap_conf *c, const struct ssoldap_user *u,
                        const char *p)
{
    int best = SSOLDAP_ROLE_NONE;
    for (size_t i = 0; i < c->n_projects; i++)
        if (strcmp(c->projects[i].project, p) == 0 && c->projects[i].role > best &&
            member_of(u, c->projects[i].group))
            best = c->projects[i].role;
    return best;
}

/* Adds {"<project>": "<role>", ...} for every mapped project to id. */
static int add_projects(const struct ssoldap_conf *c, const struct ssoldap_user *u,
                        cJSON *id)
{
    if (c->n_projects == 0)
        return 0;
    cJSON *map = cJSON_AddObjectToObject(id, "projects");
    if (!map)
        return -1;
    for (size_t i = 0; i < c->n_projects; i++) {
        const char *p = c->projects[i].project;
        int role = project_role(c, u, p);
        if (role != SSOLDAP_ROLE_NONE && !cJSON_GetObjectItemCaseSensitive(map, p) &&
            !cJSON_AddStringToObject(map, p, ssoldap_role_name(role)))
            return -1;
    }
    return 0;
}

/* Builds the identity JSON; see sso_ldap.h. */
char *ssoldap_identity(const struct ssoldap_conf *c, const struct ssoldap_user *u,
                       const char *typed)
{
    char *out = NULL, *text = NULL;
    cJSON *id = cJSON_CreateObject();
    const char *role = platform_role(c, u);
    if (!id || !cJSON_AddStringToObject(id, "username", u->username ? u->username : typed))
        goto fail;
    if (u->display_name && !cJSON_AddStringToObject(id, "displayName", u->display_name))
        goto fail;
    if (u->email && !cJSON_AddStringToObject(id, "email", u->email))
        goto fail;
    if (role && !cJSON_AddStringToObject(id, "role", role))
        goto fail;
    if (add_projects(c, u, id) < 0 || !(text = cJSON_PrintUnformatted(id)))
        goto fail;
    out = strdup(text); /* the host releases it with free() */
fail:
    cJSON_free(text);
    cJSON_Delete(id);
    return out;
}
