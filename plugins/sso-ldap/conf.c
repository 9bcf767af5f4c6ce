/* conf.c — the sso-ldap plugin's configuration: read from the config JSON
 * (defaults applied here too, since a fake host applies none) and checked
 * beyond what the JSON Schema can say, each error naming its setting. */
#include "sso_ldap.h"
#include "filter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cube/util/conf.h>
#include <ldap.h>

static const char *const KNOWN[] = {
    "url", "starttls", "allow_insecure", "tls_ca_file", "timeout_s",
    "base_dn", "user_filter", "bind_dn", "bind_password", "bind_password_env",
    "attr_display_name", "attr_email", "attr_username", "group_base_dn",
    "group_filter", "admin_groups", "project_roles", "display_name", NULL,
};

/* A reader of object o whose errors say "sso-ldap: <key>: ..." into the
 * caller's err and len. */
#define CONF(o) (&(struct cu_conf){.obj = (o), .prefix = "sso-ldap", .err = err, .len = len})

static const char *const ROLES[] = {NULL, "viewer", "dev", "ops", "creator"};

/* The role named by s, or SSOLDAP_ROLE_NONE. */
int ssoldap_role_parse(const char *s)
{
    for (int r = SSOLDAP_ROLE_VIEWER; s && r <= SSOLDAP_ROLE_CREATOR; r++)
        if (strcmp(s, ROLES[r]) == 0)
            return r;
    return SSOLDAP_ROLE_NONE;
}

/* The name of role r, or NULL. */
const char *ssoldap_role_name(int role)
{
    return role > SSOLDAP_ROLE_NONE && role <= SSOLDAP_ROLE_CREATOR ? ROLES[role] : NULL;
}

/* A normalised copy of dn, or NULL when it does not parse. */
char *ssoldap_dn_normalize(const char *dn)
{
    char *norm = NULL;
    if (!dn || ldap_dn_normalize(dn, LDAP_DN_FORMAT_LDAP, &norm,
                                 LDAP_DN_FORMAT_LDAPV3) != LDAP_SUCCESS)
        return NULL;
    char *copy = strdup(norm ? norm : "");
    ldap_memfree(norm);
    return copy;
}

/* url, starttls, allow_insecure: a parseable ldap(s):// URL with no DN,
 * and no password ever sent in clear text unless asked for. */
static int load_url(const cJSON *o, struct ssoldap_conf *c, char *err, size_t len)
{
    int rc = cu_conf_str(CONF(o), "url", NULL, &c->url);
    if (rc == CUBE_OK)
        rc = cu_conf_bool(CONF(o), "starttls", 0, &c->starttls);
    if (rc == CUBE_OK)
        rc = cu_conf_bool(CONF(o), "allow_insecure", 0, &c->allow_insecure);
    if (rc != CUBE_OK)
        return rc;
    if (!c->url)
        return cu_conf_bad(CONF(NULL), "url", "required (ldap://host:389 or ldaps://host:636)");
    if (strncmp(c->url, "ldap://", 7) != 0 && strncmp(c->url, "ldaps://", 8) != 0)
        return cu_conf_bad(CONF(NULL), "url", "must start with ldap:// or ldaps://");
    c->ldaps = c->url[4] == 's';
    LDAPURLDesc *lud = NULL;
    int ok = ldap_url_parse(c->url, &lud) == LDAP_URL_SUCCESS && lud->lud_host &&
             *lud->lud_host && lud->lud_port >= 0 && lud->lud_port <= 65535 &&
             (!lud->lud_dn || !*lud->lud_dn) && !lud->lud_attrs &&
             !lud->lud_filter && !lud->lud_exts;
    if (lud)
        ldap_free_urldesc(lud);
    if (!ok)
        return cu_conf_bad(CONF(NULL), "url",
                           "cannot parse \"%s\" as ldap[s]://host[:port]", c->url);
    if (c->ldaps && c->starttls)
        return cu_conf_bad(CONF(NULL), "starttls", "only for ldap:// (ldaps:// is TLS already)");
    if (!c->ldaps && !c->starttls && !c->allow_insecure)
        return cu_conf_bad(CONF(NULL), "url", "ldap:// without starttls: true would send passwords "
                   "in clear text (use ldaps://, starttls: true, or allow_insecure: true)");
    return CUBE_OK;
}

