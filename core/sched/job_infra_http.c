/* job_infra_http.c — the nodes and pools API, read only, for every signed-in
 * user (CUBE_PERM_USER):
 *
 *   GET /api/v1/nodes           every node executors registered
 *   GET /api/v1/nodes/{name}    one node
 *   GET /api/v1/pools           every pool with its totals
 *   GET /api/v1/pools/{name}    one pool and its queue
 *
 * A node: {name, pool, executor, labels, capacity, allocated, replicas,
 * devices:[{id, resource, model, memory, healthy, allocated}]}; capacity
 * and allocated are {cpu: cores, memory: bytes, <device resource>: devices}
 * as numbers (allocated: what the replicas placed on it requested). A
 * pool: {name, nodes, capacity, allocated, pending, running}; its page adds
 * queue: the pending Jobs in queue order [{project, name, position,
 * reason}] of the projects the caller may view, and hiddenPending, how many
 * of other projects wait there (members of one project learn no names of
 * another's). Node addresses are shown to administrators only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth.h"
#include "base/strmap.h"
#include "ctx/ctx.h"
#include "http/http_req.h"
#include "job_status.h"
#include "jobs.h"

/* {cpu, memory, <extended>...} of v in display units. */
static cJSON *res_json(const struct cube_sched_policy *p, const struct cube_sp_res *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "cpu", (double)v->v[CUBE_SP_CPU] / 1000.0);
    cJSON_AddNumberToObject(o, "memory", (double)v->v[CUBE_SP_MEMORY]);
    for (int r = 2; r < CUBE_SP_NRES; r++) {
        const char *name = cube_sp_resource_name(p, r);
        if (name && *name && v->v[r])
            cJSON_AddNumberToObject(o, name, (double)v->v[r] / 1000.0);
    }
    return o;
}

static void copy_item(cJSON *to, const cJSON *from, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, key);
    if (v)
        cJSON_AddItemToObject(to, key, cJSON_Duplicate(v, 1));
}

/* The devices of a node document with the share the engine placed on each. */
static cJSON *devices_json(const struct cube_sched *s, const struct sched_node *n,
                           const cJSON *doc)
{
    cJSON *out = cJSON_CreateArray(), *filled = n->filled ? cJSON_Parse(n->filled) : NULL;
    const cJSON *list = filled ? filled : cJSON_GetObjectItemCaseSensitive(doc, "devices"), *d;
    cJSON_ArrayForEach(d, list) {
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "id"));
        const char *res = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "resource"));
        if (!id || !res)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", id);
        cJSON_AddStringToObject(o, "resource", res);
        copy_item(o, d, "model");
        copy_item(o, d, "memory");
        cJSON_AddBoolToObject(o, "healthy",
                              !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(d, "healthy")));
        int32_t share = 0;
        cube_sp_device_used(s->policy, n->name, res, id, &share);
        cJSON_AddNumberToObject(o, "allocated", share / 1000.0);
        cJSON_AddItemToArray(out, o);
    }
    cJSON_Delete(filled);
    return out;
}

/* One node as the API shows it (caller holds mu). */
static cJSON *node_json(const struct cube_sched *s, const struct sched_node *n, int admin)
{
    struct cube_sp_node_info info;
    cJSON *doc = cJSON_Parse(n->doc ? n->doc : "{}"), *o = cJSON_CreateObject();
    cube_sp_node_info(s->policy, n->name, &info);
    cJSON_AddStringToObject(o, "name", n->name);
    cJSON_AddStringToObject(o, "pool", n->pool);
    cJSON_AddStringToObject(o, "executor", n->executor ? n->executor->desc.name : "");
    if (admin)
        cJSON_AddStringToObject(o, "address", n->address ? n->address : "");
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(doc, "labels");
    cJSON_AddItemToObject(o, "labels", cJSON_IsObject(labels) ? cJSON_Duplicate(labels, 1)
                                                              : cJSON_CreateObject());
    cJSON_AddItemToObject(o, "capacity", res_json(s->policy, &info.capacity));
    cJSON_AddItemToObject(o, "allocated", res_json(s->policy, &info.used));
    cJSON_AddNumberToObject(o, "replicas", info.replicas);
    cJSON_AddItemToObject(o, "devices", devices_json(s, n, doc));
    cJSON_Delete(doc);
    return o;
}

