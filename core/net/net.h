/* net.h — outbound HTTP owned by the host: the ABI 1.5 fetch slots over
 * libcurl's multi interface, one network thread for all of cubed, the
 * egress allow-list of cube.yaml enforced on every URL, redirect and
 * connected address (see README.md). */
#ifndef CUBE_NET_H
#define CUBE_NET_H

#include <stdint.h>

#include <cube/cube.h>

struct cube_config;
struct cube_tasks;
struct cube_net;

/* Starts the network thread. cfg (egress rules, CA file, proxy) must outlive
 * the engine; callbacks are delivered on tasks' workers. Returns NULL with
 * a logged reason. */
struct cube_net *cube_net_new(const struct cube_config *cfg, struct cube_tasks *tasks);
/* Cancels every fetch (no callback runs after it returns), stops the
 * network thread and frees. NULL is fine. */
void cube_net_free(struct cube_net *net);
/* Cancels every outstanding fetch of one plugin, as fetch_cancel each
 * (the loader, after the plugin's stop and before its fini). */
void cube_net_cancel_owner(struct cube_net *net, cube_plugin *owner);

/* The slots (abi/cube/cube_host.h, "since 1.5: outbound HTTP"). */
uint64_t cube_slot_fetch(cube_plugin *self, const struct cube_fetch_desc *desc, int *rc);
int cube_slot_fetch_cancel(cube_plugin *self, uint64_t id);

#endif
