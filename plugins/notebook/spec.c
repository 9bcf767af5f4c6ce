/* spec.c — the Notebook kind's checks that its schema (notebook.spec.schema.json) cannot
 * state: quantities that parse (cpu "500m", memory "4Gi", device shares
 * between 0 and 1 or whole devices), environment names, and an IDE this
 * server offers. Each failure names its field. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "notebook.h"

/* The host's message puts the field first ("spec.ide: ..."): msg is the
 * rest only. */
static int fail(char *field, size_t flen, char *msg, size_t mlen, const char *f,
                const char *m)
{
    snprintf(field, flen, "%s", f);
    snprintf(msg, mlen, "%s", m);
    return CUBE_EINVAL;
}

/* A quantity as a number: plain, milli ("500m") or with a binary/decimal
 * suffix ("4Gi", "512M"). -1 when it does not parse or is negative. */
static double quantity(const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return v->valuedouble >= 0 ? v->valuedouble : -1;
    const char *s = cJSON_GetStringValue(v);
    if (!s || !*s || isspace((unsigned char)*s))
        return -1;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || end == s || x < 0 || !isfinite(x))
        return -1;
    static const struct { const char *sfx; double mul; } U[] = {
        {"", 1}, {"m", 1e-3}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12},
        {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}};
    for (size_t i = 0; i < sizeof U / sizeof U[0]; i++)
        if (!strcmp(end, U[i].sfx))
            return x * U[i].mul;
    return -1;
}

static int check_resources(const cJSON *res, char *field, size_t flen, char *msg, size_t mlen)
{
    const cJSON *v;
    char f[160];
    cJSON_ArrayForEach(v, res) {
        snprintf(f, sizeof f, "spec.resources.%s", v->string);
        double q = quantity(v);
        if (q < 0)
            return fail(field, flen, msg, mlen, f, "not a quantity (\"2\", \"500m\", \"4Gi\")");
        if (!strcmp(v->string, "cpu") || !strcmp(v->string, "memory"))
            continue;
        if (!strchr(v->string, '/'))
            return fail(field, flen, msg, mlen, f,
                        "unknown resource (cpu, memory or a device such as nvidia.com/gpu)");
        if (q > 1 && q != floor(q))
            return fail(field, flen, msg, mlen, f,
                        "above 1, only whole devices (a share is between 0 and 1)");
    }
    return CUBE_OK;
}

static int check_env(const cJSON *env, char *field, size_t flen, char *msg, size_t mlen)
{
    const cJSON *v;
    char f[160];
    cJSON_ArrayForEach(v, env) {
        const char *k = v->string;
        int ok = (isalpha((unsigned char)k[0]) || k[0] == '_') && strlen(k) < 128;
        for (const char *p = k; ok && *p; p++)
            ok = isalnum((unsigned char)*p) || *p == '_';
        snprintf(f, sizeof f, "spec.env.%.120s", k);
        if (!ok)
            return fail(field, flen, msg, mlen, f, "not a variable name ([A-Za-z_][A-Za-z0-9_]*)");
        if (!strncmp(k, "CUBE_", 5) || !strncmp(k, "JUPYTER", 7))
            return fail(field, flen, msg, mlen, f, "reserved: Cube sets CUBE_* and JUPYTER*");
    }
    return CUBE_OK;
}

int nb_spec_wants_devices(const void *spec_cjson)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive((const cJSON *)spec_cjson, "resources"))
        if (strcmp(v->string, "cpu") && strcmp(v->string, "memory") && quantity(v) > 0)
            return 1;
    return 0;
}

int nb_validate(void *state, const char *object_json, const char *old_json,
                char *field, size_t flen, char *msg, size_t mlen)
{
    (void)old_json;
    struct nb *nb = state;
    cJSON *obj = cJSON_Parse(object_json);
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const char *ide = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec, "ide"));
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "name"));
    int rc = CUBE_OK;
    if (!obj)
        rc = fail(field, flen, msg, mlen, "spec", "not a JSON object");
    else if (name && strlen(name) > 48)
        rc = fail(field, flen, msg, mlen, "metadata.name", "at most 48 characters for a notebook");
    else if (ide && !strcmp(ide, "vscode") && !nb->conf.vscode_enabled)
        rc = fail(field, flen, msg, mlen, "spec.ide",
                  "vscode is not enabled on this server (notebook plugin: vscode.enabled)");
    else if ((rc = check_resources(cJSON_GetObjectItemCaseSensitive(spec, "resources"),
                                   field, flen, msg, mlen)) == CUBE_OK)
        rc = check_env(cJSON_GetObjectItemCaseSensitive(spec, "env"), field, flen, msg, mlen);
    cJSON_Delete(obj);
    return rc;
}

/* Sets spec.key to v unless it is present. */
static void default_int(cJSON *spec, const char *key, double v)
{
    if (!cJSON_GetObjectItemCaseSensitive(spec, key))
        cJSON_AddNumberToObject(spec, key, v);
}

int nb_defaulting(void *state, const char *object_json, char **out)
{
    struct nb *nb = state;
    cJSON *obj = cJSON_Parse(object_json);
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    *out = NULL;
    if (!cJSON_IsObject(spec)) {
        cJSON_Delete(obj);
        return CUBE_OK;              /* the schema says what is wrong */
    }
    if (!cJSON_GetObjectItemCaseSensitive(spec, "ide"))
        cJSON_AddStringToObject(spec, "ide", "jupyter");
    default_int(spec, "idleTimeoutSeconds", (double)nb->conf.idle_timeout);
    default_int(spec, "expiresAfterSeconds", (double)(nb_spec_wants_devices(spec)
                                                          ? nb->conf.gpu_expires_after
                                                          : nb->conf.expires_after));
    *out = cJSON_PrintUnformatted(obj);
    cJSON_Delete(obj);
    return *out ? CUBE_OK : CUBE_ENOMEM;
}
