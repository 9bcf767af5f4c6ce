/* sweepprobe.c — a test plugin owning Jobs, for the Job metrics tests
 * (ABI 1.5): kind Sweep, whose controller makes one Job "<name>-trial"
 * (spec.command from the Sweep's spec.command) with a controller
 * ownerReference to it, and counts its reconciles. GET
 * /api/v1/projects/{project}/sweepprobe/{name} answers
 * {"reconciles": n, "points": m}, m read with the job_metrics slot. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>

#define MAX_SWEEPS 16

static const struct cube_host *H;
static cube_plugin *SELF;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct { char name[64]; int reconciles; } sweeps[MAX_SWEEPS];
static int n_sweeps;

static const char SPEC[] =
    "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"array\","
    "\"items\":{\"type\":\"string\"}}}}";

/* The counter of sweep name (created on first use). */
static int *counter(const char *name)
{
    for (int i = 0; i < n_sweeps; i++)
        if (!strcmp(sweeps[i].name, name))
            return &sweeps[i].reconciles;
    if (n_sweeps == MAX_SWEEPS)
        return NULL;
    snprintf(sweeps[n_sweeps].name, sizeof sweeps[n_sweeps].name, "%s", name);
    return &sweeps[n_sweeps++].reconciles;
}

static int reconcile(void *state, const char *kind, const char *project, const char *name,
                     const char *object_json)
{
    (void)state;
    char uid[128];
    int rc, first;
    if (strcmp(kind, "Sweep") || !object_json)
        return CUBE_OK;
    pthread_mutex_lock(&mu);
    int *c = counter(name);
    first = c && (*c)++ == 0;
    pthread_mutex_unlock(&mu);
    if (!first)
        return CUBE_OK;
    cJSON *sweep = cJSON_Parse(object_json);
    const cJSON *command = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(sweep, "spec"), "command");
    cJSON *j = cJSON_CreateObject(), *meta = cJSON_AddObjectToObject(j, "metadata"), *ref;
    cJSON_AddStringToObject(j, "kind", "Job");
    snprintf(uid, sizeof uid, "%s-trial", name);
    cJSON_AddStringToObject(meta, "name", uid);
    cJSON_AddStringToObject(meta, "project", project);
    ref = cJSON_CreateObject();
    cJSON_AddStringToObject(ref, "kind", "Sweep");
    cJSON_AddStringToObject(ref, "name", name);
    cJSON_AddStringToObject(ref, "uid", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(sweep, "metadata"), "uid")));
    cJSON_AddBoolToObject(ref, "controller", 1);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(meta, "ownerReferences"), ref);
    cJSON *spec = cJSON_AddObjectToObject(j, "spec"), *res;
    cJSON_AddItemToObject(spec, "command", command ? cJSON_Duplicate(command, 1)
                                                   : cJSON_CreateStringArray(
                                                         (const char *[]){"true"}, 1));
    res = cJSON_AddObjectToObject(spec, "resources");
    cJSON_AddStringToObject(res, "cpu", "250m");
    cJSON_AddStringToObject(res, "memory", "128Mi");
    char *job = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    cJSON_Delete(sweep);
    H->free(H->obj_create(SELF, job, &rc));
    if (rc != CUBE_OK && rc != CUBE_EEXIST)
        H->log(SELF, CUBE_LOG_WARN, "cannot create %s-trial: %d", name, rc);
    free(job);
    return CUBE_OK;
}

static int counts(void *state, cube_req *req)
{
    (void)state;
    const char *project = H->req_param(req, "project"), *name = H->req_param(req, "name");
    char job[96], body[128];
    int rc, points = -1;
    snprintf(job, sizeof job, "%s-trial", name);
    char *m = H->job_metrics(SELF, project, job, NULL, -1, &rc);
    if (m) {   /* one "step" member per point */
        points = 0;
        for (const char *p = m; (p = strstr(p, "\"step\":")); p++)
            points++;
    }
    H->free(m);
    pthread_mutex_lock(&mu);
    int *c = counter(name);
    snprintf(body, sizeof body, "{\"reconciles\":%d,\"points\":%d,\"rc\":%d}", c ? *c : 0,
             points, rc);
    pthread_mutex_unlock(&mu);
    return H->resp_json(req, 200, body);
}

static int init(const struct cube_host *h, cube_plugin *self, void **state)
{
    H = h;
    SELF = self;
    *state = NULL;
    const struct cube_kind_desc kind = {.size = sizeof kind, .kind = "Sweep", .plural = "sweeps",
                                        .scope = CUBE_SCOPE_PROJECT, .spec_schema = SPEC,
                                        .reconcile = reconcile};
    const struct cube_route_desc route = {
        .size = sizeof route, .method = "GET",
        .path = "/api/v1/projects/{project}/sweepprobe/{name}",
        .permission = CUBE_PERM_PROJECT_VIEW, .handler = counts,
        .summary = "test: a Sweep's reconcile count and its trial's points"};
    int rc = h->register_kind(self, &kind);
    return rc == CUBE_OK ? h->register_route(self, &route) : rc;
}

CUBE_PLUGIN_DEFINE(sweepprobe,
    .name = "sweepprobe",
    .version = "1.0.0",
    .description = "test plugin: Sweeps owning Jobs, for Job metrics",
    .init = init)
