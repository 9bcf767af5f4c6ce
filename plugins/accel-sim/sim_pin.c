/* sim_pin.c — accel-sim's ABI 1.5 side (see "Pin" and "Partitions" in
 * cube_sched.h):
 *   pin      the env of pin_env, the device node of each device that has
 *            one (device_node, seen as host_path on this machine: tests
 *            point it at a real node every user may open, /dev/null, so
 *            no root and no mknod is needed) and the configured mounts;
 *   prepare  a "partitioned" device gets a partition of its own per
 *            replica ("<device>.p<n>", the id pinned); other devices are
 *            declined; a device with prepare_error fails with that reason;
 *   release  forgets the partition (idempotent);
 *   routes   PUT /api/v1/accel-sim/devices/{id}/health pushes a device's
 *            health (cube_host.device_health); GET /api/v1/accel-sim/
 *            partitions shows the live partitions and the calls made (the
 *            last 256). Both for administrators. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/util/json.h>

#include "sim.h"

#define CALLS_MAX 256

/* The device a configured or partition id stands for (caller holds mu). */
static const cJSON *device_of(const struct accel_sim *a, const char *id)
{
    const cJSON *d = sim_find(a, id);
    const cJSON *p = d ? NULL : cJSON_GetObjectItemCaseSensitive(a->partitions, id);
    return d ? d : p ? sim_find(a, cu_str(p, "device")) : NULL;
}

int sim_pin(void *state, const char *ids_json, double share, char **pin_json)
{
    struct accel_sim *a = state;
    char list[4096];
    int rc = sim_ids(a, ids_json, share, list, sizeof list);
    if (rc != CUBE_OK)
        return rc;
    cJSON *pin = cJSON_CreateObject(), *env = cJSON_AddObjectToObject(pin, "env");
    cJSON *nodes = cJSON_AddArrayToObject(pin, "deviceNodes"), *m;
    cJSON *mounts = cJSON_AddArrayToObject(pin, "mounts"), *id;
    cJSON_AddStringToObject(env, a->visible_env, list);
    if (share < 1) {
        char frac[32];
        snprintf(frac, sizeof frac, "%g", share);
        cJSON_AddStringToObject(env, a->share_env, frac);
    }
    cJSON *ids = cJSON_Parse(ids_json);
    pthread_mutex_lock(&a->mu);
    cJSON_ArrayForEach(id, ids) {
        const cJSON *d = device_of(a, cJSON_GetStringValue(id));
        const char *node = cu_str(d, "device_node");
        if (!node)
            continue;
        cJSON *n = cJSON_CreateObject();
        cJSON_AddStringToObject(n, "path", node);
        cJSON_AddStringToObject(n, "hostPath", cu_str_or(d, "host_path", node));
        cJSON_AddItemToArray(nodes, n);
    }
    pthread_mutex_unlock(&a->mu);
    cJSON_Delete(ids);
    cJSON_ArrayForEach(m, a->mounts) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "hostPath", cu_str(m, "host_path"));
        cJSON_AddStringToObject(o, "containerPath", cu_str(m, "path"));
        cJSON_AddBoolToObject(o, "readOnly", cu_bool(m, "read_only", 1));
        cJSON_AddItemToArray(mounts, o);
    }
    return sim_answer(pin, pin_json);
}

/* Appends a call to the record (caller holds mu). */
static void record(struct accel_sim *a, const char *op, const char *request, const char *extra)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "op", op);
    cJSON_AddItemToObject(c, "request", cJSON_Parse(request ? request : "null"));
    if (extra)
        cJSON_AddItemToObject(c, !strcmp(op, "prepare") ? "answer" : "prepared",
                              cJSON_Parse(extra));
    cJSON_AddItemToArray(a->calls, c);
    while (cJSON_GetArraySize(a->calls) > CALLS_MAX)
        cJSON_DeleteItemFromArray(a->calls, 0);
}

