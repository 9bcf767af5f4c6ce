/* sched_registry.c — what plugins register for scheduling: executors,
 * accelerator vendors and the nodes executors advertise, with the ABI 1.3
 * host slots that fill them. Node documents are checked here (names,
 * quantities, devices) so the scheduler only sees well-formed nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx/ctx.h"
#include "base/log.h"
#include "base/names.h"
#include "jobs.h"
#include "base/quantity.h"
#include "jobs.h"
#include "base/strmap.h"

#define MAX_DEVICES 1024

static struct sched_executor *executor_of_plugin(struct cube_sched *s, cube_plugin *p)
{
    for (size_t i = 0; i < s->n_executors; i++)
        if (s->executors[i]->plugin == p)
            return s->executors[i];
    return NULL;
}

struct sched_executor *sched_executor_of_node(struct cube_sched *s, const char *node)
{
    struct sched_node *n = cube_strmap_get(s->nodes, node);
    return n ? n->executor : NULL;
}

struct sched_accel *sched_accel_for(struct cube_sched *s, const char *resource)
{
    for (size_t i = 0; i < s->n_accels; i++)
        if (strcmp(s->accels[i]->desc.resource, resource) == 0)
            return s->accels[i];
    return NULL;
}

/* Appends p to a growing pointer array; 0 or -1. */
static int push(void ***items, size_t *n, void *p)
{
    void **grown = realloc(*items, (*n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    grown[(*n)++] = p;
    *items = grown;
    return 0;
}

int cube_slot_register_executor(cube_plugin *self, const struct cube_executor_desc *in)
{
    struct cube_sched *s = self->ctx->sched;
    struct sched_executor *e = NULL;
    char why[128];
    size_t min = offsetof(struct cube_executor_desc, adopt) + sizeof in->adopt;
    const char *bad = !self->in_init ? "only during init"
                      : !in || in->size < min ? "descriptor smaller than ABI 1.3's"
                      : !in->name || cube_name_check(in->name, why, sizeof why) < 0
                          ? "name: must be a DNS label"
                      : !in->start || !in->stop ? "start and stop are required" : NULL;
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; !bad && i < s->n_executors; i++)
        if (strcmp(s->executors[i]->desc.name, in->name) == 0 || s->executors[i]->plugin == self)
            bad = "an executor of this name (or of this plugin) exists";
    if (!bad && (!(e = calloc(1, sizeof *e)) || push((void ***)&s->executors,
                                                    &s->n_executors, e) < 0))
        bad = "out of memory";
    if (!bad) {
        memcpy(&e->desc, in, in->size < sizeof e->desc ? in->size : sizeof e->desc);
        e->desc.name = strdup(in->name);
        e->plugin = self;
    }
    pthread_mutex_unlock(&s->mu);
    if (bad) {
        free(e);
        cube_log(CUBE_LOG_ERROR, self->log_component, "register_executor: %s", bad);
        return !self->in_init ? CUBE_ESTATE : strstr(bad, "exists") ? CUBE_EEXIST : CUBE_EINVAL;
    }
    return CUBE_OK;
}

int cube_slot_register_accel(cube_plugin *self, const struct cube_accel_desc *in)
{
    struct cube_sched *s = self->ctx->sched;
    struct sched_accel *a = NULL;
    char why[128];
    size_t min = offsetof(struct cube_accel_desc, usage) + sizeof in->usage;
    const char *bad = !self->in_init ? "only during init"
                      : !in || in->size < min ? "descriptor smaller than ABI 1.3's"
                      : !in->name || cube_name_check(in->name, why, sizeof why) < 0
                          ? "name: must be a DNS label"
                      : !in->resource || !strchr(in->resource, '/') || strlen(in->resource) > 63
                          ? "resource: must look like vendor.com/device"
                      : !in->discover ? "discover is required" : NULL;
    pthread_mutex_lock(&s->mu);
    struct cube_accel_desc d = {0};   /* the 1.5 members read as NULL when older */
    if (!bad)
        memcpy(&d, in, in->size < sizeof d ? in->size : sizeof d);
    if (!bad && !d.pin_env && !d.pin)
        bad = "pin_env (or, since 1.5, pin) is required";
    if (!bad && !d.prepare != !d.release)
        bad = "prepare and release come together";
    if (!bad && sched_accel_for(s, in->resource))
        bad = "this resource already has an accelerator plugin";
    if (!bad && (!(a = calloc(1, sizeof *a)) || push((void ***)&s->accels, &s->n_accels, a) < 0))
        bad = "out of memory";
    if (!bad) {
        a->desc = d;
        a->desc.name = strdup(in->name);
        a->desc.resource = strdup(in->resource);
        a->plugin = self;
    }
    pthread_mutex_unlock(&s->mu);
    if (bad) {
        free(a);
        cube_log(CUBE_LOG_ERROR, self->log_component, "register_accel: %s", bad);
        return !self->in_init ? CUBE_ESTATE : strstr(bad, "already") ? CUBE_EEXIST : CUBE_EINVAL;
    }
    return CUBE_OK;
}

int sched_resource_known(struct cube_sched *s, const char *resource)
{
    if (strcmp(resource, "cpu") == 0 || strcmp(resource, "memory") == 0)
        return 1;
    pthread_mutex_lock(&s->mu);
    int known = sched_accel_for(s, resource) != NULL ||
                cube_sp_resource_index(s->policy, resource) >= 0;
    pthread_mutex_unlock(&s->mu);
    return known;
}

struct fit {
    const char *pool;
    int64_t cpu, mem;
    int nodes, fits;
};

static int node_fits(void *cls, const char *name, void *value)
{
    (void)name;
    struct fit *f = cls;
    const struct sched_node *n = value;
    if (strcmp(n->pool, f->pool) != 0)
        return 0;
    f->nodes++;
    f->fits |= n->cpu_milli >= f->cpu && n->memory >= f->mem;
    return f->fits;
}

int sched_some_node_fits(struct cube_sched *s, const char *pool, int64_t cpu_milli,
                         int64_t memory)
{
    struct fit f = {pool && *pool ? pool : CUBE_SP_DEFAULT_POOL, cpu_milli, memory, 0, 0};
    pthread_mutex_lock(&s->mu);
    cube_strmap_each(s->nodes, node_fits, &f);
    pthread_mutex_unlock(&s->mu);
    return f.fits || f.nodes == 0;
}

static int node_in_pool(void *cls, const char *name, void *value)
{
    (void)name;
    return strcmp(((const struct sched_node *)value)->pool, cls) == 0;
}

int sched_pool_known(struct cube_sched *s, const char *pool)
{
    pthread_mutex_lock(&s->mu);
    int known = cube_strmap_each(s->nodes, node_in_pool, (void *)pool) != 0;
    pthread_mutex_unlock(&s->mu);
    return known;
}

/* -- nodes ---------------------------------------------------------------- */

/* A node document's devices as the engine's array (strings borrowed from
 * doc); n gets the count. NULL with why on a bad entry. */
static struct cube_sp_device *parse_devices(const cJSON *list, size_t *n, const char **why)
{
    const cJSON *d;
    size_t count = (size_t)cJSON_GetArraySize(list), i = 0;
    *n = 0;
    if (count > CUBE_SP_MAX_DEVICES) {
        *why = "devices: more than 64 on one node";
        return NULL;
    }
    struct cube_sp_device *out = calloc(count ? count : 1, sizeof *out);
    if (!out) {
        *why = "out of memory";
        return NULL;
    }
    cJSON_ArrayForEach(d, list) {
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "id"));
        const char *res = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "resource"));
        const cJSON *healthy = cJSON_GetObjectItemCaseSensitive(d, "healthy");
        const cJSON *numa = cJSON_GetObjectItemCaseSensitive(d, "numa");
        const cJSON *mem = cJSON_GetObjectItemCaseSensitive(d, "memory");
        if (!id || !*id || !res || !strchr(res, '/')) {
            *why = "devices: each needs an id and a resource such as nvidia.com/gpu";
            free(out);
            return NULL;
        }
        out[i] = (struct cube_sp_device){
            .id = id, .resource = res,
            .model = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "model")),
            .domain = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "domain")),
            .numa = cJSON_IsNumber(numa) ? (int)numa->valuedouble : -1,
            .healthy = !cJSON_IsFalse(healthy)};
        if (mem && cube_qty_bytes(mem, &out[i].memory, why) < 0)
            out[i].memory = 0;
        i++;
    }
    *n = i;
    return out;
}

