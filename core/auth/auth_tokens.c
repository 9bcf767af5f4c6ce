/* auth_tokens.c — API tokens and passwords over HTTP:
 *   POST/GET /api/v1/auth/tokens, DELETE /api/v1/auth/tokens/{id}
 *   POST /api/v1/auth/password             change one's own password
 *   POST /api/v1/users/{name}/password     an administrator sets one */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth_password.h"
#include "auth_priv.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "base/log.h"

#define DEFAULT_TOKEN_TTL (30 * 86400)

static int answer_doc(cube_req *req, int status, cJSON *doc)
{
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    if (!text)
        return cube_http_answer_error(req, 503, "Unavailable", "out of memory");
    cube_http_add_header(req, "Cache-Control", "no-store");
    int rc = cube_http_answer(req, status, "application/json", text, strlen(text), 0);
    free(text);
    return rc;
}

static cJSON *body_object(cube_req *req)
{
    return auth_json_body(req, "");
}

static int store_error(cube_req *req, int rc)
{
    return cube_http_answer_error(req, 503, "Unavailable", rc == CUBE_EUNAVAIL
                                  ? "the database is unavailable" : "cannot store the change");
}

static int create_token(void *state, cube_req *req)
{
    struct cube_auth *a = AUTH_OF(state);
    cJSON *b = body_object(req), *out = NULL;
    if (!b)
        return CUBE_OK;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(b, "name");
    const cJSON *ttl = cJSON_GetObjectItemCaseSensitive(b, "expires_in");
    double secs = ttl ? (cJSON_IsNumber(ttl) ? ttl->valuedouble : -1) : DEFAULT_TOKEN_TTL;
    char secret[80];
    int rc;
    if (!cJSON_IsString(name) || !*name->valuestring || strlen(name->valuestring) > 128)
        rc = cube_http_answer_error_field(req, 422, "Invalid",
                                          "name: required, 1 to 128 characters", "name");
    else if (secs < 60 || secs > (double)a->max_token_s || secs != floor(secs))
        rc = cube_http_answer_error_field(req, 422, "Invalid", "expires_in: seconds, from 60 "
                                          "up to auth.max_token_days", "expires_in");
    else if ((rc = auth_token_new(a, cube_auth_who(req)->user, name->valuestring,
                                  (int64_t)secs, &out, secret, sizeof secret)) != CUBE_OK)
        rc = store_error(req, rc);
    else {
        cJSON_AddStringToObject(out, "token", secret);
        rc = answer_doc(req, 201, out);
    }
    cJSON_Delete(b);
    return rc;
}

/* GET /api/v1/auth/tokens: the caller's own tokens only. ?job=<uid> or
 * ?job=<project>/<name>: the tokens of that Job of the caller's (its
 * CUBE_TOKEN); ?plugin=<name>: those a plugin issued for the caller's
 * work (a notebook's, a pipeline task's). */
static int list_tokens(void *state, cube_req *req)
{
    const char *job = cube_req_query(req, "job"), *plugin = cube_req_query(req, "plugin");
    struct auth_token_for only = {0};
    char proj[64];  /* a project name: a DNS label of at most 63 */
    if (job && plugin)
        return cube_http_answer_error_field(req, 400, "BadRequest",
                                            "job and plugin: give one of them", "plugin");
    if ((job && !*job) || (plugin && !*plugin))
        return cube_http_answer_error_field(req, 400, "BadRequest",
                                            job ? "job: a Job's uid or <project>/<name>"
                                                : "plugin: a plugin's name", job ? "job" : "plugin");
    const char *slash = job ? strchr(job, '/') : NULL;
    if (slash && (size_t)(slash - job) < sizeof proj) {
        snprintf(proj, sizeof proj, "%.*s", (int)(slash - job), job);
        only.project = proj, only.job_name = slash + 1;
    } else if (slash)
        return cube_http_answer_error_field(req, 400, "BadRequest",
                                            "job: a Job's uid or <project>/<name>", "job");
    else
        only.job_uid = job;
    only.plugin = plugin;
    cJSON *items = auth_token_list(AUTH_OF(state), cube_auth_who(req)->user,
                                   job || plugin ? &only : NULL);
    if (!items)
        return store_error(req, CUBE_EUNAVAIL);
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "kind", "TokenList");
    cJSON_AddItemToObject(doc, "items", items);
    return answer_doc(req, 200, doc);
}

static int revoke_token(void *state, cube_req *req)
{
    int rc = auth_token_revoke(AUTH_OF(state), cube_auth_who(req)->user,
                               cube_route_match_param(&req->match, "id"));
    if (rc == CUBE_ENOTFOUND)
        return cube_http_answer_error(req, 404, "NotFound", "no such token");
    if (rc != CUBE_OK)
        return store_error(req, rc);
    return cube_http_answer_json(req, 200, "{\"status\":\"revoked\"}");
}

