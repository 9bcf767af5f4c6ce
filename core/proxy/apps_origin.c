/* apps_origin.c — origins (apps.h): which origin serves a proxied object,
 * which one is the console's, and the API's refusal of unsafe requests
 * sent from any other origin.
 *
 * Without apps_origin and console_origin both are derived from the Host
 * a browser sent: the console at <host>:<main port>, the apps listener at
 * <host>:<apps port>, so http://127.0.0.1:8080 hands over to
 * http://127.0.0.1:8081 and http://gpu-box:8080 to http://gpu-box:8081. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "apps_priv.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "proxy_priv.h"
#include "base/text.h"

int apps_secure(const struct cube_config *cfg)
{
    if (cfg->apps_origin)
        return !strncmp(cfg->apps_origin, "https://", 8);
    return cfg->tls_cert != NULL;
}

int apps_per_object(const struct cube_config *cfg)
{
    return cfg->apps_origin && strchr(cfg->apps_origin, '{') != NULL;
}

const char *apps_authority(const char *origin)
{
    const char *s = strstr(origin, "://");
    return s ? s + 3 : origin;
}

/* The host part of the Host header ("[::1]" kept bracketed) into out; 0,
 * or -1 when there is none or it is not a plain host[:port]. */
static int host_of_request(cube_req *req, char *out, size_t len)
{
    const char *h = cube_req_header(req, "Host");
    if (!h || !*h)
        return -1;
    size_t n;
    if (*h == '[') {
        n = strspn(h + 1, "0123456789abcdefABCDEF:.") + 1;
        if (h[n] != ']')
            return -1;
        n++;
    } else {
        n = 0;
        while (isalnum((unsigned char)h[n]) || h[n] == '.' || h[n] == '-')
            n++;
    }
    if (!n || n >= len || (h[n] && (h[n] != ':' || strspn(h + n + 1, "0123456789") !=
                                                       strlen(h + n + 1))))
        return -1;
    memcpy(out, h, n);
    out[n] = '\0';
    return 0;
}

/* A value put into a host name: a DNS label without "--" (the usual
 * separator), so that no two objects share an origin. */
static int label_ok(const char *v)
{
    size_t n = strlen(v);
    if (!n || n > 63 || strstr(v, "--") || v[0] == '-' || v[n - 1] == '-')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= '0' && v[i] <= '9') || v[i] == '-'))
            return 0;
    return 1;
}

/* apps_origin with its placeholders filled in; a parameter the prefix
 * lacks becomes the prefix's first segment. */
static int fill_template(cube_req *req, const struct proxy_prefix *p, char *out, size_t len,
                         const char **why)
{
    struct cube_text t = {0};
    for (const char *s = req->ctx->cfg->apps_origin; *s;) {
        const char *param = !strncmp(s, "{project}", 9) ? "project"
                            : !strncmp(s, "{name}", 6)  ? "name" : NULL;
        if (!param) {
            cube_text_put(&t, s++, 1);
            continue;
        }
        const char *v = cube_route_match_param(&req->match, param);
        if (!v)
            v = p->segs[0];
        if (!label_ok(v)) {
            *why = "this object's name cannot be part of a host name (apps_origin "
                   "names a host per object: lowercase letters, digits and single '-')";
            free(t.p);
            return -1;
        }
        cube_text_puts(&t, v);
        s += strlen(param) + 2;
    }
    int ok = !t.oom && t.len < len;
    if (ok)
        memcpy(out, t.p, t.len + 1);
    free(t.p);
    *why = ok ? NULL : "the apps origin is too long";
    return ok ? 0 : -1;
}

int apps_origin_of(cube_req *req, const struct proxy_prefix *p, char *out, size_t len,
                   const char **why)
{
    const struct cube_config *cfg = req->ctx->cfg;
    char host[160];
    if (cfg->apps_origin)
        return fill_template(req, p, out, len, why);
    const struct cube_apps *a = req->ctx->proxies ? req->ctx->proxies->apps : NULL;
    if (host_of_request(req, host, sizeof host) < 0 || !a || !a->http) {
        *why = "the request names no usable Host";
        return -1;
    }
    snprintf(out, len, "%s://%s:%d", apps_secure(cfg) ? "https" : "http", host, a->http->port);
    return 0;
}

int apps_console_origin(cube_req *req, char *out, size_t len)
{
    const struct cube_config *cfg = req->ctx->cfg;
    char host[160];
    if (cfg->console_origin) {
        snprintf(out, len, "%s", cfg->console_origin);
        return 0;
    }
    if (cfg->apps_origin || host_of_request(req, host, sizeof host) < 0)
        return -1;
    int port = req->ctx->http ? req->ctx->http->port : cfg->listen_port;
    snprintf(out, len, "%s://%s:%d", cfg->tls_cert ? "https" : "http", host, port);
    return 0;
}

void apps_object_key(cube_req *req, const struct proxy_prefix *p, char *out, size_t len)
{
    int n = snprintf(out, len, "%s", p->tmpl);
    for (size_t i = 0; i < req->match.n_params && n >= 0 && (size_t)n < len; i++)
        n += snprintf(out + n, len - (size_t)n, "\n%s", req->match.params[i].value);
}

/* -- the API's cross-origin check ------------------------------------------------ */

/* 1 when origin (an Origin header) is the console's own. */
static int own_origin(cube_req *req, const char *origin)
{
    const struct cube_config *cfg = req->ctx->cfg;
    if (cfg->console_origin)
        return !strcasecmp(origin, cfg->console_origin);
    const char *host = cube_req_header(req, "Host");
    const char *auth = strstr(origin, "://");
    return host && auth && (!strncmp(origin, "http://", 7) || !strncmp(origin, "https://", 8)) &&
           !strcasecmp(auth + 3, host);
}

int cube_apps_same_origin(cube_req *req)
{
    const char *site = cube_req_header(req, "Sec-Fetch-Site");
    const char *origin = cube_req_header(req, "Origin");
    char msg[400];
    if (site && strcmp(site, "same-origin") && strcmp(site, "none")) {
        snprintf(msg, sizeof msg, "cross-origin request refused: this %s comes from another "
                 "site's page (Sec-Fetch-Site: %.40s)", req->method, site);
    } else if (origin && !own_origin(req, origin)) {
        const char *host = cube_req_header(req, "Host");
        snprintf(msg, sizeof msg, "cross-origin request refused: Origin %.120s is not this "
                 "server's (%.120s)%s", origin,
                 req->ctx->cfg->console_origin ? req->ctx->cfg->console_origin
                 : host ? host : "no Host",
                 req->ctx->cfg->console_origin ? ""
                 : "; behind a proxy that rewrites Host, set console_origin in cube.yaml");
    } else {
        return 1;
    }
    cube_http_answer_error(req, 403, "Forbidden", msg);
    return 0;
}
