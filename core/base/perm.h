/* perm.h — the vocabulary of access: permissions (the ABI's CUBE_PERM_*
 * strings), project roles, how a caller proved who they are, and the
 * principal record a request carries. Names and values only: auth/
 * decides who a principal is and what it may do; the route table, kinds'
 * actions, proxied prefixes and console entries name the permission they
 * need with these. */
#ifndef CUBE_PERM_H
#define CUBE_PERM_H

#include <stdint.h>

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
#define CUBE_JOB_UID_MAX 64

/* The caller of one request, resolved on first need. */
struct cube_principal {
    int resolved;
    int via;                      /* enum cube_via; NONE: anonymous */
    int admin;                    /* platform administrator */
    char user[CUBE_USER_MAX];     /* "" when anonymous */
    uint8_t session[32];          /* SHA-256 of the session id (via SESSION),
                                   * of the apps cookie (via APP) */
    char job_uid[CUBE_JOB_UID_MAX];  /* via TOKEN: the uid of the Job whose
                                      * CUBE_TOKEN it is; "" for other tokens */
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

#endif
