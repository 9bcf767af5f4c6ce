/* sim_conf.c — executor-sim's configuration: read from the config JSON
 * (defaults applied here too, since a fake host applies none) and checked
 * beyond what the JSON Schema says, each error naming its setting. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* Writes "<path>: <reason>" into err; returns CUBE_EINVAL. */
CUBE_PRINTF(4, 5)
static int bad(char *err, size_t len, const char *path, const char *fmt, ...)
{
    int n = snprintf(err, len, "%s: ", path);
    if (n < 0 || (size_t)n >= len)
        return CUBE_EINVAL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, len - (size_t)n, fmt, ap);
    va_end(ap);
    return CUBE_EINVAL;
}

/* "<path>.<key>", or key alone when path is NULL, written into buf. */
static const char *setting(char *buf, size_t len, const char *path, const char *key)
{
    snprintf(buf, len, "%s%s%s", path ? path : "", path ? "." : "", key);
    return buf;
}

/* Nonzero for a quantity: digits, an optional fraction, then for cpu an
 * optional "m", for bytes an optional exponent or unit (Ki..Ei, k..E). */
static int qty_ok(const char *s, int bytes)
{
    static const char *const UNITS[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
                                        "k", "M", "G", "T", "P", "E", NULL};
    if (!isdigit((unsigned char)*s))
        return 0;
    while (isdigit((unsigned char)*s))
        s++;
    if (*s == '.' && isdigit((unsigned char)s[1]))
        for (s++; isdigit((unsigned char)*s); s++)
            ;
    if (!bytes)
        return *s == '\0' || strcmp(s, "m") == 0;
    if ((*s == 'e' || *s == 'E') && isdigit((unsigned char)s[1])) {
        for (s++; isdigit((unsigned char)*s); s++)
            ;
        return *s == '\0';
    }
    for (int i = 0; UNITS[i]; i++)
        if (strcmp(s, UNITS[i]) == 0)
            return 1;
    return 0;
}

/* Nonzero for [a-z0-9][-a-z0-9]* (a node-name prefix, a DNS label). */
static int label_ok(const char *s, int allow_dash_end)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63 || s[0] == '-' || (!allow_dash_end && s[n - 1] == '-'))
        return 0;
    for (; *s; s++)
        if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '-')
            return 0;
    return 1;
}

/* Copies string member key of o (def when absent) into out. */
static int get_str(const cJSON *o, const char *key, const char *def, char *out,
                   size_t cap, const char *path, char *err, size_t len)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    const char *v = def;
    char n[128];
    if (it) {
        if (!cJSON_IsString(it))
            return bad(err, len, setting(n, sizeof n, path, key), "must be a string");
        v = it->valuestring;
    }
    if (strlen(v) >= cap)
        return bad(err, len, setting(n, sizeof n, path, key), "longer than %zu bytes", cap - 1);
    memcpy(out, v, strlen(v) + 1);
    return CUBE_OK;
}

/* Reads integer member key of o (def when absent), in [min, max]. */
static int get_int(const cJSON *o, const char *key, int def, int min, int max,
                   int *out, const char *path, char *err, size_t len)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    char n[128];
    *out = def;
    if (!it)
        return CUBE_OK;
    double v = cJSON_GetNumberValue(it);
    if (!cJSON_IsNumber(it) || v != floor(v) || v < min || v > max)
        return bad(err, len, setting(n, sizeof n, path, key),
                   "must be an integer from %d to %d", min, max);
    *out = (int)v;
    return CUBE_OK;
}

/* Reads number member key of o (def when absent), in [min, max]. */
static int get_num(const cJSON *o, const char *key, double def, double min,
                   double max, double *out, char *err, size_t len)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = def;
    if (!it)
        return CUBE_OK;
    if (!cJSON_IsNumber(it) || !(it->valuedouble >= min && it->valuedouble <= max))
        return bad(err, len, key, "must be a number from %g to %g", min, max);
    *out = it->valuedouble;
    return CUBE_OK;
}