/* The labels of a node document (borrowed); NULL only when out of memory. */
static struct cube_sp_label *parse_labels(const cJSON *labels, size_t *n)
{
    const cJSON *l;
    size_t i = 0;
    struct cube_sp_label *out = calloc((size_t)cJSON_GetArraySize(labels) + 1, sizeof *out);
    cJSON_ArrayForEach(l, labels)
        if (out && cJSON_IsString(l))
            out[i++] = (struct cube_sp_label){l->string, l->valuestring};
    *n = i;
    return out;
}

/* Fills the devices of a node document that has none with this machine's
 * (an executor serving the local machine): cached (a device array text)
 * when given, else what the accelerator plugins discover now. Returns the
 * array's text (malloc()ed), or NULL when doc had devices. */
static char *add_local_devices(struct cube_sched *s, cJSON *doc, const char *cached)
{
    char *text = NULL;
    int rc;
    if (cJSON_HasObjectItem(doc, "devices") ||
        !(text = cached ? strdup(cached) : cube_sched_local_devices(s, &rc)))
        return NULL;
    cJSON *list = cJSON_Parse(text);
    cJSON_AddItemToObject(doc, "devices", list ? list : cJSON_CreateArray());
    return text;
}

struct lost_list {
    char **ids;
    size_t n;
};