/* tls_ca_file and timeout_s. */
static int load_tls(const cJSON *o, struct ssoldap_conf *c, char *err, size_t len)
{
    int rc = cu_conf_str(CONF(o), "tls_ca_file", NULL, &c->tls_ca_file);
    if (rc != CUBE_OK)
        return rc;
    if (c->tls_ca_file && access(c->tls_ca_file, R_OK) != 0)
        return cu_conf_bad(CONF(NULL), "tls_ca_file", "cannot read %s: %s", c->tls_ca_file,
                   strerror(errno));
    c->timeout_s = 5;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "timeout_s");
    if (t && !cJSON_IsNull(t)) {
        if (!cJSON_IsNumber(t) || !(t->valuedouble >= 1 && t->valuedouble <= 300) ||
            t->valuedouble != (double)(int)t->valuedouble)
            return cu_conf_bad(CONF(NULL), "timeout_s",
                               "must be a whole number of seconds, 1 to 300");
        c->timeout_s = t->valueint;
    }
    return CUBE_OK;
}

/* A DN setting: a string that parses as a DN (empty refused). */
static int check_dn(const char *key, const char *dn, char *err, size_t len)
{
    char *norm = ssoldap_dn_normalize(dn);
    int ok = norm && *norm;
    free(norm);
    return ok ? CUBE_OK : cu_conf_bad(CONF(NULL), key, "\"%s\" is not a DN", dn);
}

/* A filter template: one parenthesised filter using one of its placeholders. */
static int check_filter(const char *key, const char *f, const char *ph1,
                        const char *ph2, char *err, size_t len)
{
    if (!ssoldap_filter_has(f, ph1) && !(ph2 && ssoldap_filter_has(f, ph2)))
        return cu_conf_bad(CONF(NULL), key, "must contain {%s}%s%s%s", ph1, ph2 ? " or {" : "",
                   ph2 ? ph2 : "", ph2 ? "}" : "");
    if (!ssoldap_filter_shape_ok(f))
        return cu_conf_bad(CONF(NULL), key, "\"%s\" is not one parenthesised LDAP filter", f);
    return CUBE_OK;
}

/* base_dn, user_filter, group_base_dn, group_filter. */
static int load_search(const cJSON *o, struct ssoldap_conf *c, char *err, size_t len)
{
    int rc = cu_conf_str(CONF(o), "base_dn", NULL, &c->base_dn);
    if (rc != CUBE_OK)
        return rc;
    if (!c->base_dn)
        return cu_conf_bad(CONF(NULL), "base_dn", "required (e.g. ou=people,dc=example,dc=org)");
    if ((rc = check_dn("base_dn", c->base_dn, err, len)) != CUBE_OK ||
        (rc = cu_conf_str(CONF(o), "user_filter", "(uid={username})", &c->user_filter)) ||
        (rc = check_filter("user_filter", c->user_filter, "username", NULL, err, len)) ||
        (rc = cu_conf_str(CONF(o), "group_base_dn", c->base_dn, &c->group_base_dn)) ||
        (rc = check_dn("group_base_dn", c->group_base_dn, err, len)) ||
        (rc = cu_conf_str(CONF(o), "group_filter", "(member={dn})", &c->group_filter)))
        return rc;
    return check_filter("group_filter", c->group_filter, "dn", "username", err, len);
}

