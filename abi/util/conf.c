/* conf.c — typed readers over a plugin's JSON config; see cube/util/conf.h. */
#include <cube/util/conf.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cu_conf cu_conf_sub(const struct cu_conf *c, const char *key, char *buf, size_t cap)
{
    struct cu_conf sub = *c;
    snprintf(buf, cap, "%s%s%s", c->path ? c->path : "", c->path ? "." : "", key);
    sub.obj = cJSON_GetObjectItemCaseSensitive(c->obj, key);
    sub.path = buf;
    return sub;
}

struct cu_conf cu_conf_item(const struct cu_conf *c, const char *key, int i, char *buf,
                            size_t cap)
{
    struct cu_conf sub = *c;
    snprintf(buf, cap, "%s%s%s[%d]", c->path ? c->path : "", c->path ? "." : "", key, i);
    sub.obj = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c->obj, key), i);
    sub.path = buf;
    return sub;
}

int cu_conf_bad(const struct cu_conf *c, const char *key, const char *fmt, ...)
{
    if (!c->err || !c->len)
        return CUBE_EINVAL;
    const char *path = c->path, *dot = path && key ? "." : "";
    if (!path && !key)
        key = "config";
    int n = snprintf(c->err, c->len, "%s%s%s%s%s: ", c->prefix ? c->prefix : "",
                     c->prefix ? ": " : "", path ? path : "", dot, key ? key : "");
    if (n < 0 || (size_t)n >= c->len)
        return CUBE_EINVAL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + n, c->len - (size_t)n, fmt, ap);
    va_end(ap);
    return CUBE_EINVAL;
}

/* Member key, or NULL when absent or JSON null. */
static const cJSON *member(const struct cu_conf *c, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(c->obj, key);
    return it && !cJSON_IsNull(it) ? it : NULL;
}

int cu_conf_str(const struct cu_conf *c, const char *key, const char *def, char **out)
{
    const cJSON *it = member(c, key);
    const char *v = def;
    *out = NULL;
    if (it) {
        if (!cJSON_IsString(it))
            return cu_conf_bad(c, key, "must be a string");
        v = it->valuestring;
    }
    if (v && !(*out = strdup(v))) {
        cu_conf_bad(c, key, "out of memory");
        return CUBE_ENOMEM;
    }
    return CUBE_OK;
}

int cu_conf_strbuf(const struct cu_conf *c, const char *key, const char *def, char *out,
                   size_t cap)
{
    const cJSON *it = member(c, key);
    const char *v = def ? def : "";
    if (it) {
        if (!cJSON_IsString(it))
            return cu_conf_bad(c, key, "must be a string");
        v = it->valuestring;
    }
    size_t n = strlen(v);
    if (n >= cap)
        return cu_conf_bad(c, key, "must be at most %zu bytes", cap ? cap - 1 : 0);
    memcpy(out, v, n + 1);
    return CUBE_OK;
}

int cu_conf_bool(const struct cu_conf *c, const char *key, int def, int *out)
{
    const cJSON *it = member(c, key);
    *out = def;
    if (!it)
        return CUBE_OK;
    if (!cJSON_IsBool(it))
        return cu_conf_bad(c, key, "must be true or false");
    *out = cJSON_IsTrue(it);
    return CUBE_OK;
}

int cu_conf_int(const struct cu_conf *c, const char *key, long long def, long long min,
                long long max, long long *out)
{
    const cJSON *it = member(c, key);
    *out = def;
    if (!it)
        return CUBE_OK;
    double v = cJSON_IsNumber(it) ? it->valuedouble : NAN;
    /* 2^63 as a double: the first value past a long long */
    if (!(v == floor(v)) || !(v >= (double)min) || !(v <= (double)max) ||
        v >= 9223372036854775808.0)
        return cu_conf_bad(c, key, "must be a whole number from %lld to %lld", min, max);
    *out = (long long)v;
    return CUBE_OK;
}

int cu_conf_intv(const struct cu_conf *c, const char *key, int def, int min, int max,
                 int *out)
{
    long long v;
    int rc = cu_conf_int(c, key, def, min, max, &v);
    *out = rc == CUBE_OK ? (int)v : def;
    return rc;
}

int cu_conf_num(const struct cu_conf *c, const char *key, double def, double min,
                double max, double *out)
{
    const cJSON *it = member(c, key);
    *out = def;
    if (!it)
        return CUBE_OK;
    if (!cJSON_IsNumber(it) || !(it->valuedouble >= min && it->valuedouble <= max))
        return cu_conf_bad(c, key, "must be a number from %g to %g", min, max);
    *out = it->valuedouble;
    return CUBE_OK;
}

int cu_conf_known(const struct cu_conf *c, const char *const *known)
{
    for (const cJSON *it = cJSON_IsObject(c->obj) ? c->obj->child : NULL; it; it = it->next) {
        int found = 0;
        for (size_t i = 0; known[i] && !found; i++)
            found = strcmp(it->string, known[i]) == 0;
        if (!found)
            return cu_conf_bad(c, it->string, "unknown setting");
    }
    return CUBE_OK;
}

int cu_conf_parse(const char *json, const char *prefix, char *err, size_t len,
                  cJSON **root)
{
    struct cu_conf c = {.prefix = prefix, .err = err, .len = len};
    *root = cJSON_Parse(json ? json : "{}");
    if (cJSON_IsObject(*root))
        return CUBE_OK;
    cJSON_Delete(*root);
    *root = NULL;
    return cu_conf_bad(&c, NULL, "must be a mapping");
}
