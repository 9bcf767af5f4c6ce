/* config_priv.h — helpers shared by config.c, config_env.c,
 * config_values.c and config_plugins.c. Not part of the core's interface. */
#ifndef CUBE_CONFIG_PRIV_H
#define CUBE_CONFIG_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "config.h"

/* Appends "file:line:col: message" placing the message at `node` (its key
 * when at_key is set, for members of a mapping); "file: message" when the
 * node has no recorded position. */
void cube_config_err_at(struct cube_errs *errs, const struct cube_yaml_doc *doc,
                        const cJSON *node, int at_key, const char *fmt, ...)
    CUBE_PRINTF(5, 6);
/* Reports "path: expected <what>, got <v>" at v. Returns -1. */
int cube_config_expected(struct cube_errs *errs,
                         const struct cube_yaml_doc *doc, const cJSON *v,
                         const char *path, const char *what);
/* Writes s into out as a quoted, escaped, length-capped string. */
void cube_config_quote(char *out, size_t outlen, const char *s);
/* Describes a value for "got ..." in messages: "abc" quoted, 8080, true,
 * null, "a mapping", "a list". */
void cube_config_describe(const cJSON *v, char *out, size_t outlen);
/* Reads every conf.d file in cfg->conf_dir into cfg->plugins. A missing
 * directory is an error only when `named` (the conf_dir value in `doc`) is
 * non-NULL. Returns 0, or -1 after appending to errs. */
int cube_config_read_confd(struct cube_config *cfg,
                           const struct cube_yaml_doc *doc,
                           const cJSON *named, struct cube_errs *errs);
/* As cube_config_validate_plugin, with error paths rooted at `root`
 * ("config" for plugins, "auth" for cube.yaml's auth section); pc names
 * the section (name, file, line, col, config node and its doc). */
int cube_config_validate_section(const struct cube_plugin_conf *pc, const char *root,
                                 const char *schema_json, cJSON **out,
                                 struct cube_errs *errs);
/* The JSON Schema of cube.yaml's auth: section (config_auth.c). */
extern const char *const cube_config_auth_schema;

/* ---- value syntax shared by cube.yaml and the environment
 * (config_values.c) ---- */

/* Log level names, NULL-terminated, and the CUBE_LOG_* of each. */
extern const char *const cube_config_level_names[];
extern const int cube_config_level_values[];
/* "host:port", "[v6addr]:port" or ":port" (all interfaces) into *host (a
 * malloc()ed string replacing the old one) and *port. Returns 0, -1 for a
 * malformed value (host and port untouched), -2 when out of memory. */
int cube_config_parse_listen(const char *s, char **host, int *port);
/* Whether s is "sqlite", "sqlite://...", "postgres://..." or
 * "postgresql://..." (a scheme with something after it). */
int cube_config_database_ok(const char *s);
/* 64 hex digits into out. Returns 0, or -1 (out untouched). */
int cube_config_hex_decode32(const char *s, uint8_t out[32]);

/* Checks and stores one of cube.yaml's apps_listen, apps_origin and
 * console_origin keys (path names it). 0, or -1 after reporting
 * (config_apps.c). */
int cube_config_apps_key(struct cube_config *cfg, const struct cube_yaml_doc *doc,
                         struct cube_errs *errs, const cJSON *v, const char *path);

/* Checks and stores cube.yaml's egress: section (config_egress.c). 0, or
 * -1 after reporting. */
int cube_config_egress_key(struct cube_config *cfg, const struct cube_yaml_doc *doc,
                           struct cube_errs *errs, const cJSON *v, const char *path);

/* Applies the CUBE_* environment overrides to cfg, appending an error
 * naming the variable for each bad one (config_env.c). Relative paths
 * they give are made absolute against the working directory. */
void cube_config_apply_env(struct cube_config *cfg, struct cube_errs *errs);

/* ---- relative paths (config_paths.c) ---- */

/* The absolute directory that relative paths of the config file `file`
 * are resolved against: file's own directory, or the working directory
 * when file is NULL or names no directory. malloc'd; NULL with errno set
 * when the working directory is unknown or memory ran out. */
char *cube_config_base_dir(const char *file);
/* Replaces *p, when it is relative and not empty, by base (absolute) and
 * *p joined, without "." segments or repeated slashes. Returns 0, or -1
 * when out of memory (*p untouched). */
int cube_config_make_absolute(char **p, const char *base);

#endif
