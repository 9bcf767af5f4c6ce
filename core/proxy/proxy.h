/* proxy.h — reverse-proxied prefixes (ABI 1.4 register_proxy): what the
 * HTTP server, the loader and the context call. The relay itself lives in
 * proxy_*.c; their shared types are in proxy_priv.h. */
#ifndef CUBE_PROXY_CORE_H
#define CUBE_PROXY_CORE_H

#include <stddef.h>

#include <cube/cube.h>

struct cube_ctx;
struct cube_plugin;

/* Takes the request when its path lies under a registered prefix: checks
 * the caller, asks the plugin for the upstream and starts the relay (or
 * answers an error). Called once, on the request's first call. Returns 1
 * when the request is the proxy's from now on, 0 when it is not proxied. */
int cube_proxy_begin(cube_req *req);
/* The access handler's later calls for a request cube_proxy_begin took:
 * body chunks (streamed upstream) and the final call. Returns an
 * MHD_Result. */
int cube_proxy_on_request(cube_req *req, const char *upload, size_t *upload_size);
/* The request completed (MHD's notify-completed): counts it and frees what
 * the request still owns. Safe for requests the proxy never took. */
void cube_proxy_req_done(cube_req *req);
/* Starts the relay thread when any prefix is registered; 0 or -1. */
int cube_proxy_http_start(struct cube_ctx *ctx);
/* Ends every parked proxied request and WebSocket relay and joins the
 * relay thread (before the HTTP daemon stops). */
void cube_proxy_http_stop(struct cube_ctx *ctx);
/* Forgets the prefixes a plugin registered (its init failed). */
void cube_proxy_drop_plugin(struct cube_ctx *ctx, struct cube_plugin *plugin);
/* Frees the prefix table and the idle upstream connections. */
void cube_proxy_free(struct cube_ctx *ctx);

/* The host table's proxy slots (listed by plugins/host_table.c; contracts
 * in abi/cube/cube_host.h). */
int cube_slot_register_proxy(cube_plugin *self, const struct cube_proxy_desc *in);
/* ABI 1.5: proxy mirror, park and counters (proxy_park.c, proxy_stats.c). */
int cube_slot_proxy_wake(cube_plugin *self, const char *prefix, const char *key);
int cube_slot_proxy_stats(cube_plugin *self, const char *prefix, const char *key,
                          struct cube_proxy_stats *out);
/* ABI 1.5 proxy_credential_set (proxy_cred.c). */
int cube_slot_proxy_credential_set(cube_plugin *self, const char *prefix, const char *key,
                                   const char *sha256_hex);

#endif
