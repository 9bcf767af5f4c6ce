/* config.c — see config.h. The file holds a bearer token, hence mode 0600
 * from the moment it exists (mkstemp) and an atomic rename over the old
 * one, so no reader ever sees it half-written or world-readable. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "json_pretty.h"
#include "yaml_conv.h"

char *config_path(void)
{
    const char *env = getenv("CUBE_CONFIG");
    const char *home = getenv("HOME");
    char *p = NULL;
    if (env && *env)
        return strdup(env);
    if (!home || !*home || asprintf(&p, "%s/.config/cube/config", home) < 0)
        return NULL;
    return p;
}

int config_set(char **field, const char *value)
{
    char *copy = value ? strdup(value) : NULL;
    if (value && !copy)
        return -1;
    free(*field);
    *field = copy;
    return 0;
}

/* Reads path into a cJSON object; *out NULL when the file does not exist. */
static int read_doc(const char *path, cJSON **out, char *err, size_t errlen)
{
    struct buf b = {0};
    *out = NULL;
    if (buf_read_file(&b, path)) {
        int missing = errno == ENOENT;
        if (!missing)
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
        buf_free(&b);
        return missing ? 0 : -1;
    }
    cJSON *docs = yaml_parse_docs(buf_str(&b), b.len, path, err, errlen);
    buf_free(&b);
    if (!docs)
        return -1;
    cJSON *doc = cJSON_DetachItemFromArray(docs, 0);
    cJSON_Delete(docs);
    if (doc && !cJSON_IsObject(doc)) {
        snprintf(err, errlen, "%s: expected a mapping of server, token, project",
                 path);
        cJSON_Delete(doc);
        return -1;
    }
    *out = doc;
    return 0;
}

static int take_string(const cJSON *doc, const char *key, char **field)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
    return cJSON_IsString(v) ? config_set(field, v->valuestring) : 0;
}

int config_load(const char *path, struct cli_config *cfg, char *err,
                size_t errlen)
{
    cJSON *doc;
    if (read_doc(path, &doc, err, errlen))
        return -1;
    int rc = 0;
    if (doc && (take_string(doc, "server", &cfg->server) ||
                take_string(doc, "token", &cfg->token) ||
                take_string(doc, "project", &cfg->project))) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    cJSON_Delete(doc);
    return rc;
}

/* mkdir -p of path's parent directories, mode 0700 for those it creates. */
static int make_parents(const char *path)
{
    char *dir = strdup(path);
    if (!dir)
        return -1;
    for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        if (mkdir(dir, 0700) && errno != EEXIST) {
            free(dir);
            return -1;
        }
        *p = '/';
    }
    free(dir);
    return 0;
}

static int set_key(cJSON *doc, const char *key, const char *value)
{
    cJSON_DeleteItemFromObjectCaseSensitive(doc, key);
    return value && !cJSON_AddStringToObject(doc, key, value) ? -1 : 0;
}

/* Writes text to a new 0600 file next to path, then renames it over path. */
static int write_atomically(const char *path, const char *text)
{
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
        return -1;
    int fd = mkstemp(tmp);   /* creates the file with mode 0600 */
    if (fd < 0) {
        free(tmp);
        return -1;
    }
    size_t len = strlen(text);
    int ok = fchmod(fd, 0600) == 0 && write(fd, text, len) == (ssize_t)len &&
             fsync(fd) == 0;
    int saved = errno;
    ok = close(fd) == 0 && ok && rename(tmp, path) == 0;
    if (!ok) {
        saved = errno ? errno : saved;
        unlink(tmp);
    }
    free(tmp);
    errno = saved;
    return ok ? 0 : -1;
}

int config_save(const char *path, const struct cli_config *cfg, char *err,
                size_t errlen)
{
    cJSON *doc;
    if (read_doc(path, &doc, err, errlen))
        doc = NULL;   /* an unreadable old file is replaced, not kept */
    if (!doc)
        doc = cJSON_CreateObject();
    struct buf text = {0};
    if (!doc || set_key(doc, "server", cfg->server) ||
        set_key(doc, "token", cfg->token) ||
        set_key(doc, "project", cfg->project) || json_pretty(doc, &text)) {
        snprintf(err, errlen, "%s: out of memory", path);
        cJSON_Delete(doc);
        buf_free(&text);
        return -1;
    }
    cJSON_Delete(doc);
    int rc = make_parents(path) ? -1 : write_atomically(path, buf_str(&text));
    if (rc)
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    buf_free(&text);
    return rc;
}

int config_apply_env(struct cli_config *cfg)
{
    static const char *const names[] = {"CUBE_API", "CUBE_TOKEN", "CUBE_PROJECT"};
    char **fields[] = {&cfg->server, &cfg->token, &cfg->project};
    for (size_t i = 0; i < 3; i++) {
        const char *v = getenv(names[i]);
        if (v && *v && config_set(fields[i], v))
            return -1;
    }
    return 0;
}

void config_free(struct cli_config *cfg)
{
    free(cfg->server);
    free(cfg->token);
    free(cfg->project);
    memset(cfg, 0, sizeof *cfg);
}
