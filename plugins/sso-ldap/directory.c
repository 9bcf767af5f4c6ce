/* directory.c — one login against the directory, on its own LDAP handle:
 * connect (ldaps:// or StartTLS), optional service bind, find the user's
 * entry, bind as it with the typed password, then list the user's groups.
 * Nothing here logs or copies the password. */
#include "sso_ldap.h"
#include "filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <ldap.h>

/* 1 when an LDAP result code means the directory could not be reached. */
static int unreachable(int lrc)
{
    return lrc == LDAP_SERVER_DOWN || lrc == LDAP_CONNECT_ERROR || lrc == LDAP_TIMEOUT ||
           lrc == LDAP_BUSY || lrc == LDAP_UNAVAILABLE || lrc == LDAP_TIMELIMIT_EXCEEDED;
}

/* Writes "<what>: <error> (<diagnostic>)" into msg; returns CUBE_EUNAVAIL
 * for connection failures and CUBE_EIO for the rest. */
static int dir_error(LDAP *ld, int lrc, const char *what, char *msg, size_t len)
{
    char *diag = NULL;
    if (ld)
        ldap_get_option(ld, LDAP_OPT_DIAGNOSTIC_MESSAGE, &diag);
    snprintf(msg, len, "%s: %s%s%s%s", what, ldap_err2string(lrc),
             diag && *diag ? " (" : "", diag && *diag ? diag : "", diag && *diag ? ")" : "");
    ldap_memfree(diag);
    return unreachable(lrc) ? CUBE_EUNAVAIL : CUBE_EIO;
}

/* Sets the handle's TLS options (verify the server against tls_ca_file or
 * the system CAs, TLS 1.2 or later) and builds its own TLS context. */
static int set_tls(const struct ssoldap_conf *c, LDAP *ld, char *msg, size_t len)
{
    int demand = LDAP_OPT_X_TLS_DEMAND, min = LDAP_OPT_X_TLS_PROTOCOL_TLS1_2, server = 0;
    int lrc = ldap_set_option(ld, LDAP_OPT_X_TLS_REQUIRE_CERT, &demand);
    if (lrc == LDAP_OPT_SUCCESS)
        lrc = ldap_set_option(ld, LDAP_OPT_X_TLS_PROTOCOL_MIN, &min);
    if (lrc == LDAP_OPT_SUCCESS && c->tls_ca_file)
        lrc = ldap_set_option(ld, LDAP_OPT_X_TLS_CACERTFILE, c->tls_ca_file);
    if (lrc == LDAP_OPT_SUCCESS)
        lrc = ldap_set_option(ld, LDAP_OPT_X_TLS_NEWCTX, &server);
    if (lrc != LDAP_OPT_SUCCESS) {
        snprintf(msg, len, "tls_ca_file: cannot set up TLS with %s: %s",
                 c->tls_ca_file ? c->tls_ca_file : "the system CAs", ldap_err2string(lrc));
        return CUBE_EIO;
    }
    return CUBE_OK;
}

/* One login's connection: the handle and what its callbacks use. */
struct session {
    LDAP *ld;
    struct ldap_conncb cb;
    int timeout_ms;
};

/* Opens a handle to c->url with timeouts and TLS; does StartTLS when
 * configured (failure, including a certificate that does not verify, is
 * CUBE_EUNAVAIL: no password is sent). */
static int dir_open(const struct ssoldap_conf *c, struct session *s, char *msg, size_t len)
{
    LDAP *ld = NULL;
    int lrc = ldap_initialize(&ld, c->url);
    if (lrc != LDAP_SUCCESS)
        return dir_error(NULL, lrc, "url", msg, len);
    int v3 = LDAP_VERSION3, limit = c->timeout_s, rc = CUBE_OK;
    struct timeval tv = {.tv_sec = c->timeout_s};
    s->timeout_ms = c->timeout_s * 1000;
    ssoldap_io_callbacks(&s->cb, &s->timeout_ms);
    if (ldap_set_option(ld, LDAP_OPT_PROTOCOL_VERSION, &v3) != LDAP_OPT_SUCCESS ||
        ldap_set_option(ld, LDAP_OPT_CONNECT_CB, &s->cb) != LDAP_OPT_SUCCESS ||
        ldap_set_option(ld, LDAP_OPT_REFERRALS, LDAP_OPT_OFF) != LDAP_OPT_SUCCESS ||
        ldap_set_option(ld, LDAP_OPT_NETWORK_TIMEOUT, &tv) != LDAP_OPT_SUCCESS ||
        ldap_set_option(ld, LDAP_OPT_TIMEOUT, &tv) != LDAP_OPT_SUCCESS ||
        ldap_set_option(ld, LDAP_OPT_TIMELIMIT, &limit) != LDAP_OPT_SUCCESS) {
        snprintf(msg, len, "cannot set LDAP options");
        rc = CUBE_EIO;
        goto fail;
    }
    if ((c->ldaps || c->starttls) && (rc = set_tls(c, ld, msg, len)) != CUBE_OK)
        goto fail;
    if (c->starttls && (lrc = ldap_start_tls_s(ld, NULL, NULL)) != LDAP_SUCCESS) {
        dir_error(ld, lrc, "StartTLS", msg, len);
        rc = CUBE_EUNAVAIL;
        goto fail;
    }
    s->ld = ld;
    return CUBE_OK;
fail:
    ldap_unbind_ext_s(ld, NULL, NULL);
    return rc;
}

