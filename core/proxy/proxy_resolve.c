/* proxy_resolve.c — asking the plugin which upstream serves a request
 * (cube_proxy_desc.resolve) and acting on the answer: relay it (with a
 * mirror copy when sampled), park it (CUBE_EAGAIN, ABI 1.5) or refuse it.
 * A parked request comes back here when it resumes: woken, past its
 * deadline, its caller gone, or the server stopping. Runs on the
 * request's HTTP thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx/ctx.h"
#include "http/http_req.h"
#include "base/log.h"
#include "proxy_priv.h"

enum { RESOLVED_NO, RESOLVED_RELAY, RESOLVED_PARK };

/* The preset key: the decoded path parameters joined with '/' ("" when
 * that is too long or holds a control byte). */
void proxy_default_key(struct proxy_call *call, char *key, size_t len)
{
    const struct cube_route_match *m = &call->req->match;
    size_t n = 0;
    key[0] = '\0';
    for (size_t i = 0; i < m->n_params; i++) {
        int w = snprintf(key + n, len - n, "%s%s", i ? "/" : "", m->params[i].value);
        if (w < 0 || (size_t)w >= len - n) {
            key[0] = '\0';
            return;
        }
        n += (size_t)w;
    }
    for (const unsigned char *c = (const unsigned char *)key; *c; c++)
        if (*c < 0x20 || *c == 0x7f) {
            key[0] = '\0';
            return;
        }
}

static int key_ok(const char *key)
{
    for (const unsigned char *c = (const unsigned char *)key; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return 0;
    return 1;
}

/* What is wrong with a numeric address and port resolve named, or NULL. */
static const char *bad_address(const struct proxy_prefix *p, const char *host, unsigned port)
{
    return !proxy_is_numeric_host(host) ? "is not a numeric address"
           : !p->allow_remote && !proxy_is_loopback(host)
               ? "is not a loopback address (allow_remote is not set)"
           : port < 1 || port > 65535 ? "has a port out of range" : NULL;
}

/* What is wrong with *up, or NULL; names the field. */
static const char *check_upstream(const struct proxy_prefix *p, struct cube_proxy_upstream *up,
                                  int relay, char *why, size_t len)
{
    up->host[sizeof up->host - 1] = up->header_name[sizeof up->header_name - 1] = '\0';
    up->header_value[sizeof up->header_value - 1] = '\0';
    up->mirror_host[sizeof up->mirror_host - 1] = up->key[sizeof up->key - 1] = '\0';
    const char *bad;
    if (!key_ok(up->key))
        return "key holds a control byte";
    if (!relay)
        return NULL;
    if ((bad = bad_address(p, up->host, up->port))) {
        snprintf(why, len, "host %s", bad);
        return why;
    }
    if (up->header_name[0] && (!proxy_header_name_ok(up->header_name) ||
                               !proxy_header_value_ok(up->header_value)))
        return "header_name/header_value would break the request head";
    if (up->mirror_percent > 100)
        return "mirror_percent is above 100";
    if (up->mirror_host[0] && up->mirror_percent &&
        (bad = bad_address(p, up->mirror_host, up->mirror_port))) {
        snprintf(why, len, "mirror_host %s", bad);
        return why;
    }
    return NULL;
}

/* Runs the plugin's resolve once and maps its answer; answers the caller
 * itself for refusals. */
static int resolve_once(struct proxy_call *call, struct cube_proxy_upstream *up)
{
    cube_req *req = call->req;
    const struct proxy_prefix *p = call->pfx;
    memset(up, 0, sizeof *up);
    up->size = sizeof *up;
    if (call->keyed)
        memcpy(up->key, call->key, sizeof up->key);
    else
        proxy_default_key(call, up->key, sizeof up->key);
    int rc = p->resolve(p->plugin->state, req, up);
    if (req->answered)      /* the plugin said why itself (resp_error) */
        return RESOLVED_NO;
    if (rc == CUBE_ENOTFOUND || rc == CUBE_EPERM) {
        cube_http_answer_error(req, rc == CUBE_EPERM ? 403 : 404,
                               rc == CUBE_EPERM ? "Forbidden" : "NotFound",
                               rc == CUBE_EPERM ? "the plugin refused this request"
                                                : "nothing is served here");
        return RESOLVED_NO;
    }
    if (rc != CUBE_OK && rc != CUBE_EAGAIN) {
        cube_http_add_header(req, "Retry-After", "2");
        cube_http_answer_error(req, 503, "Unavailable", "the upstream is not ready yet");
        return RESOLVED_NO;
    }
    char why[160];
    const char *bad = check_upstream(p, up, rc == CUBE_OK, why, sizeof why);
    if (bad) {
        cube_log(CUBE_LOG_ERROR, p->plugin->log_component, "resolve for %s: %s", p->tmpl,
                 bad);
        cube_http_answer_error(req, 503, "Unavailable", "the upstream is misconfigured");
        return RESOLVED_NO;
    }
    if (!call->keyed) {   /* the first key resolve gave stays the request's */
        memcpy(call->key, up->key, sizeof call->key);
        proxy_stats_bind(call);
    }
    return rc == CUBE_OK ? RESOLVED_RELAY : RESOLVED_PARK;
}

/* Sends the request's head to the upstream resolve named. */
static void relay(struct proxy_call *call, const struct cube_proxy_upstream *up)
{
    proxy_audit(call);
    int mirror = proxy_mirror_wanted(call, up);
    call->tag = up->tag;
    if (proxy_build_head(call, up, mirror ? &call->mhead : NULL) < 0)
        cube_http_answer_error(call->req, 503, "Unavailable", "out of memory");
    else if (proxy_send_head(call, up->host, up->port) == 0) {
        call->mirror = mirror;
        return;
    }
    free(call->mhead.p);
    memset(&call->mhead, 0, sizeof call->mhead);
}

void proxy_resolve_run(struct proxy_call *call)
{
    struct cube_proxy_upstream up;
    if (!call->resolved)
        proxy_stats_begin(call);
    for (int tries = 0;; tries++) {
        uint64_t gen = atomic_load(&call->pfx->wake_gen);
        int r = resolve_once(call, &up);
        if (r == RESOLVED_RELAY)
            relay(call, &up);
        if (r != RESOLVED_PARK)
            return;
        /* a wake that came while resolve ran: run it again at once */
        if (proxy_park_hold(call, tries < PROXY_RESOLVE_RETRIES ? &gen : NULL,
                            up.park_timeout_ms) != 1)
            return;
    }
}

int proxy_resolve_resumed(struct proxy_call *call)
{
    cube_req *req = call->req;
    call->held = 0;
    switch (call->wait.why) {
    case PROXY_WAKE_GONE:
        return -1;
    case PROXY_WAKE_TIMEOUT:
        cube_http_answer_error(req, 504, "GatewayTimeout",
                               "the upstream did not become ready in time");
        return 0;
    case PROXY_WAKE_STOP:
        cube_http_answer_error(req, 503, "Unavailable", "the server is stopping");
        return 0;
    default:
        proxy_resolve_run(call);
        return 0;
    }
}