/* Checks and stores a new password for user; answers on failure. */
static int set_password(cube_req *req, struct cube_auth *a, const char *user, const char *pw)
{
    const char *why = pw ? cube_password_policy(pw) : "password: required, a string";
    if (why)
        return cube_http_answer_error_field(req, 422, "Invalid", why, "password");
    int rc = auth_password_set(a, user, pw);
    if (rc != CUBE_OK)
        return store_error(req, rc);
    cube_log(CUBE_LOG_INFO, "auth", "password of %s changed by %s", user,
             cube_auth_who(req)->user);
    return cube_http_answer_json(req, 200, "{\"status\":\"changed\"}");
}

static int change_own(void *state, cube_req *req)
{
    struct cube_auth *a = AUTH_OF(state);
    cJSON *b = body_object(req);
    if (!b)
        return CUBE_OK;
    const char *user = cube_auth_who(req)->user;
    const char *cur = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "current"));
    const char *pw = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "password"));
    int rc;
    if (!cur || auth_password_check(a, user, cur) != 1)
        rc = cube_http_answer_error_field(req, 403, "Forbidden",
                                          "current: the current password is wrong", "current");
    else
        rc = set_password(req, a, user, pw);
    cJSON_Delete(b);
    return rc;
}

/* {password, revokeTokens = true}: the new password; the user's sessions
 * end, and (unless revokeTokens is false) their API tokens are revoked. */
static int admin_reset(void *state, cube_req *req)
{
    struct cube_auth *a = AUTH_OF(state);
    const char *user = cube_route_match_param(&req->match, "name");
    int admin, disabled, rc;
    if (auth_index_get_user(a, user, &admin, &disabled) < 0)
        return cube_http_answer_error(req, 404, "NotFound", "no such user");
    cJSON *b = body_object(req);
    if (!b)
        return CUBE_OK;
    const cJSON *revoke = cJSON_GetObjectItemCaseSensitive(b, "revokeTokens");
    if (revoke && !cJSON_IsBool(revoke))
        rc = cube_http_answer_error_field(req, 422, "Invalid",
                                          "revokeTokens: must be true or false", "revokeTokens");
    else
        rc = set_password(req, a, user, cJSON_GetStringValue(
                              cJSON_GetObjectItemCaseSensitive(b, "password")));
    if (req->status == 200)
        auth_cred_forget_user(a, user, revoke && cJSON_IsFalse(revoke) ? 0 : AUTH_FORGET_TOKENS);
    cJSON_Delete(b);
    return rc;
}

/* {password}: 200 {"ok": true} when it meets the password policy, else
 * the 422 that setting it would answer, naming the field "password". For
 * forms that check a password before they create what it belongs to;
 * nothing is stored and nothing is logged. */
static int check_password(void *state, cube_req *req)
{
    (void)state;
    cJSON *b = body_object(req);
    if (!b)
        return CUBE_OK;
    const char *pw = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "password"));
    const char *why = pw ? cube_password_policy(pw) : "password: required, a string";
    int rc = why ? cube_http_answer_error_field(req, 422, "Invalid", why, "password")
                 : cube_http_answer_json(req, 200, "{\"ok\":true}");
    cJSON_Delete(b);
    return rc;
}

int auth_token_routes_register(struct cube_auth *a)
{
    const struct cube_route_desc routes[] = {
        {sizeof routes[0], "POST", "/api/v1/auth/tokens", CUBE_PERM_USER, create_token,
         "Create an API token {name, expires_in}; the token is shown once", 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/auth/tokens", CUBE_PERM_USER, list_tokens,
         "The caller's own API tokens (without secrets); ?job= a Job's, ?plugin= a plugin's", 0, 0, NULL},
        {sizeof routes[0], "DELETE", "/api/v1/auth/tokens/{id}", CUBE_PERM_USER, revoke_token,
         "Revoke one of the caller's tokens", 0, 0, NULL},
        {sizeof routes[0], "POST", "/api/v1/auth/password", CUBE_PERM_USER, change_own,
         "Change one's own password {current, password}", 0, 0, NULL},
        {sizeof routes[0], "POST", "/api/v1/users/{name}/password", CUBE_PERM_ADMIN,
         admin_reset, "Set a user's password {password[, revokeTokens]}: their sessions end "
         "and their API tokens are revoked (unless revokeTokens is false)", 0, 0, NULL},
        {sizeof routes[0], "POST", "/api/v1/auth/password/check", CUBE_PERM_USER,
         check_password, "Check a password {password} against the policy without setting it",
         0, 0, NULL},
    };
    return cube_ctx_add_core_routes(a->ctx, routes, sizeof routes / sizeof routes[0], "token");
}
