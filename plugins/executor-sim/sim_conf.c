/* sim_conf.c — executor-sim's configuration: read from the config JSON
 * (defaults applied here too, since a fake host applies none) and checked
 * beyond what the JSON Schema says, each error naming its setting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/util/conf.h>
#include <cube/util/str.h>

#include "sim.h"

/* A reader of object o at path (NULL: the top) whose errors say
 * "<path>.<key>: ..." into the caller's err and len. */
#define AT(o, at) (&(struct cu_conf){.obj = (o), .path = (at), .err = err, .len = len})

/* Nonzero for a node-name prefix: a DNS label that may end in '-' ("sim-"). */
static int prefix_ok(const char *s)
{
    size_t n = strlen(s);
    return n >= 1 && n <= 63 && s[0] != '-' &&
           strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

/* The labels object of a group, checked (string values), as JSON text. */
static int read_labels(struct sim_group *g, const cJSON *o, const char *path,
                       char *err, size_t len)
{
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(o, "labels"), *l;
    if (labels && !cJSON_IsObject(labels))
        return cu_conf_bad(AT(NULL, path), "labels", "must be an object of strings");
    cJSON_ArrayForEach(l, labels)
        if (!cJSON_IsString(l) || !l->string[0] || strlen(l->string) > 253)
            return cu_conf_bad(AT(NULL, path), "labels", "\"%.64s\": must be a string", l->string);
    g->labels_json = labels ? cJSON_PrintUnformatted(labels) : strdup("{}");
    return g->labels_json ? CUBE_OK : cu_conf_bad(AT(NULL, path), NULL, "out of memory");
}

/* address and endpoint_address: IPv4 addresses with room for every node. */
static int read_addresses(struct sim_group *g, const cJSON *o, const char *path,
                          char *err, size_t len)
{
    static const char *const KEYS[] = {"address", "endpoint_address"};
    char *bufs[] = {g->address, g->endpoint_address}, last[16];
    for (int k = 0; k < 2; k++) {
        int rc = cu_conf_strbuf(AT(o, path), KEYS[k], "", bufs[k], sizeof g->address);
        if (rc)
            return rc;
        if (bufs[k][0] && sim_ipv4_nth(bufs[k], g->count - 1, last, sizeof last) < 0)
            return cu_conf_bad(AT(NULL, path), KEYS[k], "must be an IPv4 address with room "
                               "for count nodes after it");
    }
    return CUBE_OK;
}

/* The devices object of a group (absent: no devices). */
static int read_devices(struct sim_group *g, const cJSON *o, const char *path,
                        char *err, size_t len)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "devices");
    char p[96];
    snprintf(p, sizeof p, "%s.devices", path);
    if (d && !cJSON_IsObject(d))
        return cu_conf_bad(AT(NULL, p), NULL, "must be an object");
    int rc = cu_conf_strbuf(AT(d, p), "resource",
                            "nvidia.com/gpu", g->resource, sizeof g->resource);
    if (!rc)
        rc = cu_conf_strbuf(AT(d, p), "model", "sim", g->model, sizeof g->model);
    if (!rc)
        rc = cu_conf_strbuf(AT(d, p), "memory", "80Gi", g->dev_memory, sizeof g->dev_memory);
    if (!rc)
        rc = cu_conf_intv(AT(d, p), "count", 0, 0, 1024, &g->dev_count);
    int most = g->dev_count > 0 ? g->dev_count : 1;
    if (!rc)
        rc = cu_conf_intv(AT(d, p), "domains", 1, 1, most, &g->domains);
    if (!rc)
        rc = cu_conf_intv(AT(d, p), "numa", 1, 1, most, &g->numa);
    if (rc)
        return rc;
    if (!strchr(g->resource, '/') || g->resource[0] == '/')
        return cu_conf_bad(AT(NULL, p), "resource", "must look like vendor.com/device");
    if (!cu_qty_bytes(g->dev_memory))
        return cu_conf_bad(AT(NULL, p), "memory", "must be a byte quantity such as 141Gi");
    return g->model[0] ? CUBE_OK
                       : cu_conf_bad(AT(NULL, p), "model", "must not be empty");
}

