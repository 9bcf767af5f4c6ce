/*
 * cube_proxy.h — reverse-proxied web servers (since ABI 1.4).
 *
 * Part of the Cube plugin ABI (append-only; see cube_plugin.h). A plugin
 * that runs web servers on users' behalf (notebooks, TensorBoard, model
 * servers, dashboards) registers a path prefix, and the core serves every
 * request under it: it authenticates the caller (bearer token, or in a
 * browser the apps origin's own cookie, see below), checks the prefix's
 * permission exactly as for a route, asks the
 * plugin's `resolve` which upstream to use, and relays the request and the
 * answer in both directions — streamed bodies and WebSocket upgrades
 * included. The plugin never touches the bytes.
 *
 * Since 1.5 (the host's behaviour; the slots are unchanged) proxied
 * prefixes are served only on the apps origin — cubed's second listener
 * (apps_listen) or the configured apps_origin — never on the console's
 * origin, because an upstream serves whatever its owner wants, scripts
 * included. The console origin hands a browser over with a one-use code
 * that becomes an HttpOnly cookie (cube_app) valid for one object's prefix
 * only and never accepted by the API; the console session cookie is not
 * read there. Plugins write console-origin paths (status.url
 * "/notebook/p/n/"); the host redirects them to the apps origin.
 *
 * What the core does to a proxied request: it drops the caller's
 * Authorization and Cookie headers for Cube's cookies (upstreams never
 * see Cube credentials, and may not Set-Cookie them), adds X-Forwarded-For/-Proto/-Host, adds the one
 * header the plugin names (a notebook's own token, say), and forwards the
 * path and query unchanged unless `strip_prefix` is set.
 *
 * How the host answers when the relay cannot (JSON errors, as for routes):
 * 502 when the upstream refuses the connection (5 s connect timeout),
 * closes it without answering or stops reading the request body for 30 s;
 * 503 when `resolve` returns CUBE_EUNAVAIL (with Retry-After) or names an
 * address it may not, or (since 1.5) when too many requests are parked
 * (park_max); 504 when no answer head came within 120 s, or (since 1.5)
 * when a parked request's park_timeout_ms passed; 413 when
 * the body exceeds the server's limits.max_body_bytes. A request waiting
 * for its upstream holds no HTTP thread. Cookie-authenticated writes under
 * a prefix need no X-CSRF-Token (the upstream's pages cannot know it; the
 * apps cookie is SameSite=Lax, scoped to the object, and upstreams keep
 * their own XSRF check).
 * The caller's X-Forwarded-* are replaced (extended, for a front proxy
 * listed in auth.trusted_header.proxies).
 *
 * Since 1.5, for serving (mirroring, autoscale, scale from zero): resolve
 * may name a mirror upstream that gets a share of the requests (shadow
 * traffic), set the key the request is counted and parked under, and park
 * the request (CUBE_EAGAIN) until the plugin wakes it; a `done` callback
 * gets each request's figures; cube_host.proxy_stats reads the counters
 * of a prefix or a key. cubed's /metrics has them per prefix:
 * cube_proxy_inflight, cube_proxy_parked (gauges), cube_proxy_errors_total
 * and cube_proxy_mirror_total{result="ok|error|skipped"}.
 *
 * Since 1.5, for applications that call a proxied server without a Cube
 * login (a public inference service): cube_host.proxy_credential_set
 * gives one object of a prefix (one preset key) a credential of its own,
 * an API key the plugin made, of which the host keeps only the SHA-256.
 * A caller presenting it (X-Api-Key: <key>, or Authorization: Bearer
 * <key>) passes the prefix's permission check as an application (no
 * user; cube_host.req_user is NULL in resolve); the key never reaches the
 * upstream. And resolve may leave a tag that done gets back.
 */
#ifndef CUBE_PROXY_H
#define CUBE_PROXY_H

#include <stdint.h>

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
    /* since 1.5 */
    /** With CUBE_EAGAIN: how long the request may stay parked, counted
     *  from its first park, in ms (0: 120000; more than 600000: 600000).
     *  When it passes the caller gets 504. (64 bits: the 1.4 struct ends
     *  in padding that a new field may not use.) */
    uint64_t park_timeout_ms;
    /** What the request is counted under (cube_host.proxy_stats) and, when
     *  resolve returns CUBE_EAGAIN, parked under (cube_host.proxy_wake).
     *  The host presets it to the prefix's decoded path parameters joined
     *  with '/' in template order ("p1/llama" for
     *  "/serve/{project}/{name}"; "" for a prefix without parameters);
     *  resolve may replace it. At most 127 bytes, no control bytes (else
     *  503, logged); a preset that breaks the rule is "". The first key
     *  resolve leaves with CUBE_OK or CUBE_EAGAIN stays the request's: a
     *  resolve after a wake finds it preset, and a change is ignored. */
    char key[128];
    /** A mirror (shadow) upstream, checked as `host` is: mirror_percent
     *  (0..100) of the requests resolved here are also sent to it, and its
     *  answer is read up to the status line and discarded; it never delays
     *  or alters the answer the caller gets from `host`. The copy is sent
     *  once the caller's whole body has been relayed to `host`, with the
     *  same head (the plugin's header included), Content-Length framing
     *  and Connection: close. Not mirrored: WebSocket upgrades, requests
     *  the host answers before relaying (a refusal, an unreachable
     *  upstream), and bodies larger than cube_proxy_desc.mirror_body_max
     *  (the host buffers the copy's body in memory up to that cap).
     *  Sampling is deterministic per key: of n requests, floor(n * percent
     *  / 100) are mirrored. A copy that cannot connect, is not answered
     *  within 30 s or is answered 5xx counts as a mirror error (see
     *  cube_proxy_stats); at most 1024 copies (64 MiB of them) are in
     *  flight at once, more are dropped and counted as errors. Empty mirror_host or percent 0:
     *  no mirror; a percent above 100 or a bad address answers 503 as
     *  `host` does (logged). */
    char mirror_host[64];
    unsigned mirror_port;
    unsigned mirror_percent;
    /** The plugin's own number for this request (0: none), handed back
     *  in cube_proxy_done.tag: which replica it chose, say, so that done
     *  can count that replica's requests in flight (least-outstanding
     *  balancing) without a lookup. The host never reads it. The tag the
     *  resolve that relayed the request left is the one reported; one
     *  that parked it is forgotten. */
    uint64_t tag;
};

