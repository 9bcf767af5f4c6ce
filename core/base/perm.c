/* perm.c — names of permissions and roles (perm.h). */
#include "perm.h"

#include <string.h>

#include <cube/cube.h>

static const char *const PERM_NAMES[] = {
    [CUBE_P_PUBLIC] = CUBE_PERM_PUBLIC,
    [CUBE_P_USER] = CUBE_PERM_USER,
    [CUBE_P_ADMIN] = CUBE_PERM_ADMIN,
    [CUBE_P_PROJECT_VIEW] = CUBE_PERM_PROJECT_VIEW,
    [CUBE_P_PROJECT_EDIT] = CUBE_PERM_PROJECT_EDIT,
    [CUBE_P_PROJECT_OPERATE] = CUBE_PERM_PROJECT_OPERATE,
    [CUBE_P_PROJECT_MANAGE] = CUBE_PERM_PROJECT_MANAGE,
    [CUBE_P_RESOURCE] = "resource",
};

static const char *const ROLE_NAMES[] = {
    [CUBE_ROLE_NONE] = NULL,      [CUBE_ROLE_VIEWER] = "viewer",
    [CUBE_ROLE_DEV] = "dev",      [CUBE_ROLE_OPS] = "ops",
    [CUBE_ROLE_CREATOR] = "creator", [CUBE_ROLE_ADMIN] = "admin",
};

int cube_perm_parse(const char *s, int allow_resource)
{
    int last = allow_resource ? CUBE_P_RESOURCE : CUBE_P_PROJECT_MANAGE;
    for (int i = 0; s && i <= last; i++)
        if (strcmp(s, PERM_NAMES[i]) == 0)
            return i;
    return -1;
}

const char *cube_perm_name(int perm) { return PERM_NAMES[perm]; }

int cube_perm_needs_project(int perm)
{
    return perm >= CUBE_P_PROJECT_VIEW && perm <= CUBE_P_PROJECT_MANAGE;
}

int cube_role_parse(const char *s)
{
    for (int i = CUBE_ROLE_VIEWER; s && i <= CUBE_ROLE_CREATOR; i++)
        if (strcmp(s, ROLE_NAMES[i]) == 0)
            return i;
    return CUBE_ROLE_NONE;
}

const char *cube_role_name(int role) { return ROLE_NAMES[role]; }
