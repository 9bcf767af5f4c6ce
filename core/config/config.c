/* config.c — cube.yaml: defaults, keys and their checks, then the load
 * order (see config.h). The conf.d side lives in config_plugins.c, the
 * environment overrides in config_env.c, the value syntax both share in
 * config_values.c. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_priv.h"

#define MAX_SIZE_BYTES 1099511627776.0   /* 1 TiB: bigger is surely a typo */
#define MAX_THREADS 1024

struct loader {
    struct cube_config *cfg;
    const struct cube_yaml_doc *doc;
    struct cube_errs *errs;
    const cJSON *conf_dir_node;  /* conf_dir as written in cube.yaml */
    int conf_dir_bad;            /* conf_dir was given but unusable */
};

/* Checks one key's value and stores it in L->cfg; path names the key in
 * messages ("log.level"). Returns 0, or -1 after reporting. */
typedef int (*key_fn)(struct loader *L, const cJSON *v, const char *path);

struct key_rule {
    const char *name;
    key_fn fn;
};

/* ---- value checks ---- */

static int expected(struct loader *L, const cJSON *v, const char *path,
                    const char *what)
{
    return cube_config_expected(L->errs, L->doc, v, path, what);
}

static int set_str(struct loader *L, const cJSON *v, char **dst,
                   const char *s)
{
    char *copy = strdup(s);
    if (!copy) {
        cube_config_err_at(L->errs, L->doc, v, 0, "out of memory");
        return -1;
    }
    free(*dst);
    *dst = copy;
    return 0;
}

static int take_string(struct loader *L, const cJSON *v, const char *path,
                       char **dst, int allow_empty)
{
    if (!cJSON_IsString(v) || (!allow_empty && !*v->valuestring))
        return expected(L, v, path, allow_empty ? "a string"
                                                : "a non-empty string");
    return set_str(L, v, dst, v->valuestring);
}

static int take_uint(struct loader *L, const cJSON *v, const char *path,
                     double min, double max, double *out)
{
    double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!isfinite(d) || d != floor(d) || d < min || d > max) {
        char what[96];
        snprintf(what, sizeof what, "an integer from %.0f to %.0f", min, max);
        return expected(L, v, path, what);
    }
    *out = d;
    return 0;
}

/* Index of v's string in the NULL-terminated names, or -1 after reporting. */
static int take_choice(struct loader *L, const cJSON *v, const char *path,
                       const char *const *names, const char *what)
{
    for (int i = 0; cJSON_IsString(v) && names[i]; i++)
        if (!strcmp(v->valuestring, names[i]))
            return i;
    return expected(L, v, path, what);
}

static int walk_map(struct loader *L, const cJSON *obj, const char *parent,
                    const struct key_rule *rules)
{
    char path[128], key[96];
    const cJSON *m;
    int rc = 0;
    if (!cJSON_IsObject(obj))
        return expected(L, obj, parent, "a mapping");
    cJSON_ArrayForEach(m, obj) {
        const struct key_rule *r = rules;
        while (r->name && strcmp(r->name, m->string))
            r++;
        if (!r->name) {
            cube_config_quote(key, sizeof key, m->string);
            cube_config_err_at(L->errs, L->doc, m, 1, "%s%sunknown key %s",
                               parent ? parent : "", parent ? ": " : "", key);
            rc = -1;
            continue;
        }
        if (cJSON_IsNull(m))   /* "key:" with no value: keep the default */
            continue;
        snprintf(path, sizeof path, "%s%s%s", parent ? parent : "",
                 parent ? "." : "", m->string);
        if (r->fn(L, m, path))
            rc = -1;
    }
    return rc;
}

/* ---- cube.yaml keys ---- */

static int key_listen(struct loader *L, const cJSON *v, const char *path)
{
    struct cube_config *c = L->cfg;
    int rc = -1;
    if (cJSON_IsString(v))
        rc = cube_config_parse_listen(v->valuestring, &c->listen_host,
                                      &c->listen_port);
    if (rc == -2)
        cube_config_err_at(L->errs, L->doc, v, 0, "out of memory");
    return rc == -1 ? expected(L, v, path, "\"host:port\"") : rc;
}

static int key_data_dir(struct loader *L, const cJSON *v, const char *path)
{
    return take_string(L, v, path, &L->cfg->data_dir, 0);
}

static int key_plugin_dir(struct loader *L, const cJSON *v, const char *path)
{
    return take_string(L, v, path, &L->cfg->plugin_dir, 0);
}

