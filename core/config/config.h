/* config.h — cube.yaml and conf.d/NN-name.yaml: parsing, validation, env overrides.
 *
 * cube.yaml keys (all optional; relative paths are made absolute at load,
 * against cube.yaml's directory, or the working directory without one):
 *   listen: "127.0.0.1:8080"     address:port ([v6]:port allowed)
 *   data_dir: ./var
 *   database: sqlite | sqlite:///path | postgres://user@host:port/db
 *   plugin_dir: build/plugins    where cube-<name>.so files are searched
 *   conf_dir: conf.d             one YAML file per plugin
 *   web_root: web/dist           console assets ("" disables)
 *   log: {level: info, format: text|json, access: text|json|off}
 *   tls: {cert: path, key: path}
 *   limits: {max_body_bytes, max_header_bytes, request_timeout_s,
 *            max_connections, threads}
 *   admin_token_sha256: hex      SHA-256 of the admin bearer token
 *   auth: {...}                  users, sessions, projects (config_auth.c)
 *   apps_listen: "host:port"     the apps listener (default: listen's host,
 *                                its port + 1); apps_origin: its origin as
 *                                browsers see it, optionally per object
 *                                ("https://{name}--{project}.apps.example");
 *                                console_origin: the console's (config_apps.c)
 *   secret_key_file: path        the platform key sealing plugins' secrets
 *                                (default <data_dir>/secret.key, made 0600
 *                                with a fresh key on first start)
 *   egress: {allow: [HOST:PORT...], ca_file, proxy, no_proxy: [HOST:PORT...]}
 *                                outbound HTTP of plugins (config_egress.c;
 *                                default: nothing allowed)
 * Environment overrides: CUBE_LISTEN, CUBE_APPS_LISTEN, CUBE_DATA_DIR, CUBE_DATABASE_URL,
 * CUBE_PLUGIN_DIR, CUBE_SECRET_KEY_FILE, CUBE_LOG_LEVEL, CUBE_ADMIN_TOKEN (plain token; hashed in
 * memory, never stored); the two directories, when relative, against the
 * working directory. */
#ifndef CUBE_CONFIG_H
#define CUBE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/egress.h"
#include "base/errs.h"
#include "base/yamldoc.h"

/* One conf.d file. */
struct cube_plugin_conf {
    char *name;       /* `plugin:` (required) */
    int enabled;      /* `enabled:` (default true) */
    int optional;     /* `optional:` (default false): init failure skips it */
    char *file;       /* the conf.d file */
    int line, col;    /* where `plugin:` is */
    cJSON *config;    /* `config:` section; borrowed from doc; may be NULL */
    struct cube_yaml_doc doc;  /* owns the tree, for error positions */
};

struct cube_config {
    char *file;            /* cube.yaml path, or NULL when none was read */
    char *listen_host;     /* "127.0.0.1" */
    int listen_port;       /* 8080; 0 picks a free port */
    char *data_dir;
    char *database;
    char *plugin_dir;
    char *conf_dir;
    char *web_root;
    char *secret_key_file; /* NULL: <data_dir>/secret.key (cube_config_secret_key_file) */
    int log_level;         /* CUBE_LOG_* */
    int log_json;          /* 0 text, 1 json */
    int access_log;        /* 0 off, 1 text, 2 json */
    char *tls_cert, *tls_key;
    size_t max_body_bytes;     /* default 8 MiB */
    size_t max_header_bytes;   /* default 16 KiB */
    unsigned request_timeout_s;/* default 30: idle/slow client cut-off */
    unsigned max_connections;  /* default 1024 */
    unsigned threads;          /* default: number of CPUs, at least 2 */
    int threads_set;           /* limits.threads was given explicitly */
    uint8_t admin_token_sha256[32];
    int has_admin_token;
    cJSON *auth;           /* the validated auth: section, defaults applied */
    /* the apps origin (config_apps.c, apps.h) */
    char *apps_listen_host;    /* NULL: listen_host */
    int apps_listen_port;      /* with apps_listen_set; else listen_port + 1 */
    int apps_listen_set;
    char *apps_origin;         /* NULL: derived from each request's Host */
    char *console_origin;      /* NULL: derived from each request's Host */
    /* outbound HTTP (config_egress.c, core/net/) */
    struct cube_egress_rule *egress_allow;    /* empty: nothing allowed */
    size_t n_egress_allow;
    struct cube_egress_rule *egress_no_proxy; /* reached without the proxy */
    size_t n_egress_no_proxy;
    char *egress_ca_file;      /* NULL: the system's CA bundle */
    char *egress_proxy;        /* NULL: direct */
    struct cube_plugin_conf *plugins;  /* in conf.d file-name order */
    size_t n_plugins;
    /* the Python SDK on Jobs' PYTHONPATH (sched/job_sdk.c): NULL "auto"
     * (the installed SDK, the source's in a build tree), "" none, or an
     * absolute directory */
    char *sdk_pythonpath;
};

/* Sets every field to its default. */
void cube_config_defaults(struct cube_config *cfg);
/* Resets cfg to the defaults (cfg need not be initialised), reads cube.yaml
 * at `path` (NULL: defaults only), then the conf.d files in
 * name order, then applies environment overrides. Every problem is appended
 * to errs as "file:line:col: message"; returns 0 when there were none.
 * Checks: unknown key, wrong type, bad value, missing `plugin:`, duplicate
 * plugin name across conf.d files. */
int cube_config_load(const char *path, struct cube_config *cfg,
                     struct cube_errs *errs);
/* Parses cube.yaml text into cfg (which it initialises): the same checks
 * as cube_config_load, without conf.d or the environment. Returns 0 when
 * there were no errors. Used by the fuzz target. */
int cube_config_load_yaml_string(const char *text, size_t len,
                                 const char *name, struct cube_config *cfg,
                                 struct cube_errs *errs);
/* Validates a plugin's config section against its JSON Schema text (NULL:
 * the plugin takes no config, so a non-empty section is an error), strictly
 * (unknown keys rejected), after applying defaults. On success *out is the
 * effective config (new object, caller frees) and 0 is returned. */
int cube_config_validate_plugin(const struct cube_plugin_conf *pc,
                                const char *schema_json, cJSON **out,
                                struct cube_errs *errs);
/* Finds the conf.d entry for a plugin name, or NULL. */
const struct cube_plugin_conf *cube_config_find_plugin(
    const struct cube_config *cfg, const char *name);
/* Frees n egress rules and the array (NULL is fine). */
void cube_config_egress_free_rules(struct cube_egress_rule *rules, size_t n);
void cube_config_free(struct cube_config *cfg);

#endif
