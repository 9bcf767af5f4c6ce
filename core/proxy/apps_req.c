/* apps_req.c — the handshake between the console origin and the apps
 * origin, the apps listener's own paths and its cookie credential, and
 * the audit of non-owners' sessions (apps.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "apps_priv.h"
#include "auth/auth_priv.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "base/log.h"
#include "objects/objects.h"
#include "proxy_priv.h"
#include "base/hash.h"

static struct cube_apps *apps_of(cube_req *req)
{
    return req->ctx->proxies ? req->ctx->proxies->apps : NULL;
}

static int64_t now_s(void) { return (int64_t)time(NULL); }

/* A redirect that no cache keeps and no Referer repeats. */
static void redirect(cube_req *req, int status, const char *location)
{
    cube_http_add_header(req, "Location", location);
    cube_http_add_header(req, "Cache-Control", "no-store");
    cube_http_add_header(req, "Referrer-Policy", "no-referrer");
    cube_http_answer(req, status, "text/plain; charset=utf-8", "", 0, 0);
}

/* 1 when s can be a cookie's Path: no separators, spaces or controls. */
static int cookie_path_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= ' ' || s[i] == ';' || s[i] == ',' || s[i] == 0x7f)
            return 0;
    return n > 0 && n < APPS_PATH_MAX;
}

/* -- at the console origin --------------------------------------------------------- */

void cube_apps_handshake(cube_req *req, const struct proxy_prefix *p, size_t obj_len,
                         const char *target)
{
    struct cube_apps *a = apps_of(req);
    const char *dest = cube_req_header(req, "Sec-Fetch-Dest");
    char origin[APPS_ORIGIN_MAX], loc[APPS_ORIGIN_MAX + APPS_PATH_MAX * 2 + 96], msg[200];
    char secret[65];
    const char *why = NULL;
    if (!a || !a->http) {
        cube_http_answer_error(req, 503, "Unavailable", "the apps listener is not running");
        return;
    }
    if (dest && strcmp(dest, "document")) {
        snprintf(msg, sizeof msg, "proxied servers open in a top-level window of their own "
                 "origin, not as a%s %.20s", strchr("aeiou", dest[0]) ? "n" : "", dest);
        cube_http_answer_error(req, 403, "Forbidden", msg);
        return;
    }
    if (apps_origin_of(req, p, origin, sizeof origin, &why) < 0) {
        cube_http_answer_error(req, 400, "BadRequest", why);
        return;
    }
    if (!cookie_path_ok(req->raw_path, obj_len) || strlen(target) >= APPS_PATH_MAX * 2) {
        cube_http_answer_error(req, 400, "BadRequest", "the path is too long or holds "
                               "characters a cookie's Path cannot");
        return;
    }
    if (!req->who.via) {               /* a public prefix: nothing to hand over */
        snprintf(loc, sizeof loc, "%s%s", origin, target);
        redirect(req, 302, loc);
        return;
    }
    struct apps_cred c = {.type = APPS_CODE, .expires = now_s() + APPS_CODE_S,
                          .bound = req->who.via == CUBE_VIA_SESSION};
    snprintf(c.user, sizeof c.user, "%s", req->who.user);
    memcpy(c.session, req->who.session, sizeof c.session);
    apps_object_key(req, p, c.obj, sizeof c.obj);
    memcpy(c.path, req->raw_path, obj_len);
    c.path[obj_len] = '\0';
    snprintf(c.host, sizeof c.host, "%s", apps_per_object(req->ctx->cfg)
                                              ? apps_authority(origin) : "");
    if (!(c.next = strdup(target)) || apps_cred_add(a, &c, secret) < 0) {
        cube_http_answer_error(req, 503, "Unavailable", "cannot hand over now; retry");
        return;
    }
    snprintf(loc, sizeof loc, "%s" APPS_CALLBACK "?code=%s", origin, secret);
    redirect(req, 302, loc);
}

/* -- at the apps origin ---------------------------------------------------------- */

/* GET /_cube/apps/callback?code=...: the code becomes the cookie. */
static void callback(cube_req *req, struct cube_apps *a)
{
    const char *code = cube_req_query(req, "code");
    const char *host = cube_req_header(req, "Host");
    struct apps_cred c, s = {.type = APPS_SESSION};
    char secret[65], cookie[APPS_PATH_MAX + 160];
    if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD")) {
        cube_http_add_header(req, "Allow", "GET, HEAD");
        cube_http_answer_error(req, 405, "MethodNotAllowed", "the hand-over is a GET");
        return;
    }
    if (!code || apps_code_take(a, code, &c) < 0) {
        cube_http_answer_error(req, 400, "BadRequest", "the hand-over code is unknown, used "
                               "or expired: open the server again from the console");
        return;
    }
    if (c.host[0] && (!host || strcasecmp(host, c.host))) {
        free(c.next);
        cube_http_answer_error(req, 400, "BadRequest", "this hand-over code is for another "
                               "host");
        return;
    }
    memcpy(s.user, c.user, sizeof s.user);
    memcpy(s.session, c.session, sizeof s.session);
    memcpy(s.obj, c.obj, sizeof s.obj);
    s.bound = c.bound;
    s.until = now_s() + (c.bound ? APPS_BOUND_S : APPS_UNBOUND_S);
    s.expires = now_s() + APPS_IDLE_S < s.until ? now_s() + APPS_IDLE_S : s.until;
    if (apps_cred_add(a, &s, secret) < 0) {
        free(c.next);
        cube_http_answer_error(req, 503, "Unavailable", "cannot hand over now; retry");
        return;
    }
    snprintf(cookie, sizeof cookie, APPS_COOKIE "=%s; Path=%s; HttpOnly; SameSite=Lax%s",
             secret, c.path, apps_secure(req->ctx->cfg) ? "; Secure" : "");
    cube_http_add_header(req, "Set-Cookie", cookie);
    redirect(req, 303, c.next);
    free(c.next);
}