struct node_walk {
    const struct cube_sched *s;
    cJSON *items;
    int admin;
};

static int add_node(void *cls, const char *name, void *value)
{
    (void)name;
    struct node_walk *w = cls;
    cJSON_AddItemToArray(w->items, node_json(w->s, value, w->admin));
    return 0;
}

static int by_name(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    return strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "name")),
                  cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(y, "name")));
}

/* Sorts an array of objects by "name" (strmap order is not stable). */
static void sort_by_name(cJSON *arr)
{
    int n = cJSON_GetArraySize(arr);
    if (n < 2)
        return;
    cJSON **v = malloc((size_t)n * sizeof *v);
    if (!v)
        return;
    for (int i = n - 1; i >= 0; i--)
        v[i] = cJSON_DetachItemFromArray(arr, i);
    qsort(v, (size_t)n, sizeof *v, by_name);
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, v[i]);
    free(v);
}

static int answer(cube_req *req, cJSON *doc)
{
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    if (!text)
        return cube_http_answer_error(req, 500, "Internal", "out of memory");
    int rc = cube_http_answer(req, 200, "application/json", text, strlen(text), 1);
    free(text);
    return rc;
}

static int is_admin(cube_req *req)
{
    const struct cube_principal *who = cube_auth_who(req);
    return who && who->admin;
}

static int list_nodes(void *state, cube_req *req)
{
    struct cube_sched *s = ((struct cube_ctx *)state)->sched;
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "kind", "NodeList");
    struct node_walk w = {s, cJSON_AddArrayToObject(doc, "items"), is_admin(req)};
    pthread_mutex_lock(&s->mu);
    cube_strmap_each(s->nodes, add_node, &w);
    pthread_mutex_unlock(&s->mu);
    sort_by_name(w.items);
    return answer(req, doc);
}

static int get_node(void *state, cube_req *req)
{
    struct cube_sched *s = ((struct cube_ctx *)state)->sched;
    const char *name = cube_route_match_param(&req->match, "name");
    pthread_mutex_lock(&s->mu);
    const struct sched_node *n = cube_strmap_get(s->nodes, name);
    cJSON *doc = n ? node_json(s, n, is_admin(req)) : NULL;
    pthread_mutex_unlock(&s->mu);
    if (!n)
        return cube_http_answer_error(req, 404, "NotFound", "no such node");
    cJSON_AddStringToObject(doc, "kind", "Node");
    return answer(req, doc);
}

/* A pool's totals (caller holds mu). */
static cJSON *pool_json(const struct cube_sched *s, const struct cube_sp_pool_info *pi)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", pi->name);
    cJSON_AddNumberToObject(o, "nodes", (double)pi->nodes);
    cJSON_AddItemToObject(o, "capacity", res_json(s->policy, &pi->capacity));
    cJSON_AddItemToObject(o, "allocated", res_json(s->policy, &pi->used));
    cJSON_AddNumberToObject(o, "pending", (double)pi->pending);
    cJSON_AddNumberToObject(o, "running", (double)pi->running);
    return o;
}

static int list_pools(void *state, cube_req *req)
{
    struct cube_sched *s = ((struct cube_ctx *)state)->sched;
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "kind", "PoolList");
    cJSON *items = cJSON_AddArrayToObject(doc, "items");
    struct cube_sp_pool_info pi;
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; cube_sp_pool_info(s->policy, i, &pi) == CUBE_OK; i++)
        cJSON_AddItemToArray(items, pool_json(s, &pi));
    pthread_mutex_unlock(&s->mu);
    sort_by_name(items);
    return answer(req, doc);
}

/* A pending Job of the pool being shown. */
struct waiter {
    char project[64], name[64], reason[300];
    unsigned position;
};

