/* auth.c — permissions and the request's principal (see auth.h): which
 * credential a request carries, who that is, and whether the route's or
 * verb's permission admits them. Everything here reads memory only (the
 * index and the credential cache); the store is read on cache misses. */
#include "auth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "auth_priv.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "objects/kinds.h"
#include "objects/objects.h"
#include "base/hash.h"

/* -- the principal ------------------------------------------------------ */

/* The value of cookie `name` in a Cookie header into out; 0 or -1. */
static int cookie_value(const char *header, const char *name, char *out, size_t len)
{
    size_t n = strlen(name);
    for (const char *c = header; c && *c;) {
        while (*c == ' ' || *c == ';')
            c++;
        size_t span = strcspn(c, ";");
        if (span > n && strncmp(c, name, n) == 0 && c[n] == '=') {
            size_t vlen = span - n - 1;
            if (vlen >= len)
                return -1;
            memcpy(out, c + n + 1, vlen);
            out[vlen] = '\0';
            return 0;
        }
        c += span;
    }
    return -1;
}

/* 1 when the client is one of the configured trusted proxies. */
static int from_trusted_proxy(struct cube_auth *a, cube_req *req)
{
    const char *client = cube_req_client(req);
    for (size_t i = 0; i < a->n_proxies; i++)
        if (strcmp(a->proxies[i], client) == 0)
            return 1;
    return 0;
}

static int refuse(cube_req *req, const char *message)
{
    req->who_failed = 1;
    cube_http_add_header(req, "WWW-Authenticate", "Bearer realm=\"cube\"");
    cube_http_answer_error(req, 401, "Unauthorized", message);
    return -1;
}

/* Resolves a trusted proxy's user header, creating the user on first use. */
static int from_header(struct cube_auth *a, cube_req *req, const char *value)
{
    char msg[200], user[CUBE_USER_MAX];
    cJSON *id = cJSON_CreateObject();
    cJSON_AddStringToObject(id, "username", value);
    char *text = cJSON_PrintUnformatted(id);
    cJSON_Delete(id);
    int rc = text ? auth_provision(a, "header", text, user, msg, sizeof msg) : CUBE_ENOMEM;
    free(text);
    if (rc != CUBE_OK)
        return refuse(req, rc == CUBE_EPERM ? "this user is disabled" : msg);
    snprintf(req->who.user, sizeof req->who.user, "%s", user);
    req->who.via = CUBE_VIA_HEADER;
    return 0;
}

/* Reads the credential the request carries into req->who (user unchecked). */
static int read_credential(struct cube_auth *a, cube_req *req)
{
    struct cube_principal *p = &req->who;
    const char *authz = cube_req_header(req, "Authorization");
    char cookie[80];
    if (authz) {
        if (strncasecmp(authz, "Bearer ", 7) != 0)
            return refuse(req, "Authorization: only Bearer tokens are accepted");
        const char *token = authz + 7;
        if (cube_http_admin_token(req, token)) {
            p->via = CUBE_VIA_ADMIN_TOKEN;
            p->admin = 1;
            snprintf(p->user, sizeof p->user, "admin");
            return 0;
        }
        if (!a || auth_token_find(a, token, p) < 0)
            return refuse(req, "the bearer token is invalid, expired or revoked");
        p->via = CUBE_VIA_TOKEN;
        return 0;
    }
    if (req->http && req->http->apps)    /* no console session, no proxy header */
        return a && a->apps_hooks ? a->apps_hooks->identify(req) : 0;
    const char *cookies = cube_req_header(req, "Cookie");
    if (a && cookies && cookie_value(cookies, "cube_session", cookie, sizeof cookie) == 0 &&
        auth_session_find(a, cookie, p) == 0) {
        p->via = CUBE_VIA_SESSION;
        auth_session_csrf(cookie, req->csrf);
        return 0;
    }
    const char *hv = a && a->trusted_header[0] ? cube_req_header(req, a->trusted_header) : NULL;
    if (hv && *hv && from_trusted_proxy(a, req))
        return from_header(a, req, hv);
    return 0;
}

int cube_auth_identify(cube_req *req)
{
    struct cube_principal *p = &req->who;
    struct cube_auth *a = req->ctx->auth;
    if (p->resolved)
        return req->who_failed ? -1 : 0;
    p->resolved = 1;
    if (read_credential(a, req) < 0)
        return -1;
    if (p->via == CUBE_VIA_NONE || p->via == CUBE_VIA_ADMIN_TOKEN)
        return 0;
    int admin, disabled;
    if (auth_index_get_user(a, p->user, &admin, &disabled) < 0)
        return refuse(req, "the user of this credential no longer exists");
    if (disabled)
        return refuse(req, "this user is disabled");
    p->admin = admin;
    return 0;
}

const struct cube_principal *cube_auth_who(cube_req *req)
{
    cube_auth_identify(req);
    return &req->who;
}

struct cube_actor cube_auth_actor(cube_req *req)
{
    const struct cube_principal *p = cube_auth_who(req);
    return (struct cube_actor){p->via ? p->user : "anonymous", p->admin, NULL};
}