static void collect_lost(void *cls, const char *job_id)
{
    struct lost_list *l = cls;
    char **grown = realloc(l->ids, (l->n + 1) * sizeof *grown);
    if (grown && (grown[l->n] = strdup(job_id))) {
        l->ids = grown;
        l->n++;
    } else if (grown) {
        l->ids = grown;
    }
}

static void report_lost(struct cube_sched *s, struct lost_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        job_lost(s, l->ids[i]);
        free(l->ids[i]);
    }
    free(l->ids);
}

static void node_free(void *p)
{
    struct sched_node *n = p;
    if (!n)
        return;
    free(n->doc);
    free(n->filled);
    free(n->name);
    free(n->pool);
    free(n->address);
    free(n);
}

/* What a node document came with: its text, and whether the host filled
 * in this machine's devices. */
struct node_src {
    const char *json;
    int local;
    const char *filled;   /* the devices the host filled in (local), or NULL */
};

/* Records the node (caller holds mu); the engine already took it. */
static int remember_node(struct cube_sched *s, struct sched_executor *ex,
                         const struct cube_sp_node *sp, const char *address,
                         const cJSON *ports, const struct node_src *src)
{
    struct sched_node *n = calloc(1, sizeof *n);
    void *old = NULL;
    if (!n || !(n->name = strdup(sp->name)) || !(n->pool = strdup(sp->pool)) ||
        !(n->address = strdup(address)) || !(n->doc = strdup(src->json)) ||
        (src->filled && !(n->filled = strdup(src->filled))) ||
        cube_strmap_put(s->nodes, sp->name, n, &old) < 0) {
        node_free(n);
        return CUBE_ENOMEM;
    }
    n->executor = ex;
    n->local = src->local;
    n->cpu_milli = sp->cpu_milli;
    n->memory = sp->memory;
    n->port_min = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(ports, "min"));
    n->port_max = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(ports, "max"));
    node_free(old);
    return CUBE_OK;
}

/* Checks a node document and hands it to the engine. */
static int set_node(struct cube_sched *s, struct sched_executor *ex, cJSON *doc,
                    const struct node_src *src, struct lost_list *lost, const char **why)
{
    const cJSON *cap = cJSON_GetObjectItemCaseSensitive(doc, "capacity");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "name"));
    const char *pool = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "pool"));
    const char *addr = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "address"));
    char err[128];
    struct cube_sp_node sp = {.name = name, .pool = pool && *pool ? pool : CUBE_SP_DEFAULT_POOL};
    if (!name || cube_name_check(name, err, sizeof err) < 0)
        return *why = "name: must be a DNS label", CUBE_EINVAL;
    const cJSON *ports = cJSON_GetObjectItemCaseSensitive(doc, "jobPorts");
    if (ports && !job_ports_range_ok(ports))
        return *why = "jobPorts: needs integers 1024 <= min <= max <= 65535", CUBE_EINVAL;
    /* since 1.5: a node the executor's engine will not run new work on */
    const cJSON *sched = cJSON_GetObjectItemCaseSensitive(doc, "schedulable");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(doc, "message");
    if (sched && !cJSON_IsBool(sched))
        return *why = "schedulable: must be true or false", CUBE_EINVAL;
    if (msg && (!cJSON_IsString(msg) || strlen(msg->valuestring) > 255))
        return *why = "message: must be a string of at most 255 bytes", CUBE_EINVAL;
    sp.unschedulable = cJSON_IsFalse(sched);
    sp.message = msg ? msg->valuestring : NULL;
    if (!cJSON_IsObject(cap) ||
        cube_qty_milli(cJSON_GetObjectItemCaseSensitive(cap, "cpu"), &sp.cpu_milli, why) < 0 ||
        cube_qty_bytes(cJSON_GetObjectItemCaseSensitive(cap, "memory"), &sp.memory, why) < 0)
        return *why = "capacity: needs cpu and memory quantities", CUBE_EINVAL;
    struct cube_sp_device *devs = parse_devices(cJSON_GetObjectItemCaseSensitive(doc, "devices"),
                                                &sp.n_devices, why);
    struct cube_sp_label *labels = parse_labels(cJSON_GetObjectItemCaseSensitive(doc, "labels"),
                                                &sp.n_labels);
    int rc = !devs ? CUBE_EINVAL : !labels ? CUBE_ENOMEM : CUBE_OK;
    sp.devices = devs;
    sp.labels = labels;
    pthread_mutex_lock(&s->mu);
    struct sched_executor *owner = sched_executor_of_node(s, name);
    if (rc == CUBE_OK && owner && owner != ex)
        rc = CUBE_EEXIST, *why = "name: another executor serves a node of this name";
    if (rc == CUBE_OK && (rc = cube_sp_node_set(s->policy, &sp, collect_lost, lost)) != CUBE_OK)
        *why = cube_sp_errmsg(s->policy);
    if (rc == CUBE_OK)
        rc = remember_node(s, ex, &sp, addr ? addr : "127.0.0.1", ports, src);
    pthread_mutex_unlock(&s->mu);
    free(devs);
    free(labels);
    return rc;
}

