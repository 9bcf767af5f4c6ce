/*
 * cube_proxy.h — reverse-proxied web servers (since ABI 1.4).
 *
 * Part of the Cube plugin ABI (append-only; see cube_plugin.h). A plugin
 * that runs web servers on users' behalf (notebooks, TensorBoard, model
 * servers, dashboards) registers a path prefix, and the core serves every
 * request under it: it authenticates the caller (session cookie or bearer
 * token), checks the prefix's permission exactly as for a route, asks the
 * plugin's `resolve` which upstream to use, and relays the request and the
 * answer in both directions — streamed bodies and WebSocket upgrades
 * included. The plugin never touches the bytes.
 *
 * What the core does to a proxied request: it drops the caller's
 * Authorization and Cookie headers for cube_session/CSRF (upstreams never
 * see Cube credentials), adds X-Forwarded-For/-Proto/-Host, adds the one
 * header the plugin names (a notebook's own token, say), and forwards the
 * path and query unchanged unless `strip_prefix` is set.
 *
 * How the host answers when the relay cannot (JSON errors, as for routes):
 * 502 when the upstream refuses the connection (5 s connect timeout),
 * closes it without answering or stops reading the request body for 30 s;
 * 503 when `resolve` returns CUBE_EUNAVAIL (with Retry-After) or names an
 * address it may not; 504 when no answer head came within 120 s; 413 when
 * the body exceeds the server's limits.max_body_bytes. A request waiting
 * for its upstream holds no HTTP thread. Cookie-authenticated writes under
 * a prefix need no X-CSRF-Token (the upstream's pages cannot know it; the
 * session cookie is SameSite=Lax and upstreams keep their own XSRF check).
 * The caller's X-Forwarded-* are replaced (extended, for a front proxy
 * listed in auth.trusted_header.proxies).
 */
#ifndef CUBE_PROXY_H
#define CUBE_PROXY_H

#include "cube_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Where a proxied request goes; filled by cube_proxy_desc.resolve
 *  (since 1.4). The host zeroes it and sets `size` before the call. */
struct cube_proxy_upstream {
    /* since 1.4 */
    size_t size;            /**< set by the host: sizeof as it compiled it */
    /** Numeric IPv4 or IPv6 address. The host refuses anything but a
     *  loopback address (503, logged) unless the descriptor sets
     *  allow_remote. */
    char host[64];
    unsigned port;          /**< 1..65535 */
    /** One header added to the upstream request (replacing the caller's of
     *  the same name), e.g. "Authorization" / "token 3f9a...". Empty
     *  header_name: none. */
    char header_name[64];
    char header_value[512];
};

/** Describes one proxied prefix; passed to cube_host.register_proxy
 *  (since 1.4). Copied by the host. */
struct cube_proxy_desc {
    /* since 1.4 */
    size_t size;              /**< sizeof(struct cube_proxy_desc) */
    /**
     * Path template of the prefix: literal and `{param}` segments as in
     * cube_route_desc.path, e.g. "/notebook/{project}/{name}". The prefix
     * itself and every path below it ("/notebook/p/n/api/kernels?x=1"), any
     * method, are proxied; cube_host.req_param reads the parameters in
     * `resolve`. The first segment must be a literal that no core route
     * uses ("api" and "ui" are refused).
     */
    const char *prefix;
    /** Required permission, one of CUBE_PERM_* (cube_http.h). */
    const char *permission;
    /**
     * Optional kind of the object that {project}/{name} names. With
     * CUBE_PERM_PROJECT_OPERATE a dev passes only when they own that object
     * (metadata.owner), as on a kind's actions; ops and creators always
     * pass. A missing object answers 404 before `resolve` runs. The kind
     * must be registered before the prefix (by this plugin or an earlier
     * one), be project-scoped, and the prefix must have {project} and
     * {name}.
     */
    const char *kind;
    /** Non-zero: an anonymous browser navigation (GET accepting text/html)
     *  is redirected (302) to the console's login page with
     *  `?next=<path>` instead of getting 401. */
    int login_redirect;
    /** Non-zero: forward the path with the matched prefix removed ("/" at
     *  least); zero: forward it unchanged (for servers that know their
     *  base URL, like Jupyter's base_url). */
    int strip_prefix;
    /** Non-zero: `resolve` may name a non-loopback address. */
    int allow_remote;
    /**
     * Required. Chooses the upstream for a request that passed the
     * permission check; runs on an HTTP thread for every request (and
     * every WebSocket upgrade), so keep it to a table lookup. Return
     * CUBE_OK after filling *up; CUBE_ENOTFOUND (404), CUBE_EPERM (403) or
     * CUBE_EUNAVAIL (503, e.g. still starting) otherwise. `req` is valid
     * during the call only.
     */
    int (*resolve)(void *state, cube_req *req, struct cube_proxy_upstream *up);
};

#ifdef __cplusplus
}
#endif

#endif /* CUBE_PROXY_H */