struct queue_walk {
    const struct cube_sched *s;
    const char *pool;
    struct waiter *v;
    size_t n, cap;
};

static int add_waiter(void *cls, const char *id, void *value)
{
    (void)value;
    struct queue_walk *q = cls;
    struct cube_sp_job_info info;
    char reason[300];
    if (cube_sp_job_info(q->s->policy, id, &info, reason, sizeof reason) != CUBE_OK ||
        info.state != CUBE_SP_PENDING || strcmp(info.pool ? info.pool : "", q->pool) != 0)
        return 0;
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 16;
        struct waiter *v = realloc(q->v, cap * sizeof *v);
        if (!v)
            return 1;
        q->v = v, q->cap = cap;
    }
    struct waiter *w = &q->v[q->n];
    if (job_id_split(id, w->project, w->name) < 0)
        return 0;
    snprintf(w->reason, sizeof w->reason, "%s", reason);
    w->position = info.position;
    q->n++;
    return 0;
}

/* Queue order: known positions first, ascending; then by name. */
static int by_position(const void *a, const void *b)
{
    const struct waiter *x = a, *y = b;
    unsigned px = x->position ? x->position : ~0u, py = y->position ? y->position : ~0u;
    if (px != py)
        return px < py ? -1 : 1;
    int c = strcmp(x->project, y->project);
    return c ? c : strcmp(x->name, y->name);
}

/* The queue of a pool as the caller may see it. */
static void add_queue(cube_req *req, cJSON *pool, struct waiter *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, by_position);
    cJSON *queue = cJSON_AddArrayToObject(pool, "queue");
    size_t hidden = 0;
    for (size_t i = 0; i < n; i++) {
        if (cube_auth_role(req, v[i].project) == CUBE_ROLE_NONE) {
            hidden++;
            continue;
        }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "project", v[i].project);
        cJSON_AddStringToObject(o, "name", v[i].name);
        if (v[i].position)
            cJSON_AddNumberToObject(o, "position", v[i].position);
        cJSON_AddStringToObject(o, "reason", v[i].reason);
        cJSON_AddItemToArray(queue, o);
    }
    cJSON_AddNumberToObject(pool, "hiddenPending", (double)hidden);
}

static int get_pool(void *state, cube_req *req)
{
    struct cube_sched *s = ((struct cube_ctx *)state)->sched;
    const char *name = cube_route_match_param(&req->match, "name");
    struct cube_sp_pool_info pi;
    struct queue_walk q = {s, name, NULL, 0, 0};
    cJSON *doc = NULL;
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; cube_sp_pool_info(s->policy, i, &pi) == CUBE_OK; i++)
        if (strcmp(pi.name, name) == 0) {
            doc = pool_json(s, &pi);
            cube_strmap_each(s->pending, add_waiter, &q);
            break;
        }
    pthread_mutex_unlock(&s->mu);
    if (!doc) {
        free(q.v);
        return cube_http_answer_error(req, 404, "NotFound", "no such pool");
    }
    cJSON_AddStringToObject(doc, "kind", "Pool");
    add_queue(req, doc, q.v, q.n);
    free(q.v);
    return answer(req, doc);
}

int job_infra_routes_register(struct cube_sched *s)
{
    const struct cube_route_desc routes[] = {
        {sizeof routes[0], "GET", "/api/v1/nodes", CUBE_PERM_USER, list_nodes,
         "Every node: capacity, allocation and devices", 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/nodes/{name}", CUBE_PERM_USER, get_node,
         "One node: capacity, allocation and devices", 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/pools", CUBE_PERM_USER, list_pools,
         "Every pool: nodes, capacity, allocation, jobs pending and running", 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/pools/{name}", CUBE_PERM_USER, get_pool,
         "One pool and its queue (pending Jobs of the projects the caller may view)", 0, 0, NULL},
    };
    return cube_ctx_add_core_routes(s->ctx, routes, sizeof routes / sizeof routes[0], "infra");
}
