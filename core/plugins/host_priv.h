/* host_priv.h — pieces of the host table filled by separate files. */
#ifndef CUBE_HOST_PRIV_H
#define CUBE_HOST_PRIV_H

#include <cjson/cJSON.h>
#include <cube/cube.h>

/* Fills the slots added in ABI 1.1 (host_objects.c). */
void cube_host_table_init_1_1(struct cube_host *h);

/* Fills the slots added in ABI 1.2 (host_auth.c). */
void cube_host_table_init_1_2(struct cube_host *h);

/* Fills register_proxy (proxy.c) and register_ui (ui_ext.c), ABI 1.4. */
void cube_host_table_init_1_4_proxy(struct cube_host *h);
void cube_host_table_init_1_4_ui(struct cube_host *h);

/* -- whom a plugin's new object is for (host_owner.c) ------------------ */

struct cube_kind;
#define CUBE_OWNER_MAX 64

/* Creates an object for a plugin (host_objects.c): on behalf of req's
 * caller when req is set (see obj_create_for), else for whom its
 * controller reference decides (cube_host_owner_inherited). */
char *cube_host_obj_create(cube_plugin *self, cube_req *req, const char *json, int *rc);

/* The caller of req, into owner, when they are signed in and may create
 * objects of k in project (project:edit; cluster kinds: administrators):
 * 0, or -1 with *rc CUBE_EPERM. */
int cube_host_owner_of_request(cube_plugin *self, cube_req *req, const struct cube_kind *k,
                               const char *project, char owner[CUBE_OWNER_MAX], int *rc);

/* The owner of the object that body's controller ownerReference names (of
 * the same project and, when the reference has one, the same uid), into
 * owner; "" when there is none. A Job a controller makes for a user's
 * object runs as that object's owner. */
void cube_host_owner_inherited(cube_plugin *self, const cJSON *body, const char *project,
                               char owner[CUBE_OWNER_MAX]);

/* Fills the slots added in ABI 1.5 (host_owner.c). */
void cube_host_table_init_1_5(struct cube_host *h);

#endif