/* The labels object of a group, checked (string values), as JSON text. */
static int read_labels(struct sim_group *g, const cJSON *o, const char *path,
                       char *err, size_t len)
{
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(o, "labels"), *l;
    char n[96];
    if (labels && !cJSON_IsObject(labels))
        return bad(err, len, setting(n, sizeof n, path, "labels"), "must be an object of strings");
    cJSON_ArrayForEach(l, labels)
        if (!cJSON_IsString(l) || !l->string[0] || strlen(l->string) > 253)
            return bad(err, len, setting(n, sizeof n, path, "labels"),
                       "\"%.64s\": must be a string", l->string);
    g->labels_json = labels ? cJSON_PrintUnformatted(labels) : strdup("{}");
    return g->labels_json ? CUBE_OK : bad(err, len, path, "out of memory");
}

/* The devices object of a group (absent: no devices). */
static int read_devices(struct sim_group *g, const cJSON *o, const char *path,
                        char *err, size_t len)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "devices");
    char p[96];
    snprintf(p, sizeof p, "%s.devices", path);
    if (d && !cJSON_IsObject(d))
        return bad(err, len, p, "must be an object");
    int rc = get_str(d, "resource", "nvidia.com/gpu", g->resource, sizeof g->resource, p, err, len);
    if (!rc)
        rc = get_str(d, "model", "sim", g->model, sizeof g->model, p, err, len);
    if (!rc)
        rc = get_str(d, "memory", "80Gi", g->dev_memory, sizeof g->dev_memory, p, err, len);
    if (!rc)
        rc = get_int(d, "count", 0, 0, 1024, &g->dev_count, p, err, len);
    int most = g->dev_count > 0 ? g->dev_count : 1;
    if (!rc)
        rc = get_int(d, "domains", 1, 1, most, &g->domains, p, err, len);
    if (!rc)
        rc = get_int(d, "numa", 1, 1, most, &g->numa, p, err, len);
    if (rc)
        return rc;
    if (!strchr(g->resource, '/') || g->resource[0] == '/')
        return bad(err, len, setting(p, sizeof p, path, "devices.resource"),
                   "must look like vendor.com/device");
    if (!qty_ok(g->dev_memory, 1))
        return bad(err, len, setting(p, sizeof p, path, "devices.memory"),
                   "must be a byte quantity such as 141Gi");
    return g->model[0] ? CUBE_OK
                       : bad(err, len, setting(p, sizeof p, path, "devices.model"),
                             "must not be empty");
}

int sim_group_parse(struct sim_group *g, const cJSON *o, const char *path,
                    char *err, size_t len)
{
    memset(g, 0, sizeof *g);
    if (!cJSON_IsObject(o))
        return bad(err, len, path, "must be an object");
    if (!cJSON_HasObjectItem(o, "prefix") || !cJSON_HasObjectItem(o, "count"))
        return bad(err, len, path, "prefix and count are required");
    int rc = get_str(o, "prefix", "", g->prefix, sizeof g->prefix, path, err, len);
    if (!rc)
        rc = get_int(o, "count", 1, 1, 100000, &g->count, path, err, len);
    if (!rc)
        rc = get_str(o, "cpu", "8", g->cpu, sizeof g->cpu, path, err, len);
    if (!rc)
        rc = get_str(o, "memory", "32Gi", g->memory, sizeof g->memory, path, err, len);
    char n[96];
    if (!rc && !label_ok(g->prefix, 1))
        rc = bad(err, len, setting(n, sizeof n, path, "prefix"), "must be lowercase "
                 "letters, digits and '-', starting with a letter or digit");
    if (!rc && strlen(g->prefix) + (size_t)snprintf(NULL, 0, "%d", g->count - 1) > 63)
        rc = bad(err, len, setting(n, sizeof n, path, "prefix"),
                 "too long: node names must fit in 63 bytes");
    if (!rc && !qty_ok(g->cpu, 0))
        rc = bad(err, len, setting(n, sizeof n, path, "cpu"),
                 "must be a cpu quantity such as 96 or 500m");
    if (!rc && !qty_ok(g->memory, 1))
        rc = bad(err, len, setting(n, sizeof n, path, "memory"),
                 "must be a byte quantity such as 1Ti");
    if (!rc)
        rc = read_labels(g, o, path, err, len);
    if (!rc)
        rc = read_devices(g, o, path, err, len);
    if (rc)
        sim_group_free(g);
    return rc;
}