int cube_apps_unmatched(cube_req *req)
{
    struct cube_apps *a = apps_of(req);
    req->route_label = "apps";
    if (a && !strcmp(req->raw_path, APPS_CALLBACK)) {
        callback(req, a);
        return 1;
    }
    cube_http_answer_error(req, 404, "NotFound", "the apps origin serves proxied servers "
                           "only; the API and the console are at the console's origin");
    return 1;
}

int cube_apps_host_ok(cube_req *req, const struct proxy_prefix *p)
{
    char origin[APPS_ORIGIN_MAX], msg[APPS_ORIGIN_MAX + 64];
    const char *why = NULL, *host = cube_req_header(req, "Host");
    if (!apps_per_object(req->ctx->cfg))
        return 1;
    if (apps_origin_of(req, p, origin, sizeof origin, &why) < 0) {
        cube_http_answer_error(req, 400, "BadRequest", why);
        return 0;
    }
    if (host && !strcasecmp(host, apps_authority(origin)))
        return 1;
    snprintf(msg, sizeof msg, "this server is served at %s", origin);
    cube_http_answer_error(req, 421, "Misdirected", msg);
    return 0;
}

void cube_apps_to_console(cube_req *req, const char *target)
{
    char origin[APPS_ORIGIN_MAX], loc[APPS_ORIGIN_MAX + APPS_PATH_MAX * 2];
    if (apps_console_origin(req, origin, sizeof origin) < 0 ||
        strlen(target) >= APPS_PATH_MAX * 2) {
        cube_http_answer_error(req, 401, "Unauthorized", "sign in at the console and open "
                               "this server from there (set console_origin for a redirect)");
        return;
    }
    snprintf(loc, sizeof loc, "%s%s", origin, target);
    redirect(req, 302, loc);
}

/* -- the apps cookie ---------------------------------------------------------------- */

/* Tries one cube_app cookie value for the object obj: 1 when it signs in. */
static int try_cookie(cube_req *req, struct cube_apps *a, const char *v, size_t n,
                      const char *obj)
{
    uint8_t hash[32];
    struct apps_cred s;
    if (n != 64)
        return 0;
    cube_sha256(v, n, hash);
    if (apps_session_get(a, hash, &s) < 0 || strcmp(s.obj, obj))
        return 0;
    if (s.bound && auth_session_alive(req->ctx->auth, s.session, s.user) < 0) {
        apps_session_drop(a, hash);    /* its console session ended */
        return 0;
    }
    snprintf(req->who.user, sizeof req->who.user, "%s", s.user);
    memcpy(req->who.session, hash, sizeof hash);
    req->who.via = CUBE_VIA_APP;
    return 1;
}

int cube_apps_identify(cube_req *req)
{
    struct cube_apps *a = apps_of(req);
    const char *cookies = cube_req_header(req, "Cookie");
    char obj[APPS_OBJ_MAX];
    if (!a || !req->proxy || !cookies)
        return 0;
    apps_object_key(req, req->proxy->pfx, obj, sizeof obj);
    /* Every cube_app cookie counts: a browser sends one per matching Path,
     * and a page could have planted others. */
    const size_t nl = sizeof APPS_COOKIE - 1;
    for (const char *c = cookies; *c;) {
        while (*c == ' ' || *c == ';')
            c++;
        size_t span = strcspn(c, ";");
        if (span > nl && !strncmp(c, APPS_COOKIE, nl) && c[nl] == '=') {
            size_t vlen = span - nl - 1;
            while (vlen && c[nl + vlen] == ' ')
                vlen--;
            if (try_cookie(req, a, c + nl + 1, vlen, obj))
                return 0;
        }
        c += span;
    }
    return 0;
}

/* -- the audit of others' sessions ------------------------------------------------------ */

void cube_apps_audit(cube_req *req, const struct proxy_prefix *p, const char *owner)
{
    struct cube_apps *a = apps_of(req);
    char obj[APPS_OBJ_MAX], msg[300];
    if (!a || !p->kind || !owner || !*owner || !req->who.via || !strcmp(req->who.user, owner))
        return;
    apps_object_key(req, p, obj, sizeof obj);
    int first = req->who.via == CUBE_VIA_APP ? apps_session_mark(a, req->who.session)
                                             : apps_mark_once(a, req->who.user, obj);
    if (!first)
        return;
    const char *project = cube_route_match_param(&req->match, "project");
    const char *name = cube_route_match_param(&req->match, "name");
    snprintf(msg, sizeof msg, "%s opened a session on the server of %s %s/%s, which %s owns",
             req->who.user, p->kind->kind, project, name, owner);
    cube_log(CUBE_LOG_INFO, "audit", "%s", msg);
    cube_obj_record_event(req->ctx, p->kind, project, name, NULL, "open", req->who.user, 200,
                          "Normal", "OpenedByOther", msg);
}