/* bind_dn with bind_password or bind_password_env (read now). */
static int load_bind(const cJSON *o, struct ssoldap_conf *c, char *err, size_t len)
{
    char *env = NULL;
    int rc = cu_conf_str(CONF(o), "bind_dn", NULL, &c->bind_dn);
    if (rc == CUBE_OK)
        rc = cu_conf_str(CONF(o), "bind_password", NULL, &c->bind_password);
    if (rc == CUBE_OK)
        rc = cu_conf_str(CONF(o), "bind_password_env", NULL, &env);
    if (rc != CUBE_OK)
        goto done;
    if (c->bind_password && env)
        rc = cu_conf_bad(CONF(NULL), "bind_password_env",
                         "set bind_password or bind_password_env, not both");
    else if ((c->bind_password || env) && !c->bind_dn)
        rc = cu_conf_bad(CONF(NULL), "bind_dn", "required with a bind password");
    else if (c->bind_dn && !c->bind_password && !env)
        rc = cu_conf_bad(CONF(NULL), "bind_password",
                         "required with bind_dn (or bind_password_env)");
    else if (c->bind_dn)
        rc = check_dn("bind_dn", c->bind_dn, err, len);
    if (rc != CUBE_OK || !c->bind_dn)
        goto done;
    if (env && (!getenv(env) || !*getenv(env)))
        rc = cu_conf_bad(CONF(NULL), "bind_password_env",
                         "environment variable %s is not set", env);
    else if (env && !(c->bind_password = strdup(getenv(env))))
        rc = cu_conf_bad(CONF(NULL), "bind_password_env", "out of memory");
    else if (!*c->bind_password)
        rc = cu_conf_bad(CONF(NULL), "bind_password",
                         "must not be empty (that is an anonymous bind)");
done:
    free(env);
    return rc;
}

/* One attribute-name setting: an attribute description (letters, digits,
 * '-', ';', '.'). */
static int load_attr(const cJSON *o, const char *key, const char *def, char **out,
                     char *err, size_t len)
{
    int rc = cu_conf_str(CONF(o), key, def, out);
    if (rc != CUBE_OK)
        return rc;
    size_t n = strlen(*out);
    if (n == 0 || n > 64 || strspn(*out, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
                                   "QRSTUVWXYZ0123456789-;.") != n)
        return cu_conf_bad(CONF(NULL), key, "\"%s\" is not an attribute name", *out);
    return CUBE_OK;
}

/* admin_groups: an array of DNs, kept normalised. */
static int load_admin_groups(const cJSON *o, struct ssoldap_conf *c, char *err,
                             size_t len)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "admin_groups");
    if (!a || cJSON_IsNull(a))
        return CUBE_OK;
    if (!cJSON_IsArray(a))
        return cu_conf_bad(CONF(NULL), "admin_groups", "must be a list of group DNs");
    int n = cJSON_GetArraySize(a);
    c->admin_groups = calloc((size_t)n + 1, sizeof *c->admin_groups);
    if (!c->admin_groups)
        return cu_conf_bad(CONF(NULL), "admin_groups", "out of memory");
    for (const cJSON *g = a->child; g; g = g->next) {
        char key[48];
        snprintf(key, sizeof key, "admin_groups[%zu]", c->n_admin_groups);
        char *dn = cJSON_IsString(g) ? ssoldap_dn_normalize(g->valuestring) : NULL;
        if (!dn || !*dn) {
            free(dn);
            return cu_conf_bad(CONF(NULL), key, "must be a group DN");
        }
        c->admin_groups[c->n_admin_groups++] = dn;
    }
    return CUBE_OK;
}

/* 1 when s is a DNS label (a project name). */
static int dns_label(const char *s)
{
    size_t n = strlen(s);
    return n >= 1 && n <= 63 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == n &&
           s[0] != '-' && s[n - 1] != '-';
}

/* One project_roles entry {group, project, role} into *m. */
static int load_project_map(const cJSON *e, size_t i, struct ssoldap_project_map *m,
                            char *err, size_t len)
{
    char key[64];
    snprintf(key, sizeof key, "project_roles[%zu]", i);
    if (!cJSON_IsObject(e))
        return cu_conf_bad(CONF(NULL), key, "must be {group: DN, project: name, role: ...}");
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(e, "group");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(e, "project");
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "role");
    for (const cJSON *it = e->child; it; it = it->next)
        if (strcmp(it->string, "group") && strcmp(it->string, "project") &&
            strcmp(it->string, "role"))
            return cu_conf_bad(CONF(NULL), key, "unknown key \"%s\"", it->string);
    snprintf(key, sizeof key, "project_roles[%zu].group", i);
    if (!cJSON_IsString(g) || !(m->group = ssoldap_dn_normalize(g->valuestring)) ||
        !*m->group)
        return cu_conf_bad(CONF(NULL), key, "must be a group DN");
    snprintf(key, sizeof key, "project_roles[%zu].project", i);
    if (!cJSON_IsString(p) || !dns_label(p->valuestring))
        return cu_conf_bad(CONF(NULL), key, "must be a project name ([a-z0-9-], 1 to 63)");
    if (!(m->project = strdup(p->valuestring)))
        return cu_conf_bad(CONF(NULL), key, "out of memory");
    snprintf(key, sizeof key, "project_roles[%zu].role", i);
    m->role = cJSON_IsString(r) ? ssoldap_role_parse(r->valuestring) : SSOLDAP_ROLE_NONE;
    if (m->role == SSOLDAP_ROLE_NONE)
        return cu_conf_bad(CONF(NULL), key, "must be creator, ops, dev or viewer");
    return CUBE_OK;
}