static int key_web_root(struct loader *L, const cJSON *v, const char *path)
{
    return take_string(L, v, path, &L->cfg->web_root, 1);
}

static int key_secret_key_file(struct loader *L, const cJSON *v, const char *path)
{
    return take_string(L, v, path, &L->cfg->secret_key_file, 0);
}

/* "auto" (NULL), "" (none) or an absolute directory. */
static int key_sdk_pythonpath(struct loader *L, const cJSON *v, const char *path)
{
    const char *s = cJSON_GetStringValue(v);
    if (!s || (*s && *s != '/' && strcmp(s, "auto") != 0))
        return expected(L, v, path, "\"auto\", \"\" or an absolute path");
    if (!strcmp(s, "auto")) {
        free(L->cfg->sdk_pythonpath);
        L->cfg->sdk_pythonpath = NULL;
        return 0;
    }
    return set_str(L, v, &L->cfg->sdk_pythonpath, s);
}

static int key_conf_dir(struct loader *L, const cJSON *v, const char *path)
{
    if (take_string(L, v, path, &L->cfg->conf_dir, 0)) {
        L->conf_dir_bad = 1;
        return -1;
    }
    L->conf_dir_node = v;
    return 0;
}

static int key_database(struct loader *L, const cJSON *v, const char *path)
{
    if (cJSON_IsString(v) && cube_config_database_ok(v->valuestring))
        return set_str(L, v, &L->cfg->database, v->valuestring);
    /* The value is not echoed: it may hold a password. */
    cube_config_err_at(L->errs, L->doc, v, 0, "%s: expected \"sqlite\", "
                       "\"sqlite:///path\" or \"postgres://...\"", path);
    return -1;
}

static int key_admin_token(struct loader *L, const cJSON *v, const char *path)
{
    if (!cJSON_IsString(v) ||
        cube_config_hex_decode32(v->valuestring, L->cfg->admin_token_sha256)) {
        cube_config_err_at(L->errs, L->doc, v, 0, "%s: expected 64 hex "
                           "digits (the SHA-256 of the admin token)", path);
        return -1;
    }
    L->cfg->has_admin_token = 1;
    return 0;
}

static int log_level(struct loader *L, const cJSON *v, const char *path)
{
    int i = take_choice(L, v, path, cube_config_level_names,
                        "debug, info, warn or error");
    if (i >= 0)
        L->cfg->log_level = cube_config_level_values[i];
    return i < 0 ? -1 : 0;
}

static int log_format(struct loader *L, const cJSON *v, const char *path)
{
    static const char *const names[] = {"text", "json", 0};
    int i = take_choice(L, v, path, names, "text or json");
    if (i >= 0)
        L->cfg->log_json = i;
    return i < 0 ? -1 : 0;
}

static int log_access(struct loader *L, const cJSON *v, const char *path)
{
    static const char *const names[] = {"off", "text", "json", 0};
    int i = take_choice(L, v, path, names, "text, json or off");
    if (i >= 0)
        L->cfg->access_log = i;
    return i < 0 ? -1 : 0;
}

static int key_log(struct loader *L, const cJSON *v, const char *path)
{
    static const struct key_rule rules[] = {
        {"level", log_level}, {"format", log_format},
        {"access", log_access}, {0, 0}};
    return walk_map(L, v, path, rules);
}

static int tls_cert(struct loader *L, const cJSON *v, const char *path)
{
    return take_string(L, v, path, &L->cfg->tls_cert, 0);
}

static int tls_key(struct loader *L, const cJSON *v, const char *path)
{
    return take_string(L, v, path, &L->cfg->tls_key, 0);
}

static int key_tls(struct loader *L, const cJSON *v, const char *path)
{
    static const struct key_rule rules[] = {
        {"cert", tls_cert}, {"key", tls_key}, {0, 0}};
    if (walk_map(L, v, path, rules))
        return -1;
    if (!L->cfg->tls_cert != !L->cfg->tls_key) {
        cube_config_err_at(L->errs, L->doc, v, 0,
                           "%s: cert and key must be given together", path);
        return -1;
    }
    return 0;
}

static int lim_body(struct loader *L, const cJSON *v, const char *path)
{
    double d;
    if (take_uint(L, v, path, 1, MAX_SIZE_BYTES, &d))
        return -1;
    L->cfg->max_body_bytes = (size_t)d;
    return 0;
}