/** What the host reports to cube_proxy_desc.done about one proxied
 *  request that ended (since 1.5). Valid during the call only. */
struct cube_proxy_done {
    /* since 1.5 */
    size_t size;              /**< sizeof as the host compiled it */
    const char *prefix;       /**< the prefix's template, as registered */
    const char *key;          /**< the request's key (cube_proxy_upstream.key) */
    /** The status the caller got; 499 when it went away before an answer
     *  (a parked caller that hung up, say). */
    int status;
    /** 1 when the answer came from the upstream, 0 when the host answered
     *  itself (resolve's refusals, 502, 503, 504, 413). */
    int upstream;
    /** 1 when status is 500 or more, or the answer's body broke off (the
     *  upstream closed early or sent bad framing). */
    int error;
    int mirrored;             /**< a copy was handed to the mirror */
    int parked;               /**< resolve parked it (CUBE_EAGAIN) at least once */
    uint64_t duration_us;     /**< request head's arrival to the answer's end */
    uint64_t parked_us;       /**< of which parked */
    uint64_t bytes_in;        /**< request body bytes read from the caller */
    /** Answer body bytes sent to the caller (as the access log counts
     *  them). A WebSocket's request ends when its relay closes; the bytes
     *  it relayed are not counted. */
    uint64_t bytes_out;
    /** cube_proxy_upstream.tag of the resolve that relayed the request;
     *  0 when none did (a refusal, a parked caller that went away). */
    uint64_t tag;
    /** 1 when the caller passed with the prefix's application credential
     *  (cube_host.proxy_credential_set) rather than a Cube login. */
    int credential;
};

/** Counters of a prefix, or of one key under it: cube_host.proxy_stats
 *  fills them (since 1.5). Counted from cubed's start; a request counts
 *  once resolve has run for it (refusals before resolve, 401/403/404,
 *  are not counted), under a key once resolve returned CUBE_OK or
 *  CUBE_EAGAIN for it (at most 4096 keys a prefix are kept; later ones
 *  count in the prefix's figures only). */
struct cube_proxy_stats {
    /* since 1.5 */
    size_t size;              /**< set by the caller: sizeof as it compiled it */
    uint64_t requests;        /**< requests resolved */
    uint64_t inflight;        /**< now: resolved and not ended (parked included) */
    uint64_t parked;          /**< now: parked by CUBE_EAGAIN */
    uint64_t errors;          /**< ended with cube_proxy_done.error set */
    uint64_t mirrored;        /**< copies handed to the mirror */
    uint64_t mirror_errors;   /**< copies that failed or were dropped */
    /** Unix time in ms of the latest request's start or end; 0: none. An
     *  autoscaler scales to zero when inflight is 0 and this is old. */
    int64_t last_ms;
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
     *
     * Since 1.5 it may return CUBE_EAGAIN to park the request (scale from
     * zero: start the server, then wake the request): the caller waits,
     * holding no HTTP thread and with its body unread, under up->key
     * until the plugin calls cube_host.proxy_wake for that key; then
     * resolve runs again for it on an HTTP thread (and may park it
     * again). Make what resolve reads ready before waking: a wake that
     * comes while a request's resolve runs is not lost (the host runs
     * resolve again). A parked request is answered 504 when
     * up->park_timeout_ms passes, 503 when the server stops; one past the
     * prefix's park_max is answered 503 at once; a caller that hangs up
     * leaves the parked set at once (its slot is free again).
     */
    int (*resolve)(void *state, cube_req *req, struct cube_proxy_upstream *up);
    /* since 1.5 */
    /**
     * Optional. Called once for every request resolve ran for, after it
     * ended (answered, failed, or its caller went away), with its
     * figures; the counters (cube_host.proxy_stats) already include it.
     * Runs on the HTTP thread that completed the request, which serves
     * no one meanwhile: it must not block (no store, no network, no lock
     * held long) — record the figures and return. It may call
     * proxy_stats and proxy_wake. `d` is valid during the call only.
     */
    void (*done)(void *state, const struct cube_proxy_done *d);
    /** Most requests parked at once under this prefix (CUBE_EAGAIN); one
     *  more is answered 503 with Retry-After. 0: 256; at most 65536. */
    unsigned park_max;
    /** Largest request body copied to a mirror, in bytes (the copy is
     *  buffered in memory until the body ends); a larger one is relayed
     *  but not mirrored. 0: 1 MiB; at most 64 MiB. */
    size_t mirror_body_max;
};

#ifdef __cplusplus
}
#endif

#endif /* CUBE_PROXY_H */
