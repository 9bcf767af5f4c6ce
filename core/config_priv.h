/* config_priv.h — helpers shared by config.c and config_plugins.c. Not part
 * of the core's interface. */
#ifndef CUBE_CONFIG_PRIV_H
#define CUBE_CONFIG_PRIV_H

#include <stddef.h>

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
extern const char cube_config_auth_schema[];

#endif