int cube_auth_role(cube_req *req, const char *project)
{
    const struct cube_principal *p = cube_auth_who(req);
    if (p->admin)
        return CUBE_ROLE_ADMIN;
    if (!p->via || !project || !req->ctx->auth)
        return CUBE_ROLE_NONE;
    return auth_index_role(req->ctx->auth, project, p->user);
}

int cube_auth_project_exists(struct cube_ctx *ctx, const char *project)
{
    return ctx->auth && project && auth_index_has_project(ctx->auth, project);
}

/* -- checks ------------------------------------------------------------- */

static int unsafe_method(const char *m)
{
    return strcmp(m, "GET") != 0 && strcmp(m, "HEAD") != 0 && strcmp(m, "OPTIONS") != 0;
}

/* Cookie-authenticated writes must echo the session's CSRF token. */
static int csrf_ok(cube_req *req)
{
    /* csrf_exempt: proxied prefixes, see cube_proxy_begin (proxy_req.c) */
    if (req->who.via != CUBE_VIA_SESSION || !unsafe_method(req->method) || req->csrf_exempt)
        return 1;
    const char *sent = cube_req_header(req, "X-CSRF-Token");
    if (sent && strlen(sent) == strlen(req->csrf) &&
        cube_ct_compare(sent, req->csrf, strlen(req->csrf)) == 0)
        return 1;
    cube_http_answer_error(req, 403, "Forbidden",
                           "missing or wrong X-CSRF-Token header (sent with the session "
                           "cookie, it must carry the token the login answered)");
    return 0;
}

static int deny(cube_req *req, int status, const char *fmt, const char *a, const char *b)
{
    char msg[300];
    snprintf(msg, sizeof msg, fmt, a, b);
    cube_http_answer_error(req, status, status == 401 ? "Unauthorized"
                           : status == 404 ? "NotFound" : "Forbidden", msg);
    return 0;
}

static int need_signed_in(cube_req *req)
{
    if (req->http && req->http->apps)
        return deny(req, 401, "open this server from the console (its hand-over sets this "
                    "origin's cookie) or send an Authorization: Bearer token%s%s", "", "");
    return deny(req, 401, "sign in first: send the session cookie or an Authorization: "
                "Bearer token%s%s", "", "");
}

/* The lowest role a project permission admits. */
static int role_for(int perm)
{
    switch (perm) {
    case CUBE_P_PROJECT_VIEW: return CUBE_ROLE_VIEWER;
    case CUBE_P_PROJECT_EDIT: return CUBE_ROLE_DEV;
    case CUBE_P_PROJECT_OPERATE: return CUBE_ROLE_OPS;
    default: return CUBE_ROLE_CREATOR;
    }
}

/* A project permission for a signed-in caller; owner (may be NULL) lets a
 * dev operate their own object. */
static int check_project(cube_req *req, int perm, const char *project, const char *owner)
{
    int role = cube_auth_role(req, project);
    if (role == CUBE_ROLE_NONE)
        return deny(req, 404, "project \"%s\" not found%s", project ? project : "", "");
    if (role >= role_for(perm))
        return 1;
    if (perm == CUBE_P_PROJECT_OPERATE && role == CUBE_ROLE_DEV && owner &&
        strcmp(owner, req->who.user) == 0)
        return 1;
    return deny(req, 403, "this needs the %s role in project \"%s\"",
                perm == CUBE_P_PROJECT_OPERATE && role == CUBE_ROLE_DEV
                    ? "ops (or owning the object)" : cube_role_name(role_for(perm)),
                project);
}

void cube_auth_set_apps(struct cube_auth *a, const struct cube_auth_apps *apps)
{
    a->apps_hooks = apps;
}

/* The apps origin's check of an unsafe method's origin (cube_auth_apps). */
static int same_origin(cube_req *req)
{
    const struct cube_auth *a = req->ctx->auth;
    return !a || !a->apps_hooks || a->apps_hooks->same_origin(req);
}

int cube_auth_check_owner(cube_req *req, int perm, const char *project, const char *owner)
{
    /* csrf_exempt: proxied requests, which only the apps listener serves */
    if (!req->csrf_exempt && unsafe_method(req->method) && !same_origin(req))
        return 0;
    if (perm == CUBE_P_PUBLIC)
        return 1;
    if (cube_auth_identify(req) < 0 || !csrf_ok(req))
        return 0;
    if (perm == CUBE_P_RESOURCE)
        return 1;
    if (!req->who.via)
        return need_signed_in(req);
    if (perm == CUBE_P_USER || req->who.admin)
        return 1;
    if (perm == CUBE_P_ADMIN || !project)
        return deny(req, 403, "this needs a platform administrator%s%s", "", "");
    return check_project(req, perm, project, owner);
}

int cube_auth_check(cube_req *req, int perm, const char *project)
{
    return cube_auth_check_owner(req, perm, project, NULL);
}