static int lim_header(struct loader *L, const cJSON *v, const char *path)
{
    double d;
    if (take_uint(L, v, path, 1024, 16 << 20, &d))
        return -1;
    L->cfg->max_header_bytes = (size_t)d;
    return 0;
}

static int lim_timeout(struct loader *L, const cJSON *v, const char *path)
{
    double d;
    if (take_uint(L, v, path, 1, 86400, &d))
        return -1;
    L->cfg->request_timeout_s = (unsigned)d;
    return 0;
}

static int lim_conns(struct loader *L, const cJSON *v, const char *path)
{
    double d;
    if (take_uint(L, v, path, 1, 1000000, &d))
        return -1;
    L->cfg->max_connections = (unsigned)d;
    return 0;
}

static int lim_threads(struct loader *L, const cJSON *v, const char *path)
{
    double d;
    if (take_uint(L, v, path, 1, MAX_THREADS, &d))
        return -1;
    L->cfg->threads = (unsigned)d;
    L->cfg->threads_set = 1;
    return 0;
}

static int key_limits(struct loader *L, const cJSON *v, const char *path)
{
    static const struct key_rule rules[] = {
        {"max_body_bytes", lim_body},       {"max_header_bytes", lim_header},
        {"request_timeout_s", lim_timeout}, {"max_connections", lim_conns},
        {"threads", lim_threads},           {0, 0}};
    return walk_map(L, v, path, rules);
}

static int key_auth(struct loader *L, const cJSON *v, const char *path)
{
    (void)path;
    struct cube_plugin_conf pc = {.name = "auth", .file = L->cfg->file,
                                  .config = (cJSON *)v, .doc = *L->doc};
    cube_yaml_key_mark_of(L->doc, v, &pc.line, &pc.col);
    cJSON *out;
    if (cube_config_validate_section(&pc, "auth", cube_config_auth_schema, &out, L->errs))
        return -1;
    cJSON_Delete(L->cfg->auth);
    L->cfg->auth = out;
    return 0;
}

static int key_apps(struct loader *L, const cJSON *v, const char *path)
{
    return cube_config_apps_key(L->cfg, L->doc, L->errs, v, path);
}

static int key_egress(struct loader *L, const cJSON *v, const char *path)
{
    return cube_config_egress_key(L->cfg, L->doc, L->errs, v, path);
}

static const struct key_rule top_rules[] = {
    {"listen", key_listen},       {"data_dir", key_data_dir},
    {"database", key_database},   {"plugin_dir", key_plugin_dir},
    {"conf_dir", key_conf_dir},   {"web_root", key_web_root},
    {"log", key_log},             {"tls", key_tls},
    {"limits", key_limits},       {"admin_token_sha256", key_admin_token},
    {"auth", key_auth},           {"apps_listen", key_apps},
    {"apps_origin", key_apps},    {"console_origin", key_apps},
    {"secret_key_file", key_secret_key_file},
    {"egress", key_egress},
    {"sdk_pythonpath", key_sdk_pythonpath},
    {0, 0}};

static int apply_root(struct loader *L, const cJSON *root)
{
    if (!root)
        return 0;   /* an empty cube.yaml: all defaults */
    if (!cJSON_IsObject(root)) {
        char got[96];
        cube_config_describe(root, got, sizeof got);
        cube_config_err_at(L->errs, L->doc, root, 0,
                           "expected a mapping of settings, got %s", got);
        return -1;
    }
    return walk_map(L, root, NULL, top_rules);
}

/* ---- relative paths ---- */

/* Makes every path setting absolute: relative to the directory holding
 * cube.yaml, or to the working directory without one (cfg->file NULL). */
static int resolve_paths(struct cube_config *cfg, struct cube_errs *errs)
{
    const char *what = cfg->file ? cfg->file : "config";
    char *base = cube_config_base_dir(cfg->file);
    char **paths[] = {&cfg->data_dir, &cfg->plugin_dir, &cfg->conf_dir,
                      &cfg->web_root, &cfg->tls_cert,   &cfg->tls_key,
                      &cfg->secret_key_file, &cfg->egress_ca_file};
    if (!base) {
        cube_errs_add(errs, "%s: cannot resolve relative paths: the working "
                      "directory is unknown (%s)", what, strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        if (cube_config_make_absolute(paths[i], base)) {
            cube_errs_add(errs, "%s: out of memory", what);
            free(base);
            return -1;
        }
    }
    free(base);
    return 0;
}

/* ---- entry points ---- */

void cube_config_defaults(struct cube_config *cfg)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    memset(cfg, 0, sizeof *cfg);
    cfg->listen_host = strdup("127.0.0.1");
    cfg->listen_port = 8080;
    cfg->data_dir = strdup("var");
    cfg->database = strdup("sqlite");
    cfg->plugin_dir = strdup("build/plugins");
    cfg->conf_dir = strdup("conf.d");
    cfg->web_root = strdup("web/dist");
    cfg->log_level = CUBE_LOG_INFO;
    cfg->log_json = 0;
    cfg->access_log = 1;
    cfg->max_body_bytes = (size_t)8 << 20;
    cfg->max_header_bytes = (size_t)16 << 10;
    cfg->request_timeout_s = 30;
    cfg->max_connections = 1024;
    cfg->threads = cpus < 2             ? 2
                   : cpus > MAX_THREADS ? MAX_THREADS
                                        : (unsigned)cpus;
}

