/* auth_priv.h — what the auth_*.c files share: the in-memory index of
 * users and project memberships, the credential cache, config and login
 * methods. One struct cube_auth per context (ctx->auth). */
#ifndef CUBE_AUTH_PRIV_H
#define CUBE_AUTH_PRIV_H

#include <pthread.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "auth.h"

struct cube_strmap;
struct cube_throttle;

/* A user as the index knows it (from the User object). */
struct auth_user {
    int admin, disabled;
    char provider[32];
    char *display_name, *email;          /* owned */
};

/* One member of a project. */
struct auth_member {
    char user[CUBE_USER_MAX];
    int role;
};

/* A project's members (from the Project object's spec.members). */
struct auth_project {
    struct auth_member *m;
    size_t n;
};

/* A cached session or token, keyed by "s"/"t" + hex SHA-256 of the secret. */
struct auth_cred {
    char user[CUBE_USER_MAX];
    char job_uid[CUBE_JOB_UID_MAX];   /* tokens: the Job it was issued to, or "" */
    int64_t expires;       /* absolute, Unix seconds */
    int64_t last_seen;     /* sessions: for the idle expiry */
    int64_t persisted;     /* sessions: last_seen as last written */
};

/* A registered login method. */
struct auth_provider {
    struct cube_auth_desc desc;          /* strings owned */
    struct cube_plugin *plugin;          /* callbacks get plugin->state */
};

struct cube_auth {
    struct cube_ctx *ctx;
    struct cube_kind *user_kind, *project_kind;
    pthread_rwlock_t mu;                 /* users, projects */
    struct cube_strmap *users;           /* name -> struct auth_user */
    struct cube_strmap *projects;        /* name -> struct auth_project */
    pthread_mutex_t cred_mu;
    struct cube_strmap *creds;           /* key -> struct auth_cred */
    struct cube_throttle *throttle;
    const struct cube_auth_apps *apps_hooks;         /* ctx.c: the apps origin */
    const struct cube_auth_projects *project_hooks;  /* ctx.c: the scheduler */
    /* settings (cube.yaml auth:) */
    int64_t idle_s, max_s, max_token_s;
    int local_login, users_create_projects;
    char default_project[64];
    int default_role;
    char trusted_header[64];
    char **proxies;
    size_t n_proxies;
    /* login methods, registered during plugin init */
    struct auth_provider *providers;
    size_t n_providers;
};

/* Core route handlers receive the context as their state. */
#define AUTH_OF(state) (((struct cube_ctx *)(state))->auth)

/* Actors the core writes as; they pass every ownership check. */
#define AUTH_SYSTEM_ACTOR "system:auth"

/* -- auth_index.c ----------------------------------------------------- */
int auth_index_init(struct cube_auth *a);
void auth_index_free(struct cube_auth *a);
/* Loads every User and Project object. 0 or -1. */
int auth_index_load(struct cube_auth *a);
/* Applies a User/Project object (doc NULL: deleted). Returns 1 when a user
 * was newly added. */
int auth_index_user(struct cube_auth *a, const char *name, const cJSON *obj);
void auth_index_project(struct cube_auth *a, const char *name, const cJSON *obj);
/* Copies the user's flags; 0, or -1 when unknown. */
int auth_index_get_user(struct cube_auth *a, const char *name, int *admin,
                        int *disabled);
/* The login method a user belongs to (spec.provider); 0, or -1 unknown. */
int auth_index_provider(struct cube_auth *a, const char *name, char *out, size_t len);
/* The user's role in project (CUBE_ROLE_NONE when not a member). */
int auth_index_role(struct cube_auth *a, const char *project, const char *user);
/* 1 when the project exists. */
int auth_index_has_project(struct cube_auth *a, const char *project);
/* {"name","displayName","email","role","provider","disabled"} of a user,
 * added to the caller's object o. 0, or -1 when unknown. */
int auth_index_describe(struct cube_auth *a, const char *user, cJSON *o);
/* The start of /api/v1/auth/me's answer, {"user":{...},"role":..,
 * "projects":[...] (no closing brace), into buf. Its length, or -1 when buf
 * is too small. */
int auth_index_me(struct cube_auth *a, const char *user, int admin, char *buf, size_t len);
/* Number of users. */
size_t auth_index_users(struct cube_auth *a);

/* -- auth_cred.c: passwords, sessions, tokens ------------------------- */
int auth_cred_init(struct cube_auth *a);
void auth_cred_free(struct cube_auth *a);
/* Sets a local password (policy checked by the caller). CUBE_* code. */
int auth_password_set(struct cube_auth *a, const char *user, const char *password);
/* 1 match, 0 mismatch or no password, < 0 a CUBE_* store error. */
int auth_password_check(struct cube_auth *a, const char *user, const char *password);
/* Starts a session: fills cookie (the secret: 64 hex digits) and csrf. */
int auth_session_new(struct cube_auth *a, const char *user, char cookie[72],
                     char csrf[72]);
/* Resolves a session cookie: the user into p, 0; -1 unknown/expired. */
int auth_session_find(struct cube_auth *a, const char *cookie,
                      struct cube_principal *p);
