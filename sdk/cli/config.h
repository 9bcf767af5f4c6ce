/* config.h — where cubectl finds its server, token and project: the config
 * file (~/.config/cube/config, or $CUBE_CONFIG), then the environment
 * (CUBE_API, CUBE_TOKEN, CUBE_PROJECT, set for jobs running inside Cube),
 * then command-line flags, each overriding the one before. */
#ifndef CUBECTL_CONFIG_H
#define CUBECTL_CONFIG_H

#include <stddef.h>

struct cli_config {
    char *server;    /* base URL, or NULL */
    char *token;     /* bearer token, or NULL */
    char *project;   /* default project, or NULL */
};

/* Returns the config file's path (malloc'd): $CUBE_CONFIG, else
 * $HOME/.config/cube/config; NULL when neither variable is set. */
char *config_path(void);
/* Reads path (JSON or YAML) into cfg, whose fields must be NULL. A missing
 * file leaves cfg empty and is no error. Returns 0, or -1 with err set. */
int config_load(const char *path, struct cli_config *cfg, char *err,
                size_t errlen);
/* Writes cfg to path as JSON, keeping keys of an existing file that cubectl
 * does not know; creates missing directories (mode 0700) and replaces the
 * file atomically with one of mode 0600. Returns 0, or -1 with err set. */
int config_save(const char *path, const struct cli_config *cfg, char *err,
                size_t errlen);
/* Overrides cfg's fields with CUBE_API, CUBE_TOKEN and CUBE_PROJECT when
 * those are set and not empty. Returns 0, or -1 when out of memory. */
int config_apply_env(struct cli_config *cfg);
/* Replaces *field with a copy of value (NULL clears it). Returns 0 or -1. */
int config_set(char **field, const char *value);
/* Frees cfg's fields and zeroes them. */
void config_free(struct cli_config *cfg);

#endif