/* node_set's work, the caller holding node_mu; replicas that lost their
 * place go to lost. */
static int node_apply(struct cube_sched *s, struct sched_executor *ex, const char *json,
                      const char *cached, struct lost_list *lost, const char **why)
{
    cJSON *doc = json ? cJSON_Parse(json) : NULL;
    struct node_src src = {json, 0, NULL};
    *why = "not JSON";
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return CUBE_EINVAL;
    }
    src.local = !cJSON_HasObjectItem(doc, "devices");
    char *filled = add_local_devices(s, doc, cached);
    src.filled = filled;
    pthread_mutex_lock(&s->mu);
    if (src.local || ex->local)   /* this machine: pushed device health applies */
        sched_health_apply(s, cJSON_GetObjectItemCaseSensitive(doc, "devices"));
    pthread_mutex_unlock(&s->mu);
    int rc = set_node(s, ex, doc, &src, lost, why);
    cJSON_Delete(doc);
    free(filled);
    return rc;
}

int sched_node_apply(struct cube_sched *s, struct sched_executor *ex, const char *json,
                     const char **why)
{
    struct lost_list lost = {0};
    pthread_mutex_lock(&s->node_mu);
    int rc = node_apply(s, ex, json, NULL, &lost, why);
    pthread_mutex_unlock(&s->node_mu);
    report_lost(s, &lost);   /* stops replicas: no lock of ours held */
    sched_poke(s);
    return rc;
}

/* A node of this machine to set again: its executor and document. */
struct reset {
    struct sched_executor *ex;
    char *doc, *filled;
};

struct reset_list {
    struct reset *v;
    size_t n, cap;
};

static int collect_local(void *cls, const char *name, void *value)
{
    (void)name;
    struct reset_list *l = cls;
    const struct sched_node *n = value;
    if (!n->doc || !n->executor || !(n->local || n->executor->local))
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 4;
        struct reset *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return 0;
        l->v = v;
        l->cap = cap;
    }
    struct reset *r = &l->v[l->n];
    r->filled = n->filled ? strdup(n->filled) : NULL;
    if ((r->doc = strdup(n->doc)) && (r->filled || !n->filled))
        l->v[l->n++].ex = n->executor;
    else
        free(r->doc), free(r->filled);
    return 0;
}

void sched_local_nodes_reset(struct cube_sched *s)
{
    struct reset_list l = {0};
    struct lost_list lost = {0};
    /* node_mu from the copy on: a newer document from the executor is
     * never replaced by an older one */
    pthread_mutex_lock(&s->node_mu);
    pthread_mutex_lock(&s->mu);
    cube_strmap_each(s->nodes, collect_local, &l);
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; i < l.n; i++) {
        const char *why = "";
        /* the devices filled in last time, not a discover now: no call
         * back into the plugin pushing the change */
        if (node_apply(s, l.v[i].ex, l.v[i].doc, l.v[i].filled, &lost, &why) != CUBE_OK)
            cube_log(CUBE_LOG_WARN, "jobs", "a node of this machine could not be set again: "
                     "%s", why);
        free(l.v[i].doc);
        free(l.v[i].filled);
    }
    pthread_mutex_unlock(&s->node_mu);
    free(l.v);
    report_lost(s, &lost);
    sched_poke(s);
}