/* 0 when the session whose SHA-256 is hash is still valid and user's
 * (its use is recorded, as auth_session_find does); -1 otherwise. */
int auth_session_alive(struct cube_auth *a, const uint8_t hash[32], const char *user);
/* The CSRF token of a session cookie. */
void auth_session_csrf(const char *cookie, char csrf[72]);
/* Ends the session whose hash is in p. */
void auth_session_end(struct cube_auth *a, const struct cube_principal *p);
/* Creates an API token; *out gets {"id","name","created","expires","token"}
 * (the only place the secret is shown). CUBE_* code. */
int auth_token_new(struct cube_auth *a, const char *user, const char *name,
                   int64_t ttl_s, cJSON **out, char *secret, size_t secret_len);
/* What a work token is for (all NULL: none). A Job's: job_uid (required
 * then), its project and name; a plugin's: plugin, its name. Borrowed. */
struct auth_token_for {
    const char *job_uid, *project, *job_name, *plugin;
};
/* As auth_token_new for a Job's CUBE_TOKEN (named "job"): bound to the
 * Job's uid, which the principal it resolves to carries (job_uid), so
 * that routes for a Job's own use (its metrics) accept it for that Job
 * only; the Job's project and name are recorded so it lists under the
 * Job. CUBE_* code. */
int auth_job_token_new(struct cube_auth *a, const char *user, const char *job_uid,
                       const char *project, const char *job_name, int64_t ttl_s,
                       cJSON **out, char *secret, size_t secret_len);
/* As auth_token_new for work a plugin starts on the user's behalf
 * (cube_host.token_issue): recorded as the plugin's, so it is not listed
 * among the user's own tokens. CUBE_* code. */
int auth_plugin_token_new(struct cube_auth *a, const char *user, const char *name,
                          const char *plugin, int64_t ttl_s, cJSON **out, char *secret,
                          size_t secret_len);
/* Resolves a bearer token: 0 with p filled, -1 unknown/expired. */
int auth_token_find(struct cube_auth *a, const char *token, struct cube_principal *p);
/* Lists a user's tokens (no secrets) as a new array; NULL on error.
 * only NULL: the user's own tokens (no work tokens); only->plugin: that
 * plugin's; else a Job's, matched by only->job_uid or by project and
 * job_name. */
cJSON *auth_token_list(struct cube_auth *a, const char *user, const struct auth_token_for *only);
/* Revokes a user's token by id: CUBE_OK or CUBE_ENOTFOUND. */
int auth_token_revoke(struct cube_auth *a, const char *user, const char *id);
/* What auth_cred_forget_user removes besides the sessions (bits). */
#define AUTH_FORGET_TOKENS 1     /* every API token (a job's CUBE_TOKEN too) */
#define AUTH_FORGET_PASSWORD 2   /* the local password */
/* Ends every session of user (disabled, deleted, password reset) and drops
 * their cached credentials; what (AUTH_FORGET_* bits) says what else goes. */
void auth_cred_forget_user(struct cube_auth *a, const char *user, int what);

/* -- auth_kinds.c: the User and Project kinds ------------------------- */
int auth_kinds_register(struct cube_auth *a);
/* Creates the first admin and the default project when there are none. */
int auth_bootstrap(struct cube_auth *a);
/* Adds user to project with role unless a member already (raise: or with
 * a lower role). 0, or -1 with a logged reason. */
int auth_project_add_member(struct cube_auth *a, const char *project,
                            const char *user, int role, int raise);

/* Removes a deleted user from every project's members (so that a new user
 * of the same name inherits nothing). */
void auth_project_purge_user(struct cube_auth *a, const char *user);

/* -- auth_provision.c ------------------------------------------------- */
/* Creates or updates the user an identity (JSON from a login method)
 * names; user gets the normalised name. Returns CUBE_OK, CUBE_EINVAL
 * (malformed identity, msg says why), CUBE_EPERM (user disabled) or a
 * store error. */
int auth_provision(struct cube_auth *a, const char *provider, const char *identity,
                   char user[CUBE_USER_MAX], char *msg, size_t msglen);
/* Lower-cases name and maps characters outside [a-z0-9-] to '-'; 0, or -1
 * when the result is not a DNS label. */
int auth_normalise_user(const char *in, char out[CUBE_USER_MAX]);

/* -- auth_http.c / auth_members.c ------------------------------------- */
int auth_routes_register(struct cube_auth *a);
int auth_members_routes_register(struct cube_auth *a);
/* How many of a Project's spec.members are creators (auth_members.c): the
 * last one stays on every path that changes membership. */
int auth_creator_count(const cJSON *members);
int auth_token_routes_register(struct cube_auth *a);
/* The body as a JSON object; NULL after answering 400 (malformed, not an
 * object, or holding a NUL). what describes the expected shape. */
cJSON *auth_json_body(cube_req *req, const char *what);
/* Starts a session for user and answers with the login body (status 200)
 * or, when next is not NULL, 303 to next. */
int auth_answer_login(cube_req *req, const char *user, const char *next);

/* -- config_auth.c ---------------------------------------------------- */
/* Applies the validated auth: settings (NULL: defaults). 0 or -1. */
int auth_settings_apply(struct cube_auth *a, const cJSON *cfg);

#endif
