/* host_auth.c — the ABI 1.2 host slots: login methods from plugins
 * (register_auth_provider, auth_complete), the request's user and project
 * role, and tokens for work Cube runs on a user's behalf. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth_priv.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "base/log.h"
#include "base/names.h"

/* Validates a copied descriptor; NULL when fine, else what is wrong. */
static const char *provider_problem(struct cube_auth *a, const struct cube_auth_desc *d)
{
    char why[128];
    if (!d->name || cube_name_check(d->name, why, sizeof why) < 0)
        return "name: must be a DNS label";
    if (strcmp(d->name, "local") == 0 || strcmp(d->name, "header") == 0)
        return "name: \"local\" and \"header\" are the core's";
    for (size_t i = 0; i < a->n_providers; i++)
        if (strcmp(a->providers[i].desc.name, d->name) == 0)
            return "name: already registered";
    if (d->kind == CUBE_AUTH_PASSWORD)
        return d->password_login || d->password_check ? NULL
               : "password_check (or password_login): required for CUBE_AUTH_PASSWORD";
    if (d->kind == CUBE_AUTH_REDIRECT)
        return d->login_path && d->login_path[0] == '/' ? NULL
               : "login_path: required for CUBE_AUTH_REDIRECT, a path starting with /";
    return "kind: must be CUBE_AUTH_PASSWORD or CUBE_AUTH_REDIRECT";
}

int cube_slot_register_auth_provider(cube_plugin *self, const struct cube_auth_desc *in)
{
    struct cube_auth *a = self->ctx->auth;
    struct cube_auth_desc d = {0};
    size_t min = offsetof(struct cube_auth_desc, login_path) + sizeof d.login_path;
    if (!self->in_init)
        return CUBE_ESTATE;
    if (!in || in->size < min) {
        cube_log(CUBE_LOG_ERROR, self->log_component, "register_auth_provider: descriptor "
                 "size %zu is smaller than ABI 1.2's %zu", in ? in->size : 0, min);
        return CUBE_EINVAL;
    }
    memcpy(&d, in, in->size < sizeof d ? in->size : sizeof d);
    const char *bad = provider_problem(a, &d);
    if (bad) {
        cube_log(CUBE_LOG_ERROR, self->log_component, "register_auth_provider: %s", bad);
        return strstr(bad, "already") ? CUBE_EEXIST : CUBE_EINVAL;
    }
    struct auth_provider *grown = realloc(a->providers, (a->n_providers + 1) * sizeof *grown);
    if (!grown)
        return CUBE_ENOMEM;
    a->providers = grown;
    struct auth_provider *p = &a->providers[a->n_providers];
    p->desc = d;
    p->plugin = self;
    p->desc.name = strdup(d.name);
    p->desc.display_name = d.display_name ? strdup(d.display_name) : NULL;
    p->desc.login_path = d.login_path ? strdup(d.login_path) : NULL;
    a->n_providers++;
    return CUBE_OK;
}

void cube_auth_drop_plugin(struct cube_ctx *ctx, struct cube_plugin *plugin)
{
    struct cube_auth *a = ctx->auth;
    size_t kept = 0;
    for (size_t i = 0; a && i < a->n_providers; i++) {
        struct auth_provider *p = &a->providers[i];
        if (p->plugin != plugin) {
            a->providers[kept++] = *p;
            continue;
        }
        free((char *)p->desc.name);
        free((char *)p->desc.display_name);
        free((char *)p->desc.login_path);
    }
    if (a)
        a->n_providers = kept;
}

/* A same-origin path for redirects ("/..." but not "//..."), else "/". */
static const char *safe_next(const char *next)
{
    if (!next || next[0] != '/' || next[1] == '/' || next[1] == '\\' ||
        strpbrk(next, "\r\n") || strlen(next) > 1024)
        return "/";
    return next;
}

int cube_slot_auth_complete(cube_req *req, const char *provider, const char *identity,
                            const char *next)
{
    struct cube_auth *a = req->ctx->auth;
    char user[CUBE_USER_MAX], msg[256];
    int known = 0;
    for (size_t i = 0; provider && i < a->n_providers; i++)
        known |= strcmp(a->providers[i].desc.name, provider) == 0;
    if (!known || !identity)
        return CUBE_EINVAL;
    int rc = auth_provision(a, provider, identity, user, msg, sizeof msg);
    if (rc == CUBE_EPERM)
        return cube_http_answer_error(req, 403, "Forbidden", msg), CUBE_OK;
    if (rc != CUBE_OK) {
        cube_log(CUBE_LOG_WARN, "auth", "login via %s refused: %s", provider, msg);
        cube_http_answer_error(req, rc == CUBE_EUNAVAIL ? 503 : 401,
                               rc == CUBE_EUNAVAIL ? "Unavailable" : "Unauthorized", msg);
        return CUBE_OK;
    }
    auth_answer_login(req, user, safe_next(next));
    return CUBE_OK;
}

const char *cube_slot_req_user(cube_req *req)
{
    const struct cube_principal *p = cube_auth_who(req);
    return p->via ? p->user : NULL;
}

const char *cube_slot_req_project_role(cube_req *req, const char *project)
{
    return cube_role_name(cube_auth_role(req, project));
}

char *cube_slot_token_issue(cube_plugin *self, const char *user, unsigned ttl,
                            const char *purpose, int *rc)
{
    struct cube_auth *a = self->ctx->auth;
    int admin, disabled;
    char secret[80];
    cJSON *out = NULL;
    *rc = CUBE_EINVAL;
    if (!user || ttl == 0 || ttl > 604800)
        return NULL;
    if (auth_index_get_user(a, user, &admin, &disabled) < 0) {
        *rc = CUBE_ENOTFOUND;
        return NULL;
    }
    if (disabled) {
        *rc = CUBE_EPERM;
        return NULL;
    }
    char name[160];
    snprintf(name, sizeof name, "%s: %.120s", self->name, purpose ? purpose : "job");
    *rc = auth_plugin_token_new(a, user, name, self->name, ttl, &out, secret, sizeof secret);
    cJSON_Delete(out);
    return *rc == CUBE_OK ? strdup(secret) : NULL;
}
