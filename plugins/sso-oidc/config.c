/* config.c — the plugin's settings: the JSON Schema the host validates the
 * `config:` section with, and reading the validated section into struct
 * oidc_config (with the same defaults, so the fake host needs none). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "oidc.h"

/* A copy of the string setting `key`, or of def (NULL stays NULL). */
static char *str_setting(const cJSON *doc, const char *key, const char *def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
    const char *s = cJSON_IsString(v) ? v->valuestring : def;
    return s ? strdup(s) : NULL;
}

/* The integer setting `key`, or def. */
static long int_setting(const cJSON *doc, const char *key, long def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
    return cJSON_IsNumber(v) ? (long)v->valuedouble : def;
}

/* Reads the client secret from client_secret or client_secret_env. */
static int load_secret(const cJSON *doc, struct oidc_config *c, char *err, size_t errlen)
{
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(doc, "client_secret_env");
    c->client_secret = str_setting(doc, "client_secret", NULL);
    if (cJSON_IsString(env)) {
        const char *v = getenv(env->valuestring);
        if (c->client_secret) {
            snprintf(err, errlen, "client_secret_env: set client_secret or client_secret_env, not both");
            return -1;
        }
        if (!v || !*v) {
            snprintf(err, errlen, "client_secret_env: environment variable %.64s is not set",
                     env->valuestring);
            return -1;
        }
        c->client_secret = strdup(v);
    }
    if (c->auth_method != OIDC_AUTH_NONE && (!c->client_secret || !*c->client_secret)) {
        snprintf(err, errlen, "client_secret: required by token_endpoint_auth_method "
                              "(or set client_secret_env)");
        return -1;
    }
    return 0;
}

/* A copy of a string array setting; -1 on allocation failure. */
static int strv_setting(const cJSON *doc, const char *key, char ***out, size_t *n)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc, key), *v;
    *out = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof **out);
    if (!*out)
        return -1;
    cJSON_ArrayForEach(v, arr)
        if (cJSON_IsString(v) && !((*out)[(*n)++] = strdup(v->valuestring)))
            return -1;
    return 0;
}

/* Reads project_roles; -1 with err. */
static int load_project_roles(const cJSON *doc, struct oidc_config *c, char *err, size_t errlen)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc, "project_roles"), *m;
    c->project_roles = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof *c->project_roles);
    if (!c->project_roles)
        goto oom;
    cJSON_ArrayForEach(m, arr) {
        struct oidc_project_role *r = &c->project_roles[c->n_project_roles];
        r->group = str_setting(m, "group", NULL);
        r->project = str_setting(m, "project", NULL);
        r->role = str_setting(m, "role", NULL);
        c->n_project_roles++;
        if (!r->group || !r->project || !r->role) {
            snprintf(err, errlen, "project_roles[%zu]: needs group, project and role",
                     c->n_project_roles - 1);
            return -1;
        }
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* Reads allowed_algs into a mask; -1 with err when none is usable. */
static int load_algs(const cJSON *doc, struct oidc_config *c, char *err, size_t errlen)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc, "allowed_algs"), *v;
    c->algs = arr ? 0 : OIDC_ALG_RS256 | OIDC_ALG_ES256;
    cJSON_ArrayForEach(v, arr) {
        unsigned a = cJSON_IsString(v) ? oidc_alg_parse(v->valuestring) : 0;
        if (!a) {
            snprintf(err, errlen, "allowed_algs: only RS256 and ES256 are supported");
            return -1;
        }
        c->algs |= a;
    }
    if (!c->algs) {
        snprintf(err, errlen, "allowed_algs: name at least one algorithm");
        return -1;
    }
    return 0;
}

/* Reads the string settings; -1 with err. */
static int load_strings(const cJSON *doc, struct oidc_config *c, char *err, size_t errlen)
{
    c->name = str_setting(doc, "name", "oidc");
    c->display_name = str_setting(doc, "display_name", "Single sign-on");
    c->issuer = str_setting(doc, "issuer", NULL);
    c->client_id = str_setting(doc, "client_id", NULL);
    c->redirect_uri = str_setting(doc, "redirect_uri", NULL);
    c->scopes = str_setting(doc, "scopes", "openid profile email");
    c->ca_file = str_setting(doc, "ca_file", NULL);
    c->username_claim = str_setting(doc, "username_claim", "preferred_username");
    c->roles_claim = str_setting(doc, "roles_claim", "groups");
    c->groups_claim = str_setting(doc, "groups_claim", "groups");
    if (!c->issuer || !*c->issuer || !c->client_id || !*c->client_id) {
        snprintf(err, errlen, "%s: required", c->issuer && *c->issuer ? "client_id" : "issuer");
        return -1;
    }
    if (strlen(c->name) > 40) {
        snprintf(err, errlen, "name: at most 40 characters");
        return -1;
    }
    char padded[530];
    snprintf(padded, sizeof padded, " %s ", c->scopes);
    if (!strstr(padded, " openid ")) {
        snprintf(err, errlen, "scopes: must include \"openid\"");
        return -1;
    }
    return 0;
}

/* The token endpoint authentication method named by the config. */
static int auth_method(const cJSON *doc)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "token_endpoint_auth_method");
    const char *s = cJSON_IsString(v) ? v->valuestring : "client_secret_basic";
    if (strcmp(s, "client_secret_post") == 0)
        return OIDC_AUTH_POST;
    return strcmp(s, "none") == 0 ? OIDC_AUTH_NONE : OIDC_AUTH_BASIC;
}

int oidc_config_load(const char *json, struct oidc_config *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    cJSON *doc = cJSON_Parse(json ? json : "{}");
    if (!cJSON_IsObject(doc)) {
        snprintf(err, errlen, "config: not a JSON object");
        goto fail;
    }
    c->auth_method = auth_method(doc);
    c->skew_s = int_setting(doc, "clock_skew", 60);
    c->timeout_s = int_setting(doc, "http_timeout", 10);
    c->pending_max = int_setting(doc, "max_pending", 10000);
    c->pending_ttl_s = 600;
    c->jwks_refetch_s = 30;
    c->username_fallback_sub = cJSON_IsTrue(
        cJSON_GetObjectItemCaseSensitive(doc, "username_fallback_sub"));
    if (load_strings(doc, c, err, errlen) < 0 || load_secret(doc, c, err, errlen) < 0 ||
        load_algs(doc, c, err, errlen) < 0 || load_project_roles(doc, c, err, errlen) < 0)
        goto fail;
    if (strv_setting(doc, "admin_values", &c->admin_values, &c->n_admin) < 0) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    cJSON_Delete(doc);
    return 0;
fail:
    cJSON_Delete(doc);
    oidc_config_free(c);
    return -1;
}

void oidc_config_free(struct oidc_config *c)
{
    char **strs[] = {&c->name, &c->display_name, &c->issuer, &c->client_id,
                     &c->redirect_uri, &c->scopes, &c->ca_file, &c->username_claim,
                     &c->roles_claim, &c->groups_claim};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        free(*strs[i]);
    if (c->client_secret) /* do not leave the secret in freed memory */
        OPENSSL_cleanse(c->client_secret, strlen(c->client_secret));
    free(c->client_secret);
    for (size_t i = 0; c->admin_values && i < c->n_admin; i++)
        free(c->admin_values[i]);
    free(c->admin_values);
    for (size_t i = 0; i < c->n_project_roles; i++) {
        free(c->project_roles[i].group);
        free(c->project_roles[i].project);
        free(c->project_roles[i].role);
    }
    free(c->project_roles);
    memset(c, 0, sizeof *c);
}
