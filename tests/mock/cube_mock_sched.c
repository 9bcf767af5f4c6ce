/* cube_mock_sched.c — the fake host's ABI 1.3 slots: executors, nodes,
 * replica ends and accelerators, and the ABI 1.5 replica reports
 * (replica_status, replica_endpoints; see cube_mock.h). Test-only state. */
#include "cube_mock.h"
#include "cube_mock_priv.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <cube/util/endpoint.h>

#define MAX_EXITS 256

static struct {
    struct cube_executor_desc executor;
    int has_executor;
    struct cube_accel_desc accels[4];
    int n_accels;
    cJSON *nodes;                 /* name -> node document */
    struct cube_mock_exit exits[MAX_EXITS];
    int n_exits;                  /* grows under exits_mu; entries never move */
    int exit_delay_ms, exits_in_call, exits_in_call_max;
    cJSON *statuses;              /* engine id -> last replica_status {phase,node,message} */
    cJSON *endpoints;             /* engine id -> last replica_endpoints report */
    cJSON *health;                /* "<resource>\t<id>" -> {healthy, reason} (ABI 1.5) */
} S;

/* Executors report ends from threads of their own. */
static pthread_mutex_t exits_mu = PTHREAD_MUTEX_INITIALIZER;

static int register_executor(cube_plugin *self, const struct cube_executor_desc *d)
{
    (void)self;
    if (mock_after_init())
        return CUBE_ESTATE;
    if (!d || d->size < offsetof(struct cube_executor_desc, adopt) || !mock_dns_label(d->name) ||
        !d->start || !d->stop)
        return CUBE_EINVAL;
    if (S.has_executor)
        return CUBE_EEXIST;
    memset(&S.executor, 0, sizeof S.executor);
    memcpy(&S.executor, d, d->size < sizeof S.executor ? d->size : sizeof S.executor);
    S.executor.name = mock_strdup(d->name);
    S.has_executor = 1;
    return CUBE_OK;
}

static int register_accel(cube_plugin *self, const struct cube_accel_desc *d)
{
    (void)self;
    if (mock_after_init())
        return CUBE_ESTATE;
    if (!d || d->size < offsetof(struct cube_accel_desc, usage) || !mock_dns_label(d->name) ||
        !d->resource || !strchr(d->resource, '/') || !d->discover)
        return CUBE_EINVAL;
    struct cube_accel_desc c = {0};   /* 1.5 members read as NULL from older plugins */
    memcpy(&c, d, d->size < sizeof c ? d->size : sizeof c);
    if ((!c.pin_env && !c.pin) || !c.prepare != !c.release)
        return CUBE_EINVAL;
    if (S.n_accels == 4)
        return CUBE_ENOMEM;
    struct cube_accel_desc *a = &S.accels[S.n_accels++];
    *a = c;
    a->name = mock_strdup(d->name);
    a->resource = mock_strdup(d->resource);
    return CUBE_OK;
}

static int node_set(cube_plugin *self, const char *json)
{
    (void)self;
    if (!S.has_executor)
        return CUBE_ESTATE;
    cJSON *n = json ? cJSON_Parse(json) : NULL;
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(n, "name"));
    if (!cJSON_IsObject(n) || !name ||
        !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(n, "capacity"))) {
        cJSON_Delete(n);
        return CUBE_EINVAL;
    }
    if (!S.nodes)
        S.nodes = cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(S.nodes, name);
    cJSON_AddItemToObject(S.nodes, name, n);
    return CUBE_OK;
}

static int node_remove(cube_plugin *self, const char *name)
{
    (void)self;
    if (!name || !cJSON_GetObjectItemCaseSensitive(S.nodes, name))
        return CUBE_ENOTFOUND;
    cJSON_DeleteItemFromObjectCaseSensitive(S.nodes, name);
    return CUBE_OK;
}

static int replica_exited(cube_plugin *self, const char *engine_id, int code,
                          const char *reason, const char *message)
{
    (void)self;
    if (!engine_id || !reason)
        return CUBE_EINVAL;
    pthread_mutex_lock(&exits_mu);
    int delay = S.exit_delay_ms;
    if (++S.exits_in_call > S.exits_in_call_max)
        S.exits_in_call_max = S.exits_in_call;
    pthread_mutex_unlock(&exits_mu);
    if (delay > 0)   /* as a host's store write would take */
        nanosleep(&(struct timespec){delay / 1000, (long)(delay % 1000) * 1000000L}, NULL);
    int rc = CUBE_OK;
    pthread_mutex_lock(&exits_mu);
    S.exits_in_call--;
    if (S.n_exits == MAX_EXITS) {
        rc = CUBE_EINVAL;
    } else {
        struct cube_mock_exit *e = &S.exits[S.n_exits];
        e->engine_id = mock_strdup(engine_id);
        e->exit_code = code;
        e->reason = mock_strdup(reason);
        e->message = mock_strdup(message ? message : "");
        S.n_exits++;
    }
    pthread_mutex_unlock(&exits_mu);
    return rc;
}

