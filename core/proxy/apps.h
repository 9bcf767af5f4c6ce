/* apps.h — the apps origin: everything under plugins' proxied prefixes
 * (notebooks, TensorBoards, model servers: pages their owners control) is
 * served from an origin apart from the console and the API, as JupyterHub
 * serves user servers from per-user subdomains.
 *
 *   the apps listener   a second HTTP daemon (apps_listen, by default the
 *                       main port + 1) serving the proxied prefixes and the
 *                       handshake, never the API, the console or files;
 *   the handshake       a GET under a prefix at the console origin checks
 *                       the caller as the prefix asks, mints a one-use code
 *                       (60 s, bound to the user, the object and, with a
 *                       per-object apps_origin, its host) and redirects to
 *                       <apps origin>/_cube/apps/callback?code=...; there
 *                       the code becomes the `cube_app` cookie: HttpOnly,
 *                       SameSite=Lax, Secure under https, Path the object's
 *                       prefix, valid for that object only and only on the
 *                       apps listener (the API never reads it), ending with
 *                       the console session it came from;
 *   the API's side      unsafe methods whose Origin or Sec-Fetch-Site says
 *                       they come from another origin are refused (403).
 *
 * Files: apps_origin.c (origins and the API's cross-origin check),
 * apps_cred.c (the codes and cookies, in memory), apps_req.c (the
 * handshake and the apps listener's own paths), http_apps.c (the
 * listener's life). */
#ifndef CUBE_APPS_H
#define CUBE_APPS_H

#include <stddef.h>

#include <cube/cube.h>

struct cube_ctx;
struct cube_http;
struct proxy_prefix;

/* -- http_apps.c -------------------------------------------------------------- */
/* Starts the apps listener beside `main` when any prefix is registered
 * (else does nothing). 0, or -1 with the reason logged. */
int cube_apps_listen_start(struct cube_ctx *ctx, struct cube_http *main);
/* Stops accepting on the apps listener (cube_http_stop, first). */
void cube_apps_listen_quiesce(struct cube_ctx *ctx);
/* Waits up to grace_ms for its requests, then stops its daemon. */
void cube_apps_listen_stop(struct cube_ctx *ctx, unsigned grace_ms);
/* Frees the listener's record and the credential table (cube_proxy_free). */
void cube_apps_free(struct cube_ctx *ctx);

/* -- apps_origin.c ------------------------------------------------------------ */
/* The API's check of an unsafe method: 1 when Sec-Fetch-Site and Origin,
 * where sent, say the request comes from the console's own origin
 * (console_origin, else scheme://<Host>); otherwise answers 403, 0. */
int cube_apps_same_origin(cube_req *req);

/* -- apps_req.c --------------------------------------------------------------- */
/* A request at the console origin under prefix p that passed p's checks
 * (GET or HEAD): answers with the handshake's redirect to the apps origin.
 * obj_len: the length of the object's own part of req->raw_path; target:
 * the raw path and query to land on. */
void cube_apps_handshake(cube_req *req, const struct proxy_prefix *p, size_t obj_len,
                         const char *target);
/* An apps-listener request under no prefix: the handshake's callback, or
 * 404. Always answers; returns 1. */
int cube_apps_unmatched(cube_req *req);
/* 1 when an apps-listener request under p arrived on the host p's object
 * is served from (always, unless apps_origin is per object); else answers
 * 421 and returns 0. */
int cube_apps_host_ok(cube_req *req, const struct proxy_prefix *p);
/* An anonymous browser navigation on the apps listener: redirects to the
 * same target at the console origin, which signs in or hands over (else
 * 401 when the console origin is not known). */
void cube_apps_to_console(cube_req *req, const char *target);
/* Reads the apps listener's cookie credential for the proxied object of
 * req into req->who (auth.c's read_credential, on the apps listener only).
 * 0: found, or anonymous. */
int cube_apps_identify(cube_req *req);
/* Records, once per apps session (per user and object for bearer
 * tokens), that someone other than the object's owner uses its proxied
 * server: an audit event on the object. */
void cube_apps_audit(cube_req *req, const struct proxy_prefix *p, const char *owner);

#endif