void sim_group_free(struct sim_group *g)
{
    cJSON_free(g->labels_json);
    g->labels_json = NULL;
}

/* The groups of node_groups (absent: one default group of 4 nodes). */
static int read_groups(struct sim_conf *c, const cJSON *root, char *err, size_t len)
{
    static const char DEFAULT[] =
        "[{\"prefix\":\"sim-\",\"count\":4,\"cpu\":\"16\",\"memory\":\"64Gi\","
        "\"devices\":{\"resource\":\"nvidia.com/gpu\",\"count\":8,\"model\":\"H200\","
        "\"memory\":\"141Gi\",\"domains\":1,\"numa\":2}}]";
    cJSON *def = NULL;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "node_groups"), *g;
    if (!list)
        list = def = cJSON_Parse(DEFAULT);
    int rc = CUBE_OK, n = cJSON_GetArraySize(list);
    if (!cJSON_IsArray(list))
        rc = bad(err, len, "node_groups", "must be an array of node groups");
    else if (n > 0 && !(c->groups = calloc((size_t)n, sizeof *c->groups)))
        rc = bad(err, len, "node_groups", "out of memory");
    const cJSON *items = rc ? NULL : list;
    cJSON_ArrayForEach(g, items) {
        char path[48];
        snprintf(path, sizeof path, "node_groups[%d]", c->n_groups);
        if ((rc = sim_group_parse(&c->groups[c->n_groups], g, path, err, len)))
            break;
        for (int i = 0; i < c->n_groups && !rc; i++)
            if (strcmp(c->groups[i].prefix, c->groups[c->n_groups].prefix) == 0)
                rc = bad(err, len, path, "prefix \"%s\" is used by node_groups[%d] too",
                         c->groups[i].prefix, i);
        c->n_groups++;
    }
    cJSON_Delete(def);
    return rc;
}

int sim_conf_parse(struct sim_conf *c, const char *json, char *err, size_t len)
{
    memset(c, 0, sizeof *c);
    cJSON *root = cJSON_Parse(json ? json : "{}");
    int rc = cJSON_IsObject(root) ? CUBE_OK : bad(err, len, "config", "must be an object");
    if (!rc)
        rc = get_str(root, "pool", "sim", c->pool, sizeof c->pool, NULL, err, len);
    if (!rc && !label_ok(c->pool, 0))
        rc = bad(err, len, "pool", "must be a DNS label (lowercase letters, digits, '-')");
    if (!rc)
        rc = get_num(root, "run_seconds", 60, 0, 31536000, &c->run_seconds, err, len);
    if (!rc)
        rc = get_num(root, "time_scale", 1, 0.001, 1e6, &c->time_scale, err, len);
    if (!rc)
        rc = get_int(root, "tick_ms", 100, 1, 60000, &c->tick_ms, NULL, err, len);
    const cJSON *admin = cJSON_GetObjectItemCaseSensitive(root, "admin_routes");
    if (!rc && admin && !cJSON_IsBool(admin))
        rc = bad(err, len, "admin_routes", "must be true or false");
    c->admin_routes = !admin || cJSON_IsTrue(admin);
    if (!rc)
        rc = read_groups(c, root, err, len);
    cJSON_Delete(root);
    if (rc)
        sim_conf_free(c);
    return rc;
}

void sim_conf_free(struct sim_conf *c)
{
    for (int i = 0; i < c->n_groups; i++)
        sim_group_free(&c->groups[i]);
    free(c->groups);
    c->groups = NULL;
    c->n_groups = 0;
}