/* A simple bind as dn with password pw; returns the LDAP result code. */
static int dir_bind(LDAP *ld, const char *dn, const char *pw)
{
    struct berval cred = {.bv_len = strlen(pw), .bv_val = (char *)pw};
    return ldap_sasl_bind_s(ld, dn, LDAP_SASL_SIMPLE, &cred, NULL, NULL, NULL);
}

/* A copy of the first value of attr in entry e, or NULL. */
static char *first_value(LDAP *ld, LDAPMessage *e, const char *attr)
{
    struct berval **v = ldap_get_values_len(ld, e, attr);
    char *s = NULL;
    if (v && v[0] && v[0]->bv_len && !memchr(v[0]->bv_val, '\0', v[0]->bv_len))
        s = strndup(v[0]->bv_val, v[0]->bv_len);
    ldap_value_free_len(v);
    return s;
}

/* Copies DN and attributes of the one matching entry into u. */
static int take_entry(const struct ssoldap_conf *c, LDAP *ld, LDAPMessage *res,
                      struct ssoldap_user *u, char *msg, size_t len)
{
    LDAPMessage *e = ldap_first_entry(ld, res);
    char *dn = e ? ldap_get_dn(ld, e) : NULL;
    if (!dn || !*dn) {
        ldap_memfree(dn);
        snprintf(msg, len, "the matching entry has no DN");
        return CUBE_EIO;
    }
    u->dn = strdup(dn);
    ldap_memfree(dn);
    u->username = first_value(ld, e, c->attr_username);
    u->display_name = first_value(ld, e, c->attr_display_name);
    u->email = first_value(ld, e, c->attr_email);
    if (!u->dn) {
        snprintf(msg, len, "out of memory");
        return CUBE_ENOMEM;
    }
    return CUBE_OK;
}

/* Finds the one entry matching user_filter for username under base_dn. */
static int find_user(const struct ssoldap_conf *c, LDAP *ld, const char *username,
                     struct ssoldap_user *u, char *msg, size_t len)
{
    const char *keys[] = {"username"}, *vals[] = {username};
    char *filter = ssoldap_filter_expand(c->user_filter, keys, vals, 1);
    char *attrs[] = {c->attr_username, c->attr_display_name, c->attr_email, NULL};
    struct timeval tv = {.tv_sec = c->timeout_s};
    LDAPMessage *res = NULL;
    int rc = CUBE_ENOMEM;
    if (!filter) {
        snprintf(msg, len, "out of memory");
        goto done;
    }
    int lrc = ldap_search_ext_s(ld, c->base_dn, LDAP_SCOPE_SUBTREE, filter, attrs, 0,
                                NULL, NULL, &tv, 2, &res);
    int n = lrc == LDAP_SUCCESS ? ldap_count_entries(ld, res) : 0;
    if (lrc == LDAP_SIZELIMIT_EXCEEDED || n > 1) {
        snprintf(msg, len, "user \"%s\": several entries match user_filter", username);
        rc = CUBE_EPERM;
    } else if (lrc != LDAP_SUCCESS) {
        rc = dir_error(ld, lrc, "user search under base_dn", msg, len);
    } else if (n == 0) {
        snprintf(msg, len, "user \"%s\": unknown (no entry matches user_filter)", username);
        rc = CUBE_DECLINED;   /* not the directory's: another method may know them */
    } else {
        rc = take_entry(c, ld, res, u, msg, len);
    }
done:
    ldap_msgfree(res);
    free(filter);
    return rc;
}

/* Appends the normalised DN of every group entry in res to u->groups. */
static int take_groups(LDAP *ld, LDAPMessage *res, struct ssoldap_user *u)
{
    int n = ldap_count_entries(ld, res);
    u->groups = calloc(n > 0 ? (size_t)n : 1, sizeof *u->groups);
    if (!u->groups)
        return CUBE_ENOMEM;
    for (LDAPMessage *e = ldap_first_entry(ld, res); e; e = ldap_next_entry(ld, e)) {
        char *dn = ldap_get_dn(ld, e);
        char *norm = dn ? ssoldap_dn_normalize(dn) : NULL;
        if (!norm && dn)
            norm = strdup(dn);
        ldap_memfree(dn);
        if (norm && u->n_groups < (size_t)n)
            u->groups[u->n_groups++] = norm;
        else
            free(norm);
    }
    return CUBE_OK;
}

