/* sim_nodes.c — the simulated nodes: their documents (built once per group,
 * only the name and address differ), their advertisement with node_set, and the admin
 * routes that add and remove nodes at run time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* Adds the device documents of g to node; 0 or -1 (out of memory). */
static int add_devices(cJSON *node, const struct sim_group *g)
{
    cJSON *list = cJSON_AddArrayToObject(node, "devices");
    for (int i = 0; list && i < g->dev_count; i++) {
        char id[16], domain[24];
        snprintf(id, sizeof id, "%d", i);
        snprintf(domain, sizeof domain, "nvl-%d", i * g->domains / g->dev_count);
        cJSON *d = cJSON_CreateObject();
        if (!d || !cJSON_AddItemToArray(list, d) || !cJSON_AddStringToObject(d, "id", id) ||
            !cJSON_AddStringToObject(d, "resource", g->resource) ||
            !cJSON_AddStringToObject(d, "model", g->model) ||
            !cJSON_AddStringToObject(d, "memory", g->dev_memory) ||
            !cJSON_AddNumberToObject(d, "numa", i * g->numa / g->dev_count) ||
            !cJSON_AddStringToObject(d, "domain", domain) ||
            !cJSON_AddTrueToObject(d, "healthy"))
            return -1;
    }
    return list ? 0 : -1;
}

/* The node document of g without its name, as "{...}" text (free()). */
static char *group_body(struct sim *s, const struct sim_group *g)
{
    cJSON *n = cJSON_CreateObject(), *cap;
    char *text = NULL;
    if (n && cJSON_AddStringToObject(n, "pool", s->conf.pool) &&
        cJSON_AddItemToObject(n, "labels", cJSON_Parse(g->labels_json)) &&
        (cap = cJSON_AddObjectToObject(n, "capacity")) &&
        cJSON_AddStringToObject(cap, "cpu", g->cpu) &&
        cJSON_AddStringToObject(cap, "memory", g->memory) && add_devices(n, g) == 0)
        text = cJSON_PrintUnformatted(n);
    cJSON_Delete(n);
    return text;
}

/* Writes the name of node i of g into out. */
static void node_name(const struct sim_group *g, int i, char *out, size_t len)
{
    int width = snprintf(NULL, 0, "%d", g->count - 1);
    if (g->exact_name)
        snprintf(out, len, "%s", g->prefix);
    else
        snprintf(out, len, "%s%0*d", g->prefix, width, i);
}

/* Records name and advertises it with doc; CUBE_OK or an error. */
static int advertise(struct sim *s, const char *name, const char *doc)
{
    int oom;
    pthread_mutex_lock(&s->mu);
    sim_map_put(&s->nodes, name, (void *)1, &oom);
    pthread_mutex_unlock(&s->mu);
    if (oom)
        return CUBE_ENOMEM;
    int rc = s->host->node_set(s->self, doc);
    if (rc != CUBE_OK) {
        pthread_mutex_lock(&s->mu);
        sim_map_del(&s->nodes, name);
        pthread_mutex_unlock(&s->mu);
    }
    return rc;
}

int sim_nodes_add_group(struct sim *s, const struct sim_group *g, char *err, size_t len)
{
    char *body = group_body(s, g);
    size_t cap = body ? strlen(body) + 136 : 0;
    char *doc = body ? malloc(cap) : NULL;
    int rc = doc ? CUBE_OK : CUBE_ENOMEM;
    for (int i = 0; rc == CUBE_OK && i < g->count; i++) {
        char name[80], addr[16], field[40] = "";
        node_name(g, i, name, sizeof name);
        sim_group_address(g, i, 0, addr, sizeof addr);
        if (addr[0])
            snprintf(field, sizeof field, "\"address\":\"%s\",", addr);
        snprintf(doc, cap, "{\"name\":\"%s\",%s%s", name, field, body + 1);
        if ((rc = advertise(s, name, doc)) != CUBE_OK)
            snprintf(err, len, "node_set(%s) failed (%d): see the log", name, rc);
    }
    if (rc == CUBE_ENOMEM)
        snprintf(err, len, "out of memory");
    free(doc);
    cJSON_free(body);
    return rc;
}

int sim_node_known(struct sim *s, const char *name)
{
    pthread_mutex_lock(&s->mu);
    int known = sim_map_get(&s->nodes, name) != NULL;
    pthread_mutex_unlock(&s->mu);
    return known;
}

