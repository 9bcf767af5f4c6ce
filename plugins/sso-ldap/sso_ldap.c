/* sso_ldap.c — the sso-ldap plugin: a CUBE_AUTH_PASSWORD login method named
 * "ldap" that checks names and passwords against an LDAP directory (search
 * the user's entry, bind as it) and maps directory groups to the platform
 * role and project roles. Configuration: sso-ldap.yaml.example. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/cube.h>
#include <ldap.h>

#include "filter.h"
#include "sso_ldap.h"
#include "config_schema.h"   /* SSO_LDAP_CONFIG_SCHEMA: config.schema.json, embedded at build time */

/* Longest password passed on to the directory. */
#define PASSWORD_MAX 4096

/* Counts a login outcome in cube_sso_ldap_logins_total{result}. */
static void count(struct ssoldap *s, int rc)
{
    const char *r = rc == CUBE_OK ? "ok" : rc == CUBE_EPERM ? "denied"
                  : rc == CUBE_DECLINED ? "unknown"
                  : rc == CUBE_EUNAVAIL ? "unavailable" : "error";
    if (s->logins)
        s->host->metric_add(s->logins, (const char *const[]){r}, 1);
}

/* Checks what can be checked before any network traffic. */
static int precheck(const char *username, const char *password, char *msg, size_t len)
{
    if (!ssoldap_username_ok(username)) {
        snprintf(msg, len, "user name refused before any look-up: empty, over %d bytes, "
                 "control characters or not UTF-8", SSOLDAP_USERNAME_MAX);
        return CUBE_DECLINED;
    }
    if (!password || !*password) {
        snprintf(msg, len, "user \"%s\": empty password refused (LDAP takes a bind without "
                 "a password as unauthenticated)", username);
        return CUBE_EPERM;
    }
    if (strnlen(password, PASSWORD_MAX + 1) > PASSWORD_MAX) {
        snprintf(msg, len, "user \"%s\": password over %d bytes refused", username,
                 PASSWORD_MAX);
        return CUBE_EPERM;
    }
    return CUBE_OK;
}

/* The check both descriptor slots share: CUBE_DECLINED for a user the
 * directory does not have; *identity_json is malloc()ed. */
static int ldap_check(struct ssoldap *s, const char *username, const char *password,
                      char **identity_json, char *msg, size_t msg_len)
{
    struct ssoldap_user u;
    msg[0] = '\0';
    *identity_json = NULL;
    int rc = precheck(username, password, msg, msg_len);
    if (rc == CUBE_OK)
        rc = ssoldap_authenticate(&s->conf, username, password, &u, msg, msg_len);
    if (rc == CUBE_OK) {
        *identity_json = ssoldap_identity(&s->conf, &u, username);
        if (!*identity_json) {
            snprintf(msg, msg_len, "out of memory");
            rc = CUBE_ENOMEM;
        } else if (s->host->log_enabled(s->self, CUBE_LOG_DEBUG)) {
            s->host->log(s->self, CUBE_LOG_DEBUG, "user \"%s\" (%s): %zu group(s)",
                         username, u.dn, u.n_groups);
        }
        ssoldap_user_free(&u);
    }
    count(s, rc);
    return rc;
}

/* cube_auth_desc.password_check (ABI 1.5): see cube_auth.h. The identity
 * moves into the host's allocator; the reason goes through set_error. */
static int ldap_password_check(void *state, const char *username, const char *password,
                               char **identity_json)
{
    struct ssoldap *s = state;
    char msg[256], *id = NULL;
    int rc = ldap_check(s, username, password, &id, msg, sizeof msg);
    *identity_json = NULL;
    if (rc == CUBE_OK) {
        size_t n = strlen(id) + 1;
        if ((*identity_json = s->host->alloc(n)))
            memcpy(*identity_json, id, n);
        else
            rc = CUBE_ENOMEM, snprintf(msg, sizeof msg, "out of memory");
    }
    free(id);
    if (rc != CUBE_OK && msg[0])
        s->host->set_error(s->self, "%s", msg);
    return rc;
}

