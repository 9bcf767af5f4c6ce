/* routes.c — the two public routes. GET .../login starts the
 * authorization code flow (state, nonce, PKCE S256, a browser-binding
 * cookie) and redirects to the provider; GET .../callback checks the
 * state, redeems the code, maps the claims and hands the identity to
 * host->auth_complete. Every failure answers 401 with a reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "oidc.h"

#define MAX_NEXT 1024

/* `next` when it is a local path ("/x", not "//x" or "/\x"), else "/". */
static const char *safe_next(const char *next)
{
    if (!next || next[0] != '/' || next[1] == '/' || next[1] == '\\' ||
        strlen(next) > MAX_NEXT)
        return "/";
    for (const char *p = next; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return "/";
    return next;
}

/* The cookie `name` of the request into out (43 base64url characters), or
 * "" when absent or malformed. */
static void read_cookie(const struct oidc *o, cube_req *req, char out[OIDC_TOKEN_LEN])
{
    const char *c = o->host->req_header(req, "Cookie");
    size_t nlen = strlen(o->cookie_name);
    out[0] = '\0';
    for (const char *p = c; p && *p; p += strspn(p, "; ")) {
        size_t len = strcspn(p, ";");
        if (len == nlen + 1 + OIDC_TOKEN_LEN - 1 && strncmp(p, o->cookie_name, nlen) == 0 &&
            p[nlen] == '=' && strspn(p + nlen + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
                                     "opqrstuvwxyz0123456789-_") >= OIDC_TOKEN_LEN - 1) {
            memcpy(out, p + nlen + 1, OIDC_TOKEN_LEN - 1);
            out[OIDC_TOKEN_LEN - 1] = '\0';
        }
        p += len;
    }
}

/* The redirect URI: configured, or built from the request's Host (and
 * X-Forwarded-Proto). 0, or -1 when the Host header is unusable. */
static int redirect_uri(const struct oidc *o, cube_req *req, char *out, size_t n)
{
    if (o->cfg.redirect_uri) {
        snprintf(out, n, "%s", o->cfg.redirect_uri);
        return 0;
    }
    const char *host = o->host->req_header(req, "Host");
    const char *proto = o->host->req_header(req, "X-Forwarded-Proto");
    if (!host || !*host || strlen(host) > 255 ||
        host[strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")])
        return -1;
    snprintf(out, n, "%s://%s%s", proto && strcmp(proto, "https") == 0 ? "https" : "http",
             host, o->callback_path);
    return 0;
}

/* Answers 401 {"error":{"code":"Unauthorized","message":"OIDC login
 * failed: <why>"}} and logs the reason. */
static int fail(const struct oidc *o, cube_req *req, const char *why)
{
    char msg[OIDC_ERR_LEN + 32];
    snprintf(msg, sizeof msg, "OIDC login failed: %s", why);
    o->host->log(o->self, CUBE_LOG_WARN, "%s (request %s)", msg, o->host->req_id(req));
    o->host->resp_header(req, "Cache-Control", "no-store");
    return o->host->resp_error(req, 401, "Unauthorized", msg);
}

/* The provider's authorization URL for pending login p; a new string. */
static char *authorize_url(const struct oidc *o, const struct oidc_pending *p,
                           const char *challenge)
{
    char *id = oidc_url_escape(o->cfg.client_id), *ru = oidc_url_escape(p->redirect_uri);
    char *scope = oidc_url_escape(o->cfg.scopes), *url = NULL;
    const char *ep = o->authorization_endpoint;
    size_t cap = strlen(ep) + (id ? strlen(id) : 0) + (ru ? strlen(ru) : 0) +
                 (scope ? strlen(scope) : 0) + 3 * OIDC_TOKEN_LEN + 200;
    if (id && ru && scope && (url = malloc(cap)))
        snprintf(url, cap, "%s%cresponse_type=code&client_id=%s&redirect_uri=%s&scope=%s"
                 "&state=%s&nonce=%s&code_challenge=%s&code_challenge_method=S256",
                 ep, strchr(ep, '?') ? '&' : '?', id, ru, scope, p->state, p->nonce, challenge);
    free(id);
    free(ru);
    free(scope);
    return url;
}

/* Sets (or, with value NULL, clears) the browser-binding cookie. */
static void set_cookie(const struct oidc *o, cube_req *req, const char *value, int secure)
{
    char c[256];
    snprintf(c, sizeof c, "%s=%s; Path=%s; Max-Age=%ld; HttpOnly; SameSite=Lax%s",
             o->cookie_name, value ? value : "", o->cookie_path,
             value ? o->cfg.pending_ttl_s : 0L, secure ? "; Secure" : "");
    o->host->resp_header(req, "Set-Cookie", c);
}

int oidc_route_login(void *state, cube_req *req)
{
    struct oidc *o = state;
    char ruri[600], binding[OIDC_TOKEN_LEN], challenge[OIDC_TOKEN_LEN];
    struct oidc_pending p;
    if (redirect_uri(o, req, ruri, sizeof ruri) < 0)
        return o->host->resp_error(req, 400, "BadRequest",
                                   "OIDC login: no usable Host header to build the redirect URI");
    read_cookie(o, req, binding);
    if ((!binding[0] && oidc_random_token(binding) < 0) ||
        oidc_flow_begin(&o->flow, binding, safe_next(o->host->req_query(req, "next")), ruri,
                        time(NULL), &p) < 0)
        return o->host->resp_error(req, 503, "Unavailable", "OIDC login: cannot start a login");
    char *url = oidc_pkce_challenge(p.verifier, challenge) == 0 ? authorize_url(o, &p, challenge)
                                                                 : NULL;
    int rc;
    if (!url) {
        rc = o->host->resp_error(req, 503, "Unavailable", "OIDC login: out of memory");
    } else {
        set_cookie(o, req, binding, strncmp(ruri, "https://", 8) == 0);
        o->host->resp_header(req, "Cache-Control", "no-store");
        o->host->resp_header(req, "Location", url);
        rc = o->host->resp_text(req, 302, NULL, "Redirecting to the identity provider\n");
    }
    free(url);
    oidc_pending_clear(&p);
    return rc;
}

/* Reports an error= callback from the provider (and forgets its state). */
static int provider_error(struct oidc *o, cube_req *req, const char *error)
{
    struct oidc_pending p;
    char e[64], d[160], why[OIDC_ERR_LEN];
    if (oidc_flow_take(&o->flow, o->host->req_query(req, "state"), time(NULL), &p) == 0)
        oidc_pending_clear(&p);
    oidc_printable(e, sizeof e, error);
    oidc_printable(d, sizeof d, o->host->req_query(req, "error_description"));
    snprintf(why, sizeof why, "the identity provider answered %s%s%s", e, d[0] ? ": " : "", d);
    return fail(o, req, why);
}

/* Redeems the code of pending login p and completes the sign-in. */
static int finish(struct oidc *o, cube_req *req, const char *code, const struct oidc_pending *p)
{
    char err[OIDC_ERR_LEN];
    cJSON *claims = NULL;
    if (oidc_redeem(o, code, p, &claims, err, sizeof err) < 0)
        return fail(o, req, err);
    char *identity = oidc_identity_json(claims, &o->cfg, err, sizeof err);
    cJSON_Delete(claims);
    if (!identity)
        return fail(o, req, err);
    set_cookie(o, req, NULL, strncmp(p->redirect_uri, "https://", 8) == 0);
    o->host->resp_header(req, "Cache-Control", "no-store");
    int rc = o->host->auth_complete(req, o->cfg.name, identity, p->next);
    cJSON_free(identity);
    if (rc != CUBE_OK)
        return fail(o, req, "the identity was refused");
    return CUBE_OK;
}

int oidc_route_callback(void *state, cube_req *req)
{
    struct oidc *o = state;
    const struct cube_host *h = o->host;
    const char *error = h->req_query(req, "error"), *code = h->req_query(req, "code");
    const char *st = h->req_query(req, "state"), *iss = h->req_query(req, "iss");
    char binding[OIDC_TOKEN_LEN];
    struct oidc_pending p;
    if (error)
        return provider_error(o, req, error);
    if (!st || !*st)
        return fail(o, req, "the callback has no state");
    if (oidc_flow_take(&o->flow, st, time(NULL), &p) < 0)
        return fail(o, req, "unknown, used or expired state; start the login again");
    read_cookie(o, req, binding);
    int rc;
    if (!binding[0] || CRYPTO_memcmp(binding, p.binding, OIDC_TOKEN_LEN - 1) != 0)
        rc = fail(o, req, "the login was started in another browser (no matching login cookie)");
    else if (iss && strcmp(iss, o->cfg.issuer) != 0) /* RFC 9207: a mix-up */
        rc = fail(o, req, "the callback's iss is not the configured issuer");
    else if (!code || !*code || strlen(code) > 4096)
        rc = fail(o, req, "the callback has no code");
    else
        rc = finish(o, req, code, &p);
    oidc_pending_clear(&p);
    return rc;
}