int sim_group_parse(struct sim_group *g, const cJSON *o, const char *path,
                    char *err, size_t len)
{
    memset(g, 0, sizeof *g);
    if (!cJSON_IsObject(o))
        return cu_conf_bad(AT(NULL, path), NULL, "must be an object");
    if (!cJSON_HasObjectItem(o, "prefix") || !cJSON_HasObjectItem(o, "count"))
        return cu_conf_bad(AT(NULL, path), NULL, "prefix and count are required");
    int rc = cu_conf_strbuf(AT(o, path), "prefix", "", g->prefix, sizeof g->prefix);
    if (!rc)
        rc = cu_conf_intv(AT(o, path), "count", 1, 1, 100000, &g->count);
    if (!rc)
        rc = cu_conf_strbuf(AT(o, path), "cpu", "8", g->cpu, sizeof g->cpu);
    if (!rc)
        rc = cu_conf_strbuf(AT(o, path), "memory", "32Gi", g->memory, sizeof g->memory);
    if (!rc && !prefix_ok(g->prefix))
        rc = cu_conf_bad(AT(NULL, path), "prefix", "must be lowercase "
                 "letters, digits and '-', starting with a letter or digit");
    if (!rc && strlen(g->prefix) + (size_t)snprintf(NULL, 0, "%d", g->count - 1) > 63)
        rc = cu_conf_bad(AT(NULL, path), "prefix", "too long: node names must fit in 63 bytes");
    if (!rc && !cu_qty_cpu(g->cpu))
        rc = cu_conf_bad(AT(NULL, path), "cpu", "must be a cpu quantity such as 96 or 500m");
    if (!rc && !cu_qty_bytes(g->memory))
        rc = cu_conf_bad(AT(NULL, path), "memory", "must be a byte quantity such as 1Ti");
    if (!rc)
        rc = read_addresses(g, o, path, err, len);
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
        rc = cu_conf_bad(AT(NULL, NULL), "node_groups", "must be an array of node groups");
    else if (n > 0 && !(c->groups = calloc((size_t)n, sizeof *c->groups)))
        rc = cu_conf_bad(AT(NULL, NULL), "node_groups", "out of memory");
    const cJSON *items = rc ? NULL : list;
    cJSON_ArrayForEach(g, items) {
        char path[48];
        snprintf(path, sizeof path, "node_groups[%d]", c->n_groups);
        if ((rc = sim_group_parse(&c->groups[c->n_groups], g, path, err, len)))
            break;
        for (int i = 0; i < c->n_groups && !rc; i++)
            if (strcmp(c->groups[i].prefix, c->groups[c->n_groups].prefix) == 0)
                rc = cu_conf_bad(AT(NULL, path), NULL,
                                 "prefix \"%s\" is used by node_groups[%d] too",
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
    int rc = cJSON_IsObject(root) ? CUBE_OK : cu_conf_bad(AT(NULL, NULL), NULL,
                                                          "must be an object");
    if (!rc)
        rc = cu_conf_strbuf(AT(root, NULL), "pool", "sim", c->pool, sizeof c->pool);
    if (!rc && !cu_dns_label(c->pool))
        rc = cu_conf_bad(AT(NULL, NULL), "pool",
                         "must be a DNS label (lowercase letters, digits, '-')");
    if (!rc)
        rc = cu_conf_num(AT(root, NULL), "run_seconds", 60, 0, 31536000, &c->run_seconds);
    if (!rc)
        rc = cu_conf_num(AT(root, NULL), "time_scale", 1, 0.001, 1e6, &c->time_scale);
    if (!rc)
        rc = cu_conf_intv(AT(root, NULL), "tick_ms", 100, 1, 60000, &c->tick_ms);
    if (!rc)
        rc = cu_conf_bool(AT(root, NULL), "admin_routes", 1, &c->admin_routes);
    if (!rc)
        rc = cu_conf_bool(AT(root, NULL), "engine_queue", 0, &c->engine_queue);
    if (!rc)
        rc = cu_conf_intv(AT(root, NULL), "held_ms", 0, 0, 86400000, &c->held_ms);
    if (!rc)
        rc = cu_conf_bool(AT(root, NULL), "own_ports", 0, &c->own_ports);
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
