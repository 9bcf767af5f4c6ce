/* config_env.c — environment overrides applied over cube.yaml and conf.d
 * (CUBE_LISTEN, CUBE_APPS_LISTEN, CUBE_DATA_DIR, CUBE_DATABASE_URL, CUBE_PLUGIN_DIR,
 * CUBE_SECRET_KEY_FILE, CUBE_LOG_LEVEL, CUBE_ADMIN_TOKEN; see config.h). The two directories
 * are made absolute against the working directory. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "config_priv.h"

static void env_string(const char *var, char **dst, struct cube_errs *errs)
{
    const char *v = getenv(var);
    char *copy;
    if (!v)
        return;
    if (!*v) {
        cube_errs_add(errs, "%s: must not be empty", var);
        return;
    }
    copy = strdup(v);
    if (!copy) {
        cube_errs_add(errs, "%s: out of memory", var);
        return;
    }
    free(*dst);
    *dst = copy;
}

/* A path variable: relative to the working directory, made absolute. */
static void env_path(const char *var, char **dst, struct cube_errs *errs)
{
    if (!getenv(var))
        return;
    env_string(var, dst, errs);
    char *cwd = cube_config_base_dir(NULL);
    if (!cwd)
        cube_errs_add(errs, "%s: the working directory is unknown (%s)", var,
                      strerror(errno));
    else if (cube_config_make_absolute(dst, cwd))
        cube_errs_add(errs, "%s: out of memory", var);
    free(cwd);
}

static void env_listen(const char *var, char **host, int *port, int *set,
                       struct cube_errs *errs)
{
    const char *v = getenv(var);
    char q[96];
    if (!v)
        return;
    int rc = cube_config_parse_listen(v, host, port);
    cube_config_quote(q, sizeof q, v);
    if (rc == -1)
        cube_errs_add(errs, "%s: expected \"host:port\", got %s", var, q);
    else if (rc == -2)
        cube_errs_add(errs, "%s: out of memory", var);
    else if (set)
        *set = 1;
}

static void env_database(struct cube_config *cfg, struct cube_errs *errs)
{
    const char *v = getenv("CUBE_DATABASE_URL");
    if (v && !cube_config_database_ok(v)) {
        cube_errs_add(errs, "CUBE_DATABASE_URL: expected \"sqlite\", "
                      "\"sqlite:///path\" or \"postgres://...\"");
        return;
    }
    env_string("CUBE_DATABASE_URL", &cfg->database, errs);
}

static void env_level(struct cube_config *cfg, struct cube_errs *errs)
{
    const char *v = getenv("CUBE_LOG_LEVEL");
    char q[96];
    if (!v)
        return;
    for (int i = 0; cube_config_level_names[i]; i++) {
        if (!strcmp(v, cube_config_level_names[i])) {
            cfg->log_level = cube_config_level_values[i];
            return;
        }
    }
    cube_config_quote(q, sizeof q, v);
    cube_errs_add(errs, "CUBE_LOG_LEVEL: expected debug, info, warn or "
                  "error, got %s", q);
}

/* The token itself is hashed at once and never kept. */
static void env_token(struct cube_config *cfg, struct cube_errs *errs)
{
    const char *v = getenv("CUBE_ADMIN_TOKEN");
    unsigned int n = 0;
    if (!v)
        return;
    if (!*v) {
        cube_errs_add(errs, "CUBE_ADMIN_TOKEN: must not be empty");
        return;
    }
    if (EVP_Digest(v, strlen(v), cfg->admin_token_sha256, &n, EVP_sha256(),
                   NULL) != 1 || n != sizeof cfg->admin_token_sha256) {
        cube_errs_add(errs, "CUBE_ADMIN_TOKEN: cannot hash the token");
        cfg->has_admin_token = 0;
        return;
    }
    cfg->has_admin_token = 1;
}

void cube_config_apply_env(struct cube_config *cfg, struct cube_errs *errs)
{
    env_listen("CUBE_LISTEN", &cfg->listen_host, &cfg->listen_port, NULL, errs);
    env_listen("CUBE_APPS_LISTEN", &cfg->apps_listen_host, &cfg->apps_listen_port,
               &cfg->apps_listen_set, errs);
    env_path("CUBE_DATA_DIR", &cfg->data_dir, errs);
    env_database(cfg, errs);
    env_path("CUBE_PLUGIN_DIR", &cfg->plugin_dir, errs);
    env_path("CUBE_SECRET_KEY_FILE", &cfg->secret_key_file, errs);
    env_level(cfg, errs);
    env_token(cfg, errs);
}
