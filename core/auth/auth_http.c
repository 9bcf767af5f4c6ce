/* auth_http.c — the /api/v1/auth routes: login (local passwords and
 * password login methods such as LDAP, throttled), logout, me, the login
 * methods for the console, API tokens, and password changes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth_password.h"
#include "auth_priv.h"
#include "base/callerr.h"
#include "auth_throttle.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "base/log.h"
#include "base/clock.h"

#define GENERIC_FAILURE "invalid user name or password"

static int answer_json(cube_req *req, int status, cJSON *doc)
{
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    if (!text)
        return cube_http_answer_error(req, 503, "Unavailable", "out of memory");
    int rc = cube_http_answer(req, status, "application/json", text, strlen(text), 0);
    free(text);
    return rc;
}

cJSON *auth_json_body(cube_req *req, const char *what)
{
    char msg[160];
    /* An escaped NUL ("alice\u0000x" would read as "alice"), bad UTF-8
     * and duplicate names were refused before any handler ran (see
     * json_check.h); a raw NUL is refused here too. */
    if (strlen(req->body) != req->body_len) {
        cube_http_answer_error(req, 400, "BadRequest", "the body contains a NUL character");
        return NULL;
    }
    cJSON *b = cJSON_ParseWithLength(req->body, req->body_len);
    if (cJSON_IsObject(b))
        return b;
    cJSON_Delete(b);
    snprintf(msg, sizeof msg, "expected a JSON object %s", what);
    cube_http_answer_error(req, 400, "BadRequest", msg);
    return NULL;
}