/* ABI 1.5: checks as the host does and keeps the last report per engine id. */
static int replica_status(cube_plugin *self, const char *engine_id, const char *phase,
                          const char *node, const char *message)
{
    (void)self;
    if (!engine_id || !*engine_id || !phase ||
        (strcmp(phase, "Pending") && strcmp(phase, "Running")))
        return CUBE_EINVAL;
    if (!S.has_executor || !(S.executor.flags & CUBE_EXECUTOR_ENGINE_QUEUE))
        return CUBE_ESTATE;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "phase", phase);
    cJSON_AddStringToObject(r, "node", node ? node : "");
    cJSON_AddStringToObject(r, "message", message ? message : "");
    pthread_mutex_lock(&exits_mu);
    if (!S.statuses)
        S.statuses = cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(S.statuses, engine_id);
    cJSON_AddItemToObject(S.statuses, engine_id, r);
    pthread_mutex_unlock(&exits_mu);
    return CUBE_OK;
}

int cube_mock_replica_status(const char *engine_id, char *phase, size_t phase_len,
                             char *node, size_t node_len, char *message, size_t msg_len)
{
    pthread_mutex_lock(&exits_mu);
    const cJSON *r = engine_id ? cJSON_GetObjectItemCaseSensitive(S.statuses, engine_id) : NULL;
    if (r) {
        snprintf(phase, phase_len, "%s", cJSON_GetObjectItemCaseSensitive(r, "phase")->valuestring);
        snprintf(node, node_len, "%s", cJSON_GetObjectItemCaseSensitive(r, "node")->valuestring);
        snprintf(message, msg_len, "%s",
                 cJSON_GetObjectItemCaseSensitive(r, "message")->valuestring);
    }
    pthread_mutex_unlock(&exits_mu);
    return r ? 0 : -1;
}

/* ABI 1.5: checks as the host does (cube/util/endpoint.h, the same code)
 * and keeps the last report per engine id. */
static int replica_endpoints(cube_plugin *self, const char *engine_id, const char *json)
{
    (void)self;
    cJSON *o = json ? cJSON_Parse(json) : NULL;
    if (!engine_id || !*engine_id || !cu_endpoints_ok(o, CUBE_JOB_PORTS_MAX)) {
        cJSON_Delete(o);
        return CUBE_EINVAL;
    }
    if (!S.has_executor) {
        cJSON_Delete(o);
        return CUBE_ESTATE;
    }
    pthread_mutex_lock(&exits_mu);
    if (!S.endpoints)
        S.endpoints = cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(S.endpoints, engine_id);
    cJSON_AddItemToObject(S.endpoints, engine_id, o);
    pthread_mutex_unlock(&exits_mu);
    return CUBE_OK;
}

char *cube_mock_replica_endpoints(const char *engine_id)
{
    pthread_mutex_lock(&exits_mu);
    const cJSON *r = engine_id ? cJSON_GetObjectItemCaseSensitive(S.endpoints, engine_id) : NULL;
    char *text = r ? cJSON_PrintUnformatted(r) : NULL;
    pthread_mutex_unlock(&exits_mu);
    return text;
}

void cube_mock_set_exit_delay(int ms, int *in_call_max)
{
    pthread_mutex_lock(&exits_mu);
    S.exit_delay_ms = ms;
    if (in_call_max)
        *in_call_max = S.exits_in_call_max;
    S.exits_in_call_max = 0;
    pthread_mutex_unlock(&exits_mu);
}

/* ABI 1.5: device_health, checked as cubed checks it; the last push per
 * device is kept (cube_mock_device_health) and shows in local_devices. */