/* Lists the groups group_filter finds for u under group_base_dn. */
static int find_groups(const struct ssoldap_conf *c, LDAP *ld, struct ssoldap_user *u,
                       const char *name, char *msg, size_t len)
{
    const char *keys[] = {"dn", "username"}, *vals[] = {u->dn, name};
    char *filter = ssoldap_filter_expand(c->group_filter, keys, vals, 2);
    char *attrs[] = {LDAP_NO_ATTRS, NULL};
    struct timeval tv = {.tv_sec = c->timeout_s};
    LDAPMessage *res = NULL;
    int rc = CUBE_ENOMEM;
    if (!filter) {
        snprintf(msg, len, "out of memory");
        goto done;
    }
    int lrc = ldap_search_ext_s(ld, c->group_base_dn, LDAP_SCOPE_SUBTREE, filter, attrs, 0,
                                NULL, NULL, &tv, LDAP_NO_LIMIT, &res);
    if (lrc != LDAP_SUCCESS && lrc != LDAP_SIZELIMIT_EXCEEDED)
        rc = dir_error(ld, lrc, "group search under group_base_dn", msg, len);
    else if ((rc = take_groups(ld, res, u)) != CUBE_OK)
        snprintf(msg, len, "out of memory");
done:
    ldap_msgfree(res);
    free(filter);
    return rc;
}

/* Binds as the user; maps refusals to CUBE_EPERM. */
static int bind_user(LDAP *ld, const struct ssoldap_user *u, const char *username,
                     const char *password, char *msg, size_t len)
{
    int lrc = dir_bind(ld, u->dn, password);
    if (lrc == LDAP_SUCCESS)
        return CUBE_OK;
    if (lrc == LDAP_INVALID_CREDENTIALS) {
        snprintf(msg, len, "user \"%s\": wrong password", username);
        return CUBE_EPERM;
    }
    if (lrc == LDAP_INAPPROPRIATE_AUTH || lrc == LDAP_UNWILLING_TO_PERFORM ||
        lrc == LDAP_INSUFFICIENT_ACCESS || lrc == LDAP_CONSTRAINT_VIOLATION) {
        snprintf(msg, len, "user \"%s\": bind refused: %s", username, ldap_err2string(lrc));
        return CUBE_EPERM;
    }
    return dir_error(ld, lrc, "bind as the user", msg, len);
}

/* Binds as the service account when one is configured. */
static int bind_service(const struct ssoldap_conf *c, LDAP *ld, char *msg, size_t len)
{
    if (!c->bind_dn)
        return CUBE_OK;
    int lrc = dir_bind(ld, c->bind_dn, c->bind_password);
    return lrc == LDAP_SUCCESS ? CUBE_OK : dir_error(ld, lrc, "bind_dn: service bind", msg, len);
}

/* The whole login: see sso_ldap.h. */
int ssoldap_authenticate(const struct ssoldap_conf *c, const char *username,
                         const char *password, struct ssoldap_user *u,
                         char *msg, size_t msg_len)
{
    struct session s = {0};
    memset(u, 0, sizeof *u);
    int rc = dir_open(c, &s, msg, msg_len);
    if (rc != CUBE_OK || (rc = bind_service(c, s.ld, msg, msg_len)) != CUBE_OK ||
        (rc = find_user(c, s.ld, username, u, msg, msg_len)) != CUBE_OK ||
        (rc = bind_user(s.ld, u, username, password, msg, msg_len)) != CUBE_OK)
        goto fail;
    if (c->n_admin_groups || c->n_projects) {
        /* Group entries are often readable by the service account only. */
        if ((rc = bind_service(c, s.ld, msg, msg_len)) != CUBE_OK ||
            (rc = find_groups(c, s.ld, u, u->username ? u->username : username, msg,
                              msg_len)) != CUBE_OK)
            goto fail;
    }
    ldap_unbind_ext_s(s.ld, NULL, NULL);
    return CUBE_OK;
fail:
    if (s.ld)
        ldap_unbind_ext_s(s.ld, NULL, NULL);
    ssoldap_user_free(u);
    return rc;
}

/* Frees the strings and group list of u. */
void ssoldap_user_free(struct ssoldap_user *u)
{
    free(u->dn);
    free(u->username);
    free(u->display_name);
    free(u->email);
    for (size_t i = 0; i < u->n_groups; i++)
        free(u->groups[i]);
    free(u->groups);
    memset(u, 0, sizeof *u);
}