int sim_prepare(void *state, const char *request_json, char **prepared_json)
{
    struct accel_sim *a = state;
    cJSON *req = cJSON_Parse(request_json ? request_json : "");
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(req, "devices");
    const char *id = cJSON_GetStringValue(cJSON_GetArrayItem(ids, 0));
    const cJSON *d = id && cJSON_GetArraySize(ids) == 1 ? sim_find(a, id) : NULL;
    int rc = CUBE_DECLINED;
    pthread_mutex_lock(&a->mu);
    if (d && cu_str(d, "prepare_error")) {
        a->host->set_error(a->self, "%s", cu_str(d, "prepare_error"));
        rc = CUBE_EIO;
        record(a, "prepare", request_json, NULL);
    } else if (d && cu_bool(d, "partitioned", 0)) {
        char part[96];
        snprintf(part, sizeof part, "%s.p%u", id, ++a->seq);
        cJSON *p = cJSON_CreateObject(), *ans = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "device", id);
        cJSON_AddItemToObject(p, "job", cJSON_Duplicate(cJSON_GetObjectItem(req, "job"), 1));
        cJSON_AddNumberToObject(p, "replica", cu_num(req, "replica", 0));
        cJSON_AddItemToObject(a->partitions, part, p);
        cJSON_AddItemToObject(ans, "devices", cJSON_CreateStringArray((const char *[]){part}, 1));
        cJSON_AddStringToObject(ans, "partition", part);
        rc = sim_answer(ans, prepared_json);
        record(a, "prepare", request_json, rc == CUBE_OK ? *prepared_json : NULL);
    }
    pthread_mutex_unlock(&a->mu);
    cJSON_Delete(req);
    return rc;
}

int sim_release(void *state, const char *request_json, const char *prepared_json)
{
    struct accel_sim *a = state;
    cJSON *prep = cJSON_Parse(prepared_json ? prepared_json : "");
    const char *part = cu_str(prep, "partition");
    pthread_mutex_lock(&a->mu);
    if (part)   /* gone already is fine: release is idempotent */
        cJSON_DeleteItemFromObjectCaseSensitive(a->partitions, part);
    record(a, "release", request_json, prepared_json);
    pthread_mutex_unlock(&a->mu);
    cJSON_Delete(prep);
    return CUBE_OK;
}

/* PUT /api/v1/accel-sim/devices/{id}/health {"healthy": false, "reason": "..."} */
static int put_health(void *state, cube_req *req)
{
    struct accel_sim *a = state;
    const struct cube_host *h = a->host;
    const char *id = h->req_param(req, "id");
    size_t n;
    cJSON *body = cJSON_Parse(h->req_body(req, &n));
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(body, "healthy");
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(body, "reason");
    int rc;
    if (!id || !sim_find(a, id))
        rc = h->resp_error(req, 404, "NotFound", "no such simulated device");
    else if (!cJSON_IsBool(ok) || (why && !cJSON_IsString(why)))
        rc = h->resp_error(req, 422, "Invalid", "healthy: must be true or false; reason: a "
                           "string");
    else if ((rc = h->device_health(a->self, a->resource, id, cJSON_IsTrue(ok),
                                    cJSON_GetStringValue(why))) != CUBE_OK)
        rc = h->resp_error(req, 500, "Internal", "device_health failed");
    else {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", id);
        cJSON_AddBoolToObject(o, "healthy", cJSON_IsTrue(ok));
        char *text = cJSON_PrintUnformatted(o);
        rc = h->resp_json(req, 200, text ? text : "{}");
        cJSON_free(text);
        cJSON_Delete(o);
    }
    cJSON_Delete(body);
    return rc;
}

/* GET /api/v1/accel-sim/partitions: {"live": {...}, "calls": [...]} */
static int get_partitions(void *state, cube_req *req)
{
    struct accel_sim *a = state;
    cJSON *o = cJSON_CreateObject();
    pthread_mutex_lock(&a->mu);
    cJSON_AddItemToObject(o, "live", cJSON_Duplicate(a->partitions, 1));
    cJSON_AddItemToObject(o, "calls", cJSON_Duplicate(a->calls, 1));
    pthread_mutex_unlock(&a->mu);
    char *text = cJSON_PrintUnformatted(o);
    int rc = a->host->resp_json(req, 200, text ? text : "{}");
    cJSON_free(text);
    cJSON_Delete(o);
    return rc;
}

int sim_routes(struct accel_sim *a)
{
    const struct cube_route_desc routes[] = {
        {sizeof routes[0], "PUT", "/api/v1/accel-sim/devices/{id}/health", CUBE_PERM_ADMIN,
         put_health, "Push a simulated device's health (healthy, reason)", 0, 0, NULL},
        {sizeof routes[0], "GET", "/api/v1/accel-sim/partitions", CUBE_PERM_ADMIN,
         get_partitions, "Live simulated partitions and the prepare/release calls made", 0, 0, NULL},
    };
    int rc = CUBE_OK;
    for (size_t i = 0; rc == CUBE_OK && i < sizeof routes / sizeof routes[0]; i++)
        rc = a->host->register_route(a->self, &routes[i]);
    return rc;
}