static int device_health(cube_plugin *self, const char *resource, const char *id, int healthy,
                         const char *reason)
{
    (void)self;
    char key[192];
    if (!id || !*id || strlen(id) > 63 || (healthy != 0 && healthy != 1))
        return CUBE_EINVAL;
    int ours = 0;
    for (int i = 0; resource && i < S.n_accels; i++)
        ours |= strcmp(S.accels[i].resource, resource) == 0;
    if (!ours)
        return CUBE_ESTATE;
    snprintf(key, sizeof key, "%s\t%s", resource, id);
    cJSON *h = cJSON_CreateObject();
    cJSON_AddBoolToObject(h, "healthy", healthy);
    cJSON_AddStringToObject(h, "reason", reason ? reason : "");
    pthread_mutex_lock(&exits_mu);
    if (!S.health)
        S.health = cJSON_CreateObject();
    if (!cJSON_HasObjectItem(S.health, key) && cJSON_GetArraySize(S.health) >= 4096) {
        pthread_mutex_unlock(&exits_mu);
        cJSON_Delete(h);
        return CUBE_ETOOBIG;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(S.health, key);
    cJSON_AddItemToObject(S.health, key, h);
    pthread_mutex_unlock(&exits_mu);
    return CUBE_OK;
}

int cube_mock_device_health(const char *resource, const char *id, char *reason, size_t len)
{
    char key[192];
    snprintf(key, sizeof key, "%s\t%s", resource ? resource : "", id ? id : "");
    pthread_mutex_lock(&exits_mu);
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(S.health, key);
    int rc = h ? cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "healthy")) : -1;
    if (h && reason)
        snprintf(reason, len, "%s", cJSON_GetObjectItemCaseSensitive(h, "reason")->valuestring);
    pthread_mutex_unlock(&exits_mu);
    return rc;
}

/* A pushed state over a discovered device document (cubed's rule). */
static void apply_health(cJSON *d)
{
    char key[192];
    snprintf(key, sizeof key, "%s\t%s",
             cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "resource")) ?: "",
             cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "id")) ?: "");
    pthread_mutex_lock(&exits_mu);
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(S.health, key);
    if (h) {
        int ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "healthy"));
        const char *why = cJSON_GetObjectItemCaseSensitive(h, "reason")->valuestring;
        cJSON_DeleteItemFromObjectCaseSensitive(d, "healthy");
        cJSON_DeleteItemFromObjectCaseSensitive(d, "healthReason");
        cJSON_AddBoolToObject(d, "healthy", ok);
        if (!ok && *why)
            cJSON_AddStringToObject(d, "healthReason", why);
    }
    pthread_mutex_unlock(&exits_mu);
}

/* Asks every registered accelerator, as the host does. */
static char *local_devices(cube_plugin *self, int *rc)
{
    (void)self;
    cJSON *all = cJSON_CreateArray(), *d;
    for (int i = 0; i < S.n_accels; i++) {
        char *text = NULL;
        if (S.accels[i].discover(mock_state(), &text) != CUBE_OK)
            continue;
        cJSON *list = cJSON_Parse(text ? text : "[]");
        free(text);
        cJSON_ArrayForEach(d, list) {
            if (!cJSON_HasObjectItem(d, "resource"))
                cJSON_AddStringToObject(d, "resource", S.accels[i].resource);
            apply_health(d);
        }
        while (cJSON_GetArraySize(list))
            cJSON_AddItemToArray(all, cJSON_DetachItemFromArray(list, 0));
        cJSON_Delete(list);
    }
    char *out = cJSON_PrintUnformatted(all);
    cJSON_Delete(all);
    *rc = out ? CUBE_OK : CUBE_ENOMEM;
    return out;
}

void mock_sched_install(struct cube_host *h)
{
    h->register_executor = register_executor;
    h->register_accel = register_accel;
    h->node_set = node_set;
    h->node_remove = node_remove;
    h->replica_exited = replica_exited;
    h->local_devices = local_devices;
    h->replica_status = replica_status;
    h->replica_endpoints = replica_endpoints;
    h->device_health = device_health;
}

void mock_sched_reset(void)
{
    free((char *)S.executor.name);
    for (int i = 0; i < S.n_accels; i++) {
        free((char *)S.accels[i].name);
        free((char *)S.accels[i].resource);
    }
    for (int i = 0; i < S.n_exits; i++) {
        free(S.exits[i].engine_id);
        free(S.exits[i].reason);
        free(S.exits[i].message);
    }
    cJSON_Delete(S.nodes);
    cJSON_Delete(S.statuses);
    cJSON_Delete(S.endpoints);
    cJSON_Delete(S.health);
    memset(&S, 0, sizeof S);
}

const struct cube_executor_desc *cube_mock_executor(void)
{
    return S.has_executor ? &S.executor : NULL;
}

const struct cube_accel_desc *cube_mock_accel(const char *name)
{
    for (int i = 0; name && i < S.n_accels; i++)
        if (strcmp(S.accels[i].name, name) == 0)
            return &S.accels[i];
    return NULL;
}

const char *cube_mock_node(const char *name)
{
    static char *text;
    free(text);
    text = NULL;
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(S.nodes, name);
    return n ? (text = cJSON_PrintUnformatted(n)) : NULL;
}

int cube_mock_node_count(void) { return cJSON_GetArraySize(S.nodes); }

const struct cube_mock_exit *cube_mock_exits(int *count)
{
    pthread_mutex_lock(&exits_mu);
    if (count)
        *count = S.n_exits;
    pthread_mutex_unlock(&exits_mu);
    return S.exits;
}