/* cube_auth_desc.password_login, for hosts older than 1.5: an unknown user
 * is refused like a wrong password. */
static int ldap_password_login(void *state, const char *username, const char *password,
                               char **identity_json, char *msg, size_t msg_len)
{
    char scratch[256];
    if (!msg || msg_len == 0) {
        msg = scratch;
        msg_len = sizeof scratch;
    }
    int rc = ldap_check(state, username, password, identity_json, msg, msg_len);
    return rc == CUBE_DECLINED ? CUBE_EPERM : rc;
}

/* Registers the login method and the login counter. */
static int register_all(struct ssoldap *s)
{
    static const char *const labels[] = {"result"};
    const struct cube_metric_desc m = {
        .size = sizeof m, .type = CUBE_METRIC_COUNTER,
        .name = "cube_sso_ldap_logins_total",
        .help = "LDAP logins by result (ok, denied, unknown, unavailable, error)",
        .label_names = labels, .label_count = 1,
    };
    s->logins = s->host->metric_register(s->self, &m);
    const struct cube_auth_desc d = {
        .size = sizeof d, .name = "ldap", .display_name = s->conf.display_name,
        .kind = CUBE_AUTH_PASSWORD, .password_login = ldap_password_login,
        .password_check = ldap_password_check,
    };
    int rc = s->host->register_auth_provider(s->self, &d);
    if (rc != CUBE_OK)
        s->host->set_error(s->self, "sso-ldap: cannot register the login method \"ldap\" "
                           "(%d; see the log)", rc);
    return rc;
}

/* Logs where logins go (never a password) and warns about clear text. */
static void log_setup(const struct ssoldap *s)
{
    const struct ssoldap_conf *c = &s->conf;
    s->host->log(s->self, CUBE_LOG_INFO, "login method \"ldap\": %s%s, users under %s%s%s",
                 c->url, c->starttls ? " with StartTLS" : "", c->base_dn,
                 c->bind_dn ? ", searching as " : "", c->bind_dn ? c->bind_dn : "");
    if (!c->ldaps && !c->starttls)
        s->host->log(s->self, CUBE_LOG_WARN, "allow_insecure: passwords cross the network "
                     "in clear text to %s", c->url);
}

/* Plugin init: loads the config, registers the login method. */
static int sso_ldap_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    char err[512];
    struct ssoldap *s = calloc(1, sizeof *s);
    if (!s) {
        host->set_error(self, "sso-ldap: out of memory");
        return CUBE_ENOMEM;
    }
    s->host = host;
    s->self = self;
    char *json = host->config_json(self);
    int rc = ssoldap_conf_load(json, &s->conf, err, sizeof err);
    if (json)
        explicit_bzero(json, strlen(json)); /* it may hold bind_password */
    host->free(json);
    if (rc != CUBE_OK) {
        host->set_error(self, "%s", err);
        goto fail;
    }
    int v;
    ldap_get_option(NULL, LDAP_OPT_PROTOCOL_VERSION, &v); /* libldap's global init, once */
    *state = s;
    if ((rc = register_all(s)) != CUBE_OK)
        goto fail;
    log_setup(s);
    return CUBE_OK;
fail:
    *state = NULL;
    ssoldap_conf_free(&s->conf);
    free(s);
    return rc;
}

/* Plugin fini: releases the config (wiping the bind password). */
static void sso_ldap_fini(void *state)
{
    struct ssoldap *s = state;
    ssoldap_conf_free(&s->conf);
    free(s);
}

CUBE_PLUGIN_DEFINE(sso_ldap,
    .name = "sso-ldap",
    .version = "1.0.0",
    .vendor = "Cube",
    .license = "Apache-2.0",
    .description = "Sign in with an LDAP directory (search + bind), groups to roles",
    .config_schema = SSO_LDAP_CONFIG_SCHEMA,
    .init = sso_ldap_init,
    .fini = sso_ldap_fini)