/* GET /api/v1/sim: the pool, node and replica counts. */
static int sim_status(void *state, cube_req *req)
{
    struct sim *s = state;
    char body[256];
    pthread_mutex_lock(&s->mu);
    size_t nodes = s->nodes.n;
    pthread_mutex_unlock(&s->mu);
    snprintf(body, sizeof body,
             "{\"pool\":\"%s\",\"nodes\":%zu,\"running\":%zu,\"advertiseMs\":%.3f}",
             s->conf.pool, nodes, sim_running(s), s->advertise_ms);
    return s->host->resp_json(req, 200, body);
}

/* Parses a POST body: a node group, or {"name": ...} for one node. */
static int parse_added(struct sim_group *g, const char *body, char *err, size_t len)
{
    cJSON *o = cJSON_Parse(body);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
    int rc;
    if (!cJSON_IsObject(o)) {
        snprintf(err, len, "body: must be a JSON object (a node group, or a node with a name)");
        rc = CUBE_EINVAL;
    } else if (name) {
        int ok = cJSON_IsString(name) && strlen(name->valuestring) <= 63 &&
                 name->valuestring[0] && name->valuestring[strlen(name->valuestring) - 1] != '-';
        cJSON *copy = cJSON_Duplicate(o, 1);
        cJSON_DeleteItemFromObjectCaseSensitive(copy, "name");
        cJSON_AddItemToObject(copy, "prefix", cJSON_Duplicate(name, 0));
        cJSON_AddNumberToObject(copy, "count", 1);
        rc = ok ? sim_group_parse(g, copy, "body", err, len) : CUBE_EINVAL;
        if (!ok)
            snprintf(err, len, "body.name: must be a DNS label");
        g->exact_name = 1;
        cJSON_Delete(copy);
    } else {
        rc = sim_group_parse(g, o, "body", err, len);
    }
    cJSON_Delete(o);
    return rc;
}

/* POST /api/v1/sim/nodes: adds (or replaces) nodes. */
static int sim_add(void *state, cube_req *req)
{
    struct sim *s = state;
    const struct cube_host *h = s->host;
    struct sim_group g;
    char err[256], body[256];
    int rc = parse_added(&g, h->req_body(req, NULL), err, sizeof err);
    if (rc != CUBE_OK)
        return h->resp_error(req, 400, "BadRequest", err);
    rc = sim_nodes_add_group(s, &g, err, sizeof err);
    char first[80], last[80];
    node_name(&g, 0, first, sizeof first);
    node_name(&g, g.count - 1, last, sizeof last);
    snprintf(body, sizeof body, "{\"added\":%d,\"first\":\"%s\",\"last\":\"%s\"}",
             g.count, first, last);
    sim_group_free(&g);
    if (rc != CUBE_OK)
        return h->resp_error(req, rc == CUBE_ENOMEM ? 503 : 400, "BadRequest", err);
    return h->resp_json(req, 201, body);
}

/* DELETE /api/v1/sim/nodes/{name}: removes a node; its replicas are Lost. */
static int sim_remove(void *state, cube_req *req)
{
    struct sim *s = state;
    const struct cube_host *h = s->host;
    const char *name = h->req_param(req, "name");
    char body[160];
    pthread_mutex_lock(&s->mu);
    int known = sim_map_del(&s->nodes, name) != NULL;
    int lost = known ? sim_forget_node(s, name) : 0;
    pthread_mutex_unlock(&s->mu);
    if (!known)
        return h->resp_error(req, 404, "NotFound", "no such simulated node");
    int rc = h->node_remove(s->self, name);
    if (rc != CUBE_OK && rc != CUBE_ENOTFOUND)
        return h->resp_error(req, 500, "Internal", "node_remove failed");
    snprintf(body, sizeof body, "{\"removed\":\"%s\",\"lost\":%d}", name, lost);
    return h->resp_json(req, 200, body);
}

int sim_routes_register(struct sim *s)
{
    const struct cube_route_desc routes[] = {
        {.size = sizeof routes[0], .method = "GET", .path = "/api/v1/sim",
         .permission = CUBE_PERM_ADMIN, .handler = sim_status,
         .summary = "executor-sim: pool, node and running replica counts"},
        {.size = sizeof routes[0], .method = "POST", .path = "/api/v1/sim/nodes",
         .permission = CUBE_PERM_ADMIN, .handler = sim_add,
         .summary = "executor-sim: adds nodes (a node group, or {\"name\":...})"},
        {.size = sizeof routes[0], .method = "DELETE", .path = "/api/v1/sim/nodes/{name}",
         .permission = CUBE_PERM_ADMIN, .handler = sim_remove,
         .summary = "executor-sim: removes a node (its replicas are Lost)"},
    };
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (s->host->register_route(s->self, &routes[i]) != CUBE_OK)
            return CUBE_EINVAL;
    return CUBE_OK;
}