static const char *field(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

int auth_answer_login(cube_req *req, const char *user, const char *next)
{
    struct cube_auth *a = req->ctx->auth;
    char cookie[72], csrf[72], header[256];
    if (auth_session_new(a, user, cookie, csrf) != CUBE_OK)
        return cube_http_answer_error(req, 503, "Unavailable", "cannot start a session");
    snprintf(header, sizeof header, "cube_session=%s; Path=/; HttpOnly; SameSite=Lax; "
             "Max-Age=%lld%s", cookie, (long long)a->max_s,
             req->ctx->cfg->tls_cert ? "; Secure" : "");
    cube_http_add_header(req, "Set-Cookie", header);
    cube_http_add_header(req, "Cache-Control", "no-store");
    cube_log(CUBE_LOG_INFO, "auth", "%s signed in from %s", user, cube_req_client(req));
    if (next) {
        cube_http_add_header(req, "Location", next);
        return cube_http_answer(req, 303, "text/plain; charset=utf-8", "", 0, 0);
    }
    cJSON *doc = cJSON_CreateObject();
    auth_index_describe(a, user, cJSON_AddObjectToObject(doc, "user"));
    cJSON_AddStringToObject(doc, "csrf", csrf);
    return answer_json(req, 200, doc);
}

/* -- login ---------------------------------------------------------------- */

static uint64_t now_ms(void) { return cube_now_ns() / 1000000; }

/* 429 when the user name or the address is locked out. */
static int throttled(cube_req *req, struct cube_auth *a, const char *ukey, const char *akey)
{
    uint64_t wait = cube_throttle_wait(a->throttle, ukey, now_ms());
    uint64_t w2 = cube_throttle_wait(a->throttle, akey, now_ms());
    if (w2 > wait)
        wait = w2;
    if (!wait)
        return 0;
    char secs[24];
    snprintf(secs, sizeof secs, "%llu", (unsigned long long)((wait + 999) / 1000));
    cube_http_add_header(req, "Retry-After", secs);
    cube_http_answer_error(req, 429, "TooManyRequests",
                           "too many failed sign-ins; try again later");
    return 1;
}

/* The provider's check: password_check through the error channel (since
 * 1.5) when it has one, else password_login and its message buffer. */
static int provider_check(const struct auth_provider *p, const char *name, const char *password,
                          char **identity, char *msg, size_t msg_len)
{
    if (!p->desc.password_check)
        return p->desc.password_login(p->plugin->state, name, password, identity, msg,
                                      msg_len);
    struct cube_callerr ce;
    cube_callerr_begin(&ce, p->plugin);
    int rc = p->desc.password_check(p->plugin->state, name, password, identity);
    cube_callerr_end(&ce);
    snprintf(msg, msg_len, "%.*s", (int)(msg_len ? msg_len - 1 : 0), ce.msg);
    return rc;
}

/* Tries one password login method; CUBE_OK fills user. CUBE_DECLINED: the
 * user is not the provider's. */
static int try_provider(struct cube_auth *a, const struct auth_provider *p, const char *name,
                        const char *password, char user[CUBE_USER_MAX])
{
    char msg[256] = "", *identity = NULL;
    int rc = provider_check(p, name, password, &identity, msg, sizeof msg);
    if (rc == CUBE_OK && identity)
        rc = auth_provision(a, p->desc.name, identity, user, msg, sizeof msg);
    else if (rc == CUBE_OK)
        rc = CUBE_EINVAL;
    free(identity);
    if (rc != CUBE_OK)
        cube_log(CUBE_LOG_INFO, "auth", "login %s via %s failed: %s", name, p->desc.name,
                 msg[0] ? msg : "refused");
    return rc;
}

/* Checks credentials against the local passwords and then each password
 * login method (or only the one named). CUBE_OK fills user. */
static int authenticate(struct cube_auth *a, const char *provider, const char *name,
                        const char *password, char user[CUBE_USER_MAX])
{
    int rc = CUBE_EPERM;
    int local = !provider || strcmp(provider, "local") == 0;
    if (local && a->local_login && auth_normalise_user(name, user) == 0) {
        int ok = auth_password_check(a, user, password);
        if (ok != 0)
            return ok == 1 ? CUBE_OK : ok;
    }
    for (size_t i = 0; i < a->n_providers; i++) {
        const struct auth_provider *p = &a->providers[i];
        if (p->desc.kind != CUBE_AUTH_PASSWORD || (provider && strcmp(provider, p->desc.name)))
            continue;
        int r = try_provider(a, p, name, password, user);
        /* A 1.5 provider's CUBE_EPERM is final: the user is its own and
         * the password wrong, so no other provider may sign them in. */
        if (r == CUBE_OK || (r == CUBE_EPERM && p->desc.password_check))
            return r;
        if (r != CUBE_DECLINED)
            rc = r;
    }
    return rc == CUBE_DECLINED ? CUBE_EPERM : rc;
}

/* A login that asks for {"token":{"name","expires_in"}} (command-line
 * clients) gets an API token instead of a session. */
static int answer_token_login(cube_req *req, struct cube_auth *a, const char *user,
                              const cJSON *want)
{
    const char *name = field(want, "name");
    const cJSON *ttl = cJSON_GetObjectItemCaseSensitive(want, "expires_in");
    double secs = ttl ? (cJSON_IsNumber(ttl) ? ttl->valuedouble : -1) : 30 * 86400;
    char secret[80];
    cJSON *tok = NULL;
    if (!name || !*name || strlen(name) > 128 || secs < 60 || secs > (double)a->max_token_s ||
        secs != (double)(int64_t)secs)
        return cube_http_answer_error_field(req, 422, "Invalid", "token: {name: 1 to 128 "
                                            "characters, expires_in: seconds from 60 up to "
                                            "auth.max_token_days}", "token");
    int rc = auth_token_new(a, user, name, (int64_t)secs, &tok, secret, sizeof secret);
    if (rc != CUBE_OK)
        return cube_http_answer_error(req, 503, "Unavailable", "cannot store the token");
    cJSON_AddStringToObject(tok, "token", secret);
    cJSON *doc = cJSON_CreateObject();
    auth_index_describe(a, user, cJSON_AddObjectToObject(doc, "user"));
    cJSON_AddItemToObject(doc, "token", tok);
    cube_http_add_header(req, "Cache-Control", "no-store");
    return answer_json(req, 200, doc);
}

static int login(void *state, cube_req *req)
{
    struct cube_auth *a = AUTH_OF(state);
    cJSON *b = auth_json_body(req, "{username, password}");
    if (!b)
        return CUBE_OK;
    const char *name = field(b, "username"), *pw = field(b, "password");
    const char *provider = field(b, "provider");
    char ukey[96], akey[96], user[CUBE_USER_MAX];
    int rc;
    if (!name || !pw || !*name || !*pw || strlen(name) > 256 || strlen(pw) > 1024) {
        rc = cube_http_answer_error_field(req, 422, "Invalid", "username and password: "
                                          "required, non-empty strings", name ? "password"
                                                                              : "username");
        goto done;
    }
    snprintf(ukey, sizeof ukey, "user:%.80s", name);
    snprintf(akey, sizeof akey, "addr:%s", cube_req_client(req));
    if (throttled(req, a, ukey, akey)) {
        rc = CUBE_OK;
        goto done;
    }
    int got = authenticate(a, provider, name, pw, user);
    int admin, disabled;
    if (got == CUBE_OK && auth_index_get_user(a, user, &admin, &disabled) == 0 && !disabled) {
        cube_throttle_clear(a->throttle, ukey);
        const cJSON *want = cJSON_GetObjectItemCaseSensitive(b, "token");
        rc = want ? answer_token_login(req, a, user, want) : auth_answer_login(req, user, NULL);
        goto done;
    }
    cube_throttle_fail(a->throttle, ukey, now_ms());
    cube_throttle_fail(a->throttle, akey, now_ms());
    /* A disabled user with the right password gets the answer of a wrong
     * one (same status and body, the same scrypt work behind it): the
     * answer must not tell that the password was right. */
    if (got == CUBE_EUNAVAIL)
        rc = cube_http_answer_error(req, 503, "Unavailable", "the sign-in service is unreachable");
    else
        rc = cube_http_answer_error(req, 401, "Unauthorized", GENERIC_FAILURE);
done:
    cJSON_Delete(b);
    return rc;
}

static int logout(void *state, cube_req *req)
{
    struct cube_auth *a = AUTH_OF(state);
    const struct cube_principal *p = cube_auth_who(req);
    if (p->via == CUBE_VIA_SESSION)
        auth_session_end(a, p);
    cube_http_add_header(req, "Set-Cookie", "cube_session=; Path=/; HttpOnly; SameSite=Lax; "
                         "Max-Age=0");
    return cube_http_answer_json(req, 200, "{\"status\":\"signed out\"}");
}

static const char *const VIA[] = {"none", "admin-token", "token", "session", "header", "app"};

static int me(void *state, cube_req *req)
{
    struct cube_auth *a = AUTH_OF(state);
    const struct cube_principal *p = cube_auth_who(req);
    char body[32768];   /* 256 memberships at most, ~100 bytes each */
    int n = auth_index_me(a, p->user, p->admin, body, sizeof body - 300);
    if (n < 0)
        return cube_http_answer_error(req, 503, "Unavailable", "too many memberships to list");
    /* The project new users join (auth.default_project, a DNS label or
     * ""): clients such as cubectl act in it when none is chosen. A console
     * signed in by a redirect (SSO) learns its CSRF token here; other
     * origins cannot read this answer. */
    n += snprintf(body + n, sizeof body - (size_t)n,
                  ",\"defaultProject\":\"%s\",\"via\":\"%s\"%s%s%s}", a->default_project,
                  VIA[p->via],
                  p->via == CUBE_VIA_SESSION ? ",\"csrf\":\"" : "",
                  p->via == CUBE_VIA_SESSION ? req->csrf : "",
                  p->via == CUBE_VIA_SESSION ? "\"" : "");
    return cube_http_answer(req, 200, "application/json", body, (size_t)n, 0);
}

static int providers(void *state, cube_req *req)
{
    struct cube_auth *a = AUTH_OF(state);
    cJSON *doc = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(doc, "providers");
    if (a->local_login) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", "local");
        cJSON_AddStringToObject(o, "displayName", "User name and password");
        cJSON_AddStringToObject(o, "kind", "password");
        cJSON_AddItemToArray(list, o);
    }
    for (size_t i = 0; i < a->n_providers; i++) {
        const struct cube_auth_desc *d = &a->providers[i].desc;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", d->name);
        cJSON_AddStringToObject(o, "displayName", d->display_name ? d->display_name : d->name);
        cJSON_AddStringToObject(o, "kind", d->kind == CUBE_AUTH_PASSWORD ? "password"
                                                                         : "redirect");
        if (d->kind == CUBE_AUTH_REDIRECT)
            cJSON_AddStringToObject(o, "loginPath", d->login_path);
        cJSON_AddItemToArray(list, o);
    }
    cJSON_AddBoolToObject(doc, "trustedHeader", a->trusted_header[0] != '\0');
    return answer_json(req, 200, doc);
}

int auth_routes_register(struct cube_auth *a)
{
    const struct cube_route_desc routes[] = {
        {sizeof routes[0], "POST", "/api/v1/auth/login", CUBE_PERM_PUBLIC, login,
         "Sign in {username, password[, provider][, token:{name, expires_in}]}: a session "
         "cookie and CSRF token, or (with token) an API token", 0, 0, NULL},
        {sizeof routes[0], "POST", "/api/v1/auth/logout", CUBE_PERM_USER, logout,
         "End the session", 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/auth/me", CUBE_PERM_USER, me,
         "The caller: user, platform role, projects and roles", 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/auth/providers", CUBE_PERM_PUBLIC, providers,
         "Login methods for the console's sign-in page", 0, 0, NULL},
    };
    if (cube_ctx_add_core_routes(a->ctx, routes, sizeof routes / sizeof routes[0], "auth") < 0)
        return -1;
    return auth_token_routes_register(a);
}
