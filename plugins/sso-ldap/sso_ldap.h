/* sso_ldap.h — internals of the sso-ldap plugin: its parsed configuration,
 * the directory look-up and the identity it builds. */
#ifndef SSO_LDAP_H
#define SSO_LDAP_H

#include <stddef.h>

#include <cube/cube.h>

/** Project roles, ordered so that the highest wins. */
enum ssoldap_role {
    SSOLDAP_ROLE_NONE = 0,
    SSOLDAP_ROLE_VIEWER,
    SSOLDAP_ROLE_DEV,
    SSOLDAP_ROLE_OPS,
    SSOLDAP_ROLE_CREATOR,
};

/** One project_roles entry: members of `group` get `role` in `project`. */
struct ssoldap_project_map {
    char *group;   /* normalised DN */
    char *project;
    int role;      /* enum ssoldap_role */
};

/** The validated `config:` section. Strings are owned (NULL when unset). */
struct ssoldap_conf {
    char *url;
    int ldaps, starttls, allow_insecure;
    char *tls_ca_file;
    int timeout_s;
    char *base_dn, *user_filter;
    char *bind_dn, *bind_password;
    char *attr_display_name, *attr_email, *attr_username;
    char *group_base_dn, *group_filter;
    char **admin_groups;          /* normalised DNs */
    size_t n_admin_groups;
    struct ssoldap_project_map *projects;
    size_t n_projects;
    char *display_name;
};

/** What the directory says about a user who passed the bind. */
struct ssoldap_user {
    char *dn, *username, *display_name, *email;
    char **groups;                /* normalised DNs of groups found */
    size_t n_groups;
};

/** The plugin's state. */
struct ssoldap {
    const struct cube_host *host;
    cube_plugin *self;
    struct ssoldap_conf conf;
    cube_metric *logins;          /* cube_sso_ldap_logins_total, or NULL */
};

/* conf.c */
/** Parses and checks config JSON into *c. On error returns CUBE_EINVAL with
 *  "sso-ldap: <setting>: <reason>" in err (c is then freed). */
int ssoldap_conf_load(const char *json, struct ssoldap_conf *c, char *err,
                      size_t err_len);
/** Releases what ssoldap_conf_load allocated; c may be partly filled. */
void ssoldap_conf_free(struct ssoldap_conf *c);
/** The role named by s ("creator", "ops", "dev", "viewer"), or NONE. */
int ssoldap_role_parse(const char *s);
/** The name of a role, or NULL for NONE. */
const char *ssoldap_role_name(int role);
/** A new normalised copy of a DN (RFC 4514, spaces removed), or NULL when
 *  it does not parse. */
char *ssoldap_dn_normalize(const char *dn);

/* directory.c */
/** Checks username/password against the directory and fills *u.
 *  Returns CUBE_OK, CUBE_EPERM (unknown user, wrong password, ambiguous
 *  match), CUBE_EUNAVAIL (unreachable, TLS failure, timeout) or CUBE_EIO
 *  (another directory error); msg says why, for the log. Thread-safe. */
int ssoldap_authenticate(const struct ssoldap_conf *c, const char *username,
                         const char *password, struct ssoldap_user *u,
                         char *msg, size_t msg_len);
/** Releases what ssoldap_authenticate filled in. */
void ssoldap_user_free(struct ssoldap_user *u);

/* sockio.c */
struct ldap_conncb;
/** Fills cb (for LDAP_OPT_CONNECT_CB) so that every blocking read on the
 *  handle's connections, the ldaps:// TLS handshake included, fails after
 *  *timeout_ms without data. cb and timeout_ms must outlive the handle. */
void ssoldap_io_callbacks(struct ldap_conncb *cb, int *timeout_ms);

/* identity.c */
/** The identity JSON (malloc()ed) for u under c's group mapping, or NULL
 *  when out of memory. typed is the name the user typed (a fallback). */
char *ssoldap_identity(const struct ssoldap_conf *c, const struct ssoldap_user *u,
                       const char *typed);

#endif