/* project_roles: an array of group-to-project-role mappings. */
static int load_projects(const cJSON *o, struct ssoldap_conf *c, char *err, size_t len)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "project_roles");
    if (!a || cJSON_IsNull(a))
        return CUBE_OK;
    if (!cJSON_IsArray(a))
        return cu_conf_bad(CONF(NULL), "project_roles", "must be a list of {group, project, role}");
    c->projects = calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof *c->projects);
    if (!c->projects)
        return cu_conf_bad(CONF(NULL), "project_roles", "out of memory");
    for (const cJSON *e = a->child; e; e = e->next) {
        int rc = load_project_map(e, c->n_projects, &c->projects[c->n_projects], err, len);
        c->n_projects++; /* counted even on failure so free releases it */
        if (rc != CUBE_OK)
            return rc;
    }
    return CUBE_OK;
}

/* Parses and checks the whole config into *c. */
int ssoldap_conf_load(const char *json, struct ssoldap_conf *c, char *err, size_t len)
{
    memset(c, 0, sizeof *c);
    cJSON *o = cJSON_Parse(json ? json : "{}");
    int rc;
    if (!cJSON_IsObject(o)) {
        rc = cu_conf_bad(CONF(NULL), "config", "must be a mapping");
        goto fail;
    }
    if ((rc = cu_conf_known(CONF(o), KNOWN)) || (rc = load_url(o, c, err, len)) ||
        (rc = load_tls(o, c, err, len)) || (rc = load_search(o, c, err, len)) ||
        (rc = load_bind(o, c, err, len)) ||
        (rc = load_attr(o, "attr_username", "uid", &c->attr_username, err, len)) ||
        (rc = load_attr(o, "attr_display_name", "cn", &c->attr_display_name, err, len)) ||
        (rc = load_attr(o, "attr_email", "mail", &c->attr_email, err, len)) ||
        (rc = load_admin_groups(o, c, err, len)) || (rc = load_projects(o, c, err, len)) ||
        (rc = cu_conf_str(CONF(o), "display_name", "LDAP", &c->display_name)))
        goto fail;
    if (!*c->display_name || strlen(c->display_name) > 64) {
        rc = cu_conf_bad(CONF(NULL), "display_name", "must be 1 to 64 bytes");
        goto fail;
    }
    cJSON_Delete(o);
    return CUBE_OK;
fail:
    cJSON_Delete(o);
    ssoldap_conf_free(c);
    return rc;
}

/* Frees a config (also a partly loaded one); wipes the bind password. */
void ssoldap_conf_free(struct ssoldap_conf *c)
{
    if (c->bind_password) {
        explicit_bzero(c->bind_password, strlen(c->bind_password));
        free(c->bind_password);
    }
    char **strs[] = {&c->url, &c->tls_ca_file, &c->base_dn, &c->user_filter, &c->bind_dn,
                     &c->attr_display_name, &c->attr_email, &c->attr_username,
                     &c->group_base_dn, &c->group_filter, &c->display_name};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        free(*strs[i]);
    for (size_t i = 0; i < c->n_admin_groups; i++)
        free(c->admin_groups[i]);
    free(c->admin_groups);
    for (size_t i = 0; i < c->n_projects; i++) {
        free(c->projects[i].group);
        free(c->projects[i].project);
    }
    free(c->projects);
    memset(c, 0, sizeof *c);
}
