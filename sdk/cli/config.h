/* config.h — where cubectl finds its server, token and project: the config
 * file (~/.config/cube/config, or $CUBE_CONFIG), then the environment
 * (CUBE_API, CUBE_TOKEN, CUBE_PROJECT, set for jobs running inside Cube),
 * then command-line flags, each overriding the one before.
 *
 * The file holds named contexts, one per server (or per server and
 * project), and the current one:
 *   {"current-context": "cube.example.com",
 *    "contexts": [{"name": "cube.example.com", "server": URL,
 *                  "token": T, "project": P}]}
 * An older file with only top-level server/token/project still reads; the
 * first write turns it into a context named "default". */
#ifndef CUBECTL_CONFIG_H
#define CUBECTL_CONFIG_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define CONFIG_DEFAULT_CONTEXT "default"

struct cli_config {
    char *server;    /* base URL, or NULL */
    char *token;     /* bearer token, or NULL */
    char *project;   /* default project, or NULL (then the server's) */
    char *context;   /* the context these came from; NULL: none (an older
                        file, or none at all) */
};

/* Returns the config file's path (malloc'd): $CUBE_CONFIG, else
 * $HOME/.config/cube/config; NULL when neither variable is set. */
char *config_path(void);
/* Reads path (JSON or YAML) into cfg, whose fields must be NULL: the
 * context named `use`, or (use NULL) the file's current context, or the
 * top-level settings of a file without one. A missing file leaves cfg
 * empty and is no error; a context name that is not in the file is.
 * Returns 0, or -1 with err set. */
int config_load(const char *path, const char *use, struct cli_config *cfg,
                char *err, size_t errlen);
/* Stores cfg as the context cfg->context (CONFIG_DEFAULT_CONTEXT when
 * NULL), created or replaced, and makes it the current one; other
 * contexts and keys cubectl does not know are kept. Returns 0, or -1 with
 * err set. */
int config_save(const char *path, const struct cli_config *cfg, char *err,
                size_t errlen);
/* Reads the file as a document (an empty object when it does not exist),
 * in the context form (see config_upgrade). NULL with err set on failure. */
cJSON *config_read_doc(const char *path, char *err, size_t errlen);
/* Writes doc to path as JSON: creates missing directories (mode 0700) and
 * replaces the file atomically with one of mode 0600. Returns 0, or -1
 * with err set. */
int config_write_doc(const char *path, const cJSON *doc, char *err,
                     size_t errlen);
/* Turns an older document's top-level server/token/project into the
 * context "default", made current; leaves other documents alone.
 * Returns 0, or -1 when out of memory. */
int config_upgrade(cJSON *doc);
/* The context object named name in doc, or NULL. */
cJSON *config_find_context(const cJSON *doc, const char *name);
/* 1 when name may name a context: 1 to 253 printable characters, no
 * spaces. */
int config_context_name_ok(const char *name);
/* Overrides cfg's fields with CUBE_API, CUBE_TOKEN and CUBE_PROJECT when
 * those are set and not empty. Returns 0, or -1 when out of memory. */
int config_apply_env(struct cli_config *cfg);
/* Replaces *field with a copy of value (NULL clears it). Returns 0 or -1. */
int config_set(char **field, const char *value);
/* Frees cfg's fields and zeroes them. */
void config_free(struct cli_config *cfg);

#endif
