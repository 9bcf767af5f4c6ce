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
#include <cube/util/json.h>
#include <cube/util/yaml.h>

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
    cJSON *docs = cu_yaml_parse_all(buf_str(&b), b.len, path, err, errlen);
    buf_free(&b);
    if (!docs)
        return -1;
    cJSON *doc = cJSON_DetachItemFromArray(docs, 0);
    cJSON_Delete(docs);
    if (doc && !cJSON_IsObject(doc)) {
        snprintf(err, errlen, "%s: expected a mapping (contexts, current-context)",
                 path);
        cJSON_Delete(doc);
        return -1;
    }
    *out = doc;
    return 0;
}

int config_context_name_ok(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)name[i] <= ' ' || name[i] == 0x7f)
            return 0;
    return n >= 1 && n <= 253;
}

cJSON *config_find_context(const cJSON *doc, const char *name)
{
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "contexts")) {
        const char *n = cu_str(c, "name");
        if (n && name && !strcmp(n, name))
            return c;
    }
    return NULL;
}

/* Copies the string members server, token and project of from into cfg. */
static int take_settings(const cJSON *from, struct cli_config *cfg)
{
    const char *keys[] = {"server", "token", "project"};
    char **fields[] = {&cfg->server, &cfg->token, &cfg->project};
    for (size_t i = 0; i < 3; i++) {
        const char *v = cu_str(from, keys[i]);
        if (v && config_set(fields[i], v))
            return -1;
    }
    return 0;
}

int config_load(const char *path, const char *use, struct cli_config *cfg,
                char *err, size_t errlen)
{
    cJSON *doc;
    err[0] = '\0';
    if (read_doc(path, &doc, err, errlen))
        return -1;
    const char *name = use ? use : cu_str(doc, "current-context");
    const cJSON *from = doc;
    int rc = 0;
    if (name && *name && !(from = config_find_context(doc, name))) {
        snprintf(err, errlen, "%s: no context named \"%s\" (see 'cubectl config "
                 "get-contexts')", path, name);
        rc = -1;
    } else if (name && *name && config_set(&cfg->context, name)) {
        rc = -1;
    }
    if (!rc && doc && take_settings(from, cfg))
        rc = -1;
    if (rc && !err[0])
        snprintf(err, errlen, "out of memory");
    cJSON_Delete(doc);
    return rc;
}

static int set_key(cJSON *doc, const char *key, const char *value)
{
    cJSON_DeleteItemFromObjectCaseSensitive(doc, key);
    return value && !cJSON_AddStringToObject(doc, key, value) ? -1 : 0;
}

int config_upgrade(cJSON *doc)
{
    static const char *const keys[] = {"server", "token", "project"};
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "contexts")) > 0)
        return 0;
    cJSON *ctx = NULL;
    for (size_t i = 0; i < 3; i++) {
        cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(doc, keys[i]);
        if (!v)
            continue;
        if (!ctx && (!(ctx = cJSON_CreateObject()) ||
                     !cJSON_AddStringToObject(ctx, "name", CONFIG_DEFAULT_CONTEXT))) {
            cJSON_Delete(v);
            cJSON_Delete(ctx);
            return -1;
        }
        cJSON_AddItemToObject(ctx, keys[i], v);
    }
    if (!ctx)
        return 0;
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "contexts");
    cJSON *list = cJSON_AddArrayToObject(doc, "contexts");
    if (!list) {
        cJSON_Delete(ctx);
        return -1;
    }
    cJSON_AddItemToArray(list, ctx);
    return set_key(doc, "current-context", CONFIG_DEFAULT_CONTEXT);
}

cJSON *config_read_doc(const char *path, char *err, size_t errlen)
{
    cJSON *doc;
    if (read_doc(path, &doc, err, errlen))
        return NULL;
    if (!doc)
        doc = cJSON_CreateObject();
    if (!doc || config_upgrade(doc)) {
        cJSON_Delete(doc);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    return doc;
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

int config_write_doc(const char *path, const cJSON *doc, char *err,
                     size_t errlen)
{
    struct buf text = {0};
    if (json_pretty(doc, &text)) {
        snprintf(err, errlen, "%s: out of memory", path);
        buf_free(&text);
        return -1;
    }
    int rc = make_parents(path) ? -1 : write_atomically(path, buf_str(&text));
    if (rc)
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    buf_free(&text);
    return rc;
}

/* The context named name in doc, added (last) when missing; NULL when out
 * of memory. */
static cJSON *context_for(cJSON *doc, const char *name)
{
    cJSON *ctx = config_find_context(doc, name);
    if (ctx)
        return ctx;
    cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "contexts");
    if (!cJSON_IsArray(list)) {
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "contexts");
        list = cJSON_AddArrayToObject(doc, "contexts");
    }
    ctx = list ? cJSON_CreateObject() : NULL;
    if (!ctx || !cJSON_AddStringToObject(ctx, "name", name)) {
        cJSON_Delete(ctx);
        return NULL;
    }
    cJSON_AddItemToArray(list, ctx);
    return ctx;
}

int config_save(const char *path, const struct cli_config *cfg, char *err,
                size_t errlen)
{
    const char *name = cfg->context ? cfg->context : CONFIG_DEFAULT_CONTEXT;
    cJSON *doc = config_read_doc(path, err, errlen);
    if (!doc)   /* an unreadable old file is replaced, not kept */
        doc = cJSON_CreateObject();
    cJSON *ctx = doc ? context_for(doc, name) : NULL;
    if (!ctx || set_key(ctx, "server", cfg->server) ||
        set_key(ctx, "token", cfg->token) || set_key(ctx, "project", cfg->project) ||
        set_key(doc, "current-context", name)) {
        snprintf(err, errlen, "%s: out of memory", path);
        cJSON_Delete(doc);
        return -1;
    }
    int rc = config_write_doc(path, doc, err, errlen);
    cJSON_Delete(doc);
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
    free(cfg->context);
    free(cfg->server);
    free(cfg->token);
    free(cfg->project);
    memset(cfg, 0, sizeof *cfg);
}
