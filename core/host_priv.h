/* host_priv.h — pieces of the host table filled by separate files. */
#ifndef CUBE_HOST_PRIV_H
#define CUBE_HOST_PRIV_H

#include <cube/cube.h>

/* Fills the slots added in ABI 1.1 (host_objects.c). */
void cube_host_table_init_1_1(struct cube_host *h);

/* Fills the slots added in ABI 1.2 (host_auth.c). */
void cube_host_table_init_1_2(struct cube_host *h);

/* Fills register_proxy (proxy.c) and register_ui (ui_ext.c), ABI 1.4. */
void cube_host_table_init_1_4_proxy(struct cube_host *h);
void cube_host_table_init_1_4_ui(struct cube_host *h);

#endif