static int defaults_ok(const struct cube_config *cfg)
{
    return cfg->listen_host && cfg->data_dir && cfg->database &&
           cfg->plugin_dir && cfg->conf_dir && cfg->web_root;
}

/* Defaults, then the cube.yaml document (already parsed into doc) on top. */
static int load_doc(struct loader *L, const char *name)
{
    struct cube_config *cfg = L->cfg;
    cube_config_defaults(cfg);
    cfg->file = strdup(name);
    if (!defaults_ok(cfg) || !cfg->file) {
        cube_errs_add(L->errs, "%s: out of memory", name);
        return -1;
    }
    int rc = apply_root(L, L->doc->root);
    return resolve_paths(cfg, L->errs) || rc ? -1 : 0;
}

int cube_config_load(const char *path, struct cube_config *cfg,
                     struct cube_errs *errs)
{
    struct cube_yaml_doc doc = {0};
    struct loader L = {.cfg = cfg, .doc = &doc, .errs = errs};
    size_t before = cube_errs_count(errs);
    int parsed = 1;
    if (path && cube_yaml_load_file(path, &doc, errs))
        parsed = 0;
    if (path) {
        load_doc(&L, path);
    } else {
        cube_config_defaults(cfg);
        if (!defaults_ok(cfg))
            cube_errs_add(errs, "config: out of memory");
        else
            resolve_paths(cfg, errs);
    }
    if (parsed && !L.conf_dir_bad && cfg->conf_dir)
        cube_config_read_confd(cfg, &doc, L.conf_dir_node, errs);
    cube_config_apply_env(cfg, errs);
    cube_yaml_doc_free(&doc);
    return cube_errs_count(errs) > before ? -1 : 0;
}

/* Parses cube.yaml text into cfg (which it initialises): the same checks
 * as cube_config_load, without conf.d or the environment. */
int cube_config_load_yaml_string(const char *text, size_t len,
                                 const char *name, struct cube_config *cfg,
                                 struct cube_errs *errs)
{
    struct cube_yaml_doc doc = {0};
    struct loader L = {.cfg = cfg, .doc = &doc, .errs = errs};
    size_t before = cube_errs_count(errs);
    if (cube_yaml_load_string(text, len, name, &doc, errs) == 0)
        load_doc(&L, name);
    else
        cube_config_defaults(cfg);
    cube_yaml_doc_free(&doc);
    return cube_errs_count(errs) > before ? -1 : 0;
}

void cube_config_free(struct cube_config *cfg)
{
    char *strings[] = {cfg->file,       cfg->listen_host, cfg->data_dir,
                       cfg->database,   cfg->plugin_dir,  cfg->conf_dir,
                       cfg->web_root,   cfg->tls_cert,    cfg->tls_key,
                       cfg->apps_listen_host, cfg->apps_origin, cfg->console_origin,
                       cfg->secret_key_file, cfg->egress_ca_file, cfg->egress_proxy,
                       cfg->sdk_pythonpath};
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
        free(strings[i]);
    for (size_t i = 0; i < cfg->n_plugins; i++) {
        free(cfg->plugins[i].name);
        free(cfg->plugins[i].file);
        cube_yaml_doc_free(&cfg->plugins[i].doc);
    }
    cJSON_Delete(cfg->auth);
    cfg->auth = NULL;
    cube_config_egress_free_rules(cfg->egress_allow, cfg->n_egress_allow);
    cube_config_egress_free_rules(cfg->egress_no_proxy, cfg->n_egress_no_proxy);
    free(cfg->plugins);
    memset(cfg, 0, sizeof *cfg);
}