int cube_slot_node_set(cube_plugin *self, const char *json)
{
    struct cube_sched *s = self->ctx->sched;
    const char *why = "";
    pthread_mutex_lock(&s->mu);
    struct sched_executor *ex = executor_of_plugin(s, self);
    pthread_mutex_unlock(&s->mu);
    if (!ex) {
        cube_log(CUBE_LOG_ERROR, self->log_component, "node_set: register an executor first");
        return CUBE_ESTATE;
    }
    int rc = sched_node_apply(s, ex, json, &why);
    if (rc != CUBE_OK)
        cube_log(CUBE_LOG_ERROR, self->log_component, "node_set: %s", why);
    return rc;
}

int cube_slot_node_remove(cube_plugin *self, const char *name)
{
    struct cube_sched *s = self->ctx->sched;
    struct lost_list lost = {0};
    int rc = CUBE_ENOTFOUND;
    pthread_mutex_lock(&s->mu);
    struct sched_node *n = name ? cube_strmap_get(s->nodes, name) : NULL;
    if (n && n->executor && n->executor->plugin == self) {
        rc = cube_sp_node_remove(s->policy, name, collect_lost, &lost);
        node_free(cube_strmap_del(s->nodes, name));
    }
    pthread_mutex_unlock(&s->mu);
    report_lost(s, &lost);
    sched_poke(s);
    return rc;
}

int cube_slot_replica_exited(cube_plugin *self, const char *engine_id, int code,
                             const char *reason, const char *message)
{
    if (!engine_id || !reason)
        return CUBE_EINVAL;
    return job_replica_exited(self->ctx->sched, engine_id, code, reason, message);
}

char *cube_sched_local_devices(struct cube_sched *s, int *rc)
{
    cJSON *all = cJSON_CreateArray(), *d;
    pthread_mutex_lock(&s->mu);
    size_t n = s->n_accels;
    struct sched_accel **accels = n ? malloc(n * sizeof *accels) : NULL;
    if (accels)
        memcpy(accels, s->accels, n * sizeof *accels);
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; accels && i < n; i++) {
        char *text = NULL;
        if (accels[i]->desc.discover(accels[i]->plugin->state, &text) != CUBE_OK)
            continue;
        cJSON *list = cJSON_Parse(text ? text : "[]");
        free(text);
        cJSON_ArrayForEach(d, list)
            if (!cJSON_HasObjectItem(d, "resource"))
                cJSON_AddStringToObject(d, "resource", accels[i]->desc.resource);
        while (cJSON_GetArraySize(list) > 0)
            cJSON_AddItemToArray(all, cJSON_DetachItemFromArray(list, 0));
        cJSON_Delete(list);
    }
    free(accels);
    pthread_mutex_lock(&s->mu);
    sched_health_apply(s, all);
    pthread_mutex_unlock(&s->mu);
    sched_health_gauge(s, all);
    char *out = cJSON_PrintUnformatted(all);
    cJSON_Delete(all);
    *rc = out ? CUBE_OK : CUBE_ENOMEM;
    return out;
}

char *cube_slot_local_devices(cube_plugin *self, int *rc)
{
    struct cube_sched *s = self->ctx->sched;
    pthread_mutex_lock(&s->mu);
    struct sched_executor *ex = executor_of_plugin(s, self);
    if (ex)   /* its nodes describe this machine: device health applies */
        ex->local = 1;
    pthread_mutex_unlock(&s->mu);
    return cube_sched_local_devices(s, rc);
}

static void executor_free(struct sched_executor *e)
{
    free((char *)e->desc.name);
    free(e);
}

static void accel_free(struct sched_accel *a)
{
    free((char *)a->desc.name);
    free((char *)a->desc.resource);
    free(a);
}

void sched_drop_plugin(struct cube_sched *s, struct cube_plugin *plugin)
{
    size_t kept = 0;
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < s->n_executors; i++)
        if (s->executors[i]->plugin == plugin)
            executor_free(s->executors[i]);
        else
            s->executors[kept++] = s->executors[i];
    s->n_executors = kept;
    kept = 0;
    for (size_t i = 0; i < s->n_accels; i++)
        if (s->accels[i]->plugin == plugin)
            accel_free(s->accels[i]);
        else
            s->accels[kept++] = s->accels[i];
    s->n_accels = kept;
    pthread_mutex_unlock(&s->mu);
}

void sched_registry_free(struct cube_sched *s)
{
    for (size_t i = 0; i < s->n_executors; i++)
        executor_free(s->executors[i]);
    for (size_t i = 0; i < s->n_accels; i++)
        accel_free(s->accels[i]);
    free(s->executors);
    free(s->accels);
    cube_strmap_free(s->nodes, node_free);
    s->nodes = NULL;
}
