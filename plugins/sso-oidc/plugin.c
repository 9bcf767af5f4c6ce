/* plugin.c — the sso-oidc plugin: OpenID Connect sign-in for Cube. Reads
 * the config, discovers the provider and loads its keys at init (failing
 * start-up when it cannot), then registers a CUBE_AUTH_REDIRECT login
 * method with its login and callback routes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "oidc.h"
#include "config_schema.h"   /* OIDC_CONFIG_SCHEMA: config.schema.json, embedded at build time */

/* Releases everything o holds (after a failed init, or from fini). */
static void destroy(struct oidc *o)
{
    oidc_flow_fini(&o->flow);
    oidc_jwks_free(&o->jwks);
    pthread_mutex_destroy(&o->keys_mu);
    free(o->authorization_endpoint);
    free(o->token_endpoint);
    free(o->jwks_uri);
    oidc_config_free(&o->cfg);
    free(o);
}

/* Registers the two routes and the login method; 0, or -1 with err. */
static int register_all(struct oidc *o, char *err, size_t errlen)
{
    const struct cube_route_desc routes[] = {
        {.size = sizeof routes[0], .method = "GET", .path = o->login_path,
         .permission = CUBE_PERM_PUBLIC, .handler = oidc_route_login,
         .summary = "Starts an OpenID Connect sign-in (?next=<console path>)"},
        {.size = sizeof routes[0], .method = "GET", .path = o->callback_path,
         .permission = CUBE_PERM_PUBLIC, .handler = oidc_route_callback,
         .summary = "OpenID Connect redirect target: finishes the sign-in"},
    };
    const struct cube_auth_desc auth = {
        .size = sizeof auth, .name = o->cfg.name, .display_name = o->cfg.display_name,
        .kind = CUBE_AUTH_REDIRECT, .login_path = o->login_path,
    };
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (o->host->register_route(o->self, &routes[i]) != CUBE_OK) {
            snprintf(err, errlen, "name: cannot register route %s (see above)", routes[i].path);
            return -1;
        }
    int rc = o->host->register_auth_provider(o->self, &auth);
    if (rc != CUBE_OK) {
        snprintf(err, errlen, "name: cannot register login method \"%s\"%s", o->cfg.name,
                 rc == CUBE_EEXIST ? ": the name is taken" : " (see above)");
        return -1;
    }
    return 0;
}

/* Derives the route paths and the cookie's name and path from the name. */
static void name_paths(struct oidc *o)
{
    const char *n = o->cfg.name;
    snprintf(o->login_path, sizeof o->login_path, "/api/v1/auth/%s/login", n);
    snprintf(o->callback_path, sizeof o->callback_path, "/api/v1/auth/%s/callback", n);
    snprintf(o->cookie_path, sizeof o->cookie_path, "/api/v1/auth/%s/", n);
    snprintf(o->cookie_name, sizeof o->cookie_name, "cube_oidc_%s", n);
}

/* Loads the config and prepares o up to the network steps; 0 or -1 + err. */
static int prepare(struct oidc *o, char *err, size_t errlen)
{
    char *json = o->host->config_json(o->self);
    int rc = json ? oidc_config_load(json, &o->cfg, err, errlen) : -1;
    if (!json)
        snprintf(err, errlen, "out of memory");
    o->host->free(json);
    if (rc < 0)
        return -1;
    name_paths(o);
    o->http.host = o->host;
    o->http.self = o->self;
    o->http.timeout_s = o->cfg.timeout_s;
    o->http.ca_file = o->cfg.ca_file;
    if (oidc_flow_init(&o->flow, (size_t)o->cfg.pending_max, o->cfg.pending_ttl_s) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* Plugin init: config, discovery, keys, routes and the login method; on
 * failure set_error names the setting and nothing stays registered. */
static int oidc_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    char err[OIDC_ERR_LEN + 64], why[OIDC_ERR_LEN];
    struct oidc *o = calloc(1, sizeof *o);
    if (!o) {
        free(o);
        host->set_error(self, "out of memory");
        return CUBE_ENOMEM;
    }
    o->host = host;
    o->self = self;
    pthread_mutex_init(&o->keys_mu, NULL);
    int rc = CUBE_EINVAL;
    if (prepare(o, err, sizeof err) < 0)
        goto fail;
    rc = CUBE_EIO;
    if (oidc_discover(o, err, sizeof err) < 0)
        goto fail;
    if (oidc_jwks_refresh(o, why, sizeof why) < 0) {
        snprintf(err, sizeof err, "issuer: %s", why);
        goto fail;
    }
    rc = CUBE_EINVAL;
    if (register_all(o, err, sizeof err) < 0)
        goto fail;
    host->log(self, CUBE_LOG_INFO, "login method \"%s\": issuer %s, client %s, start at %s",
              o->cfg.name, o->cfg.issuer, o->cfg.client_id, o->login_path);
    *state = o;
    return CUBE_OK;
fail:
    host->set_error(self, "%s", err);
    destroy(o);
    return rc;
}

/* Plugin fini: releases the state (pending logins, keys, config). */
static void oidc_fini(void *state)
{
    destroy(state);
}

CUBE_PLUGIN_DEFINE(sso_oidc,
    .name = "sso-oidc",
    .version = "1.0.0",
    .vendor = "Cube",
    .license = "Apache-2.0",
    .description = "Sign-in with an OpenID Connect provider (code flow, PKCE, RS256/ES256)",
    .config_schema = OIDC_CONFIG_SCHEMA,
    .init = oidc_init,
    .fini = oidc_fini)
