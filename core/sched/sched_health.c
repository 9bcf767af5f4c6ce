/* sched_health.c — device health pushed by accelerator plugins (ABI 1.5,
 * G10: cube_host.device_health). A push is kept per (resource, device id)
 * and overrides what discover said: in local_devices' answer, and in the
 * documents of the nodes that describe this machine (a document that left
 * "devices" out, or one from an executor that reads local_devices). After
 * a change those nodes are set again from their last documents
 * (sched_local_nodes_reset, sched_registry.c), so the
 * policy engine stops (or resumes) offering the device; work already on
 * it stays (cube_sp_node_set keeps allocations whose device ids remain),
 * as Kubernetes leaves pods running on a device its plugin marks
 * unhealthy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/strmap.h"
#include "ctx/ctx.h"
#include "jobs.h"
#include "metrics/metrics.h"

#define HEALTH_MAX 4096

static const char *str(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static void health_key(const char *resource, const char *id, char *buf, size_t len)
{
    snprintf(buf, len, "%s\t%s", resource, id);
}

void sched_health_apply(struct cube_sched *s, cJSON *list)
{
    cJSON *d;
    char key[192];
    if (!s->health)
        return;
    cJSON_ArrayForEach(d, list) {
        const char *id = str(d, "id"), *res = str(d, "resource");
        if (!id || !res)
            continue;
        health_key(res, id, key, sizeof key);
        const struct sched_health *h = cube_strmap_get(s->health, key);
        if (!h)
            continue;
        cJSON_DeleteItemFromObjectCaseSensitive(d, "healthy");
        cJSON_DeleteItemFromObjectCaseSensitive(d, "healthReason");
        cJSON_AddBoolToObject(d, "healthy", h->healthy);
        if (!h->healthy && h->reason[0])
            cJSON_AddStringToObject(d, "healthReason", h->reason);
    }
}

void sched_health_gauge(struct cube_sched *s, const cJSON *list)
{
    const cJSON *d;
    if (!s->m_health)
        return;
    cJSON_ArrayForEach(d, list) {
        const char *labels[] = {str(d, "resource"), str(d, "id")};
        if (labels[0] && labels[1])
            cube_metric_set(s->m_health, labels,
                            cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(d, "healthy")) ? 0 : 1);
    }
}

/* 1 when plugin serves an accelerator of resource (takes mu). */
static int serves(struct cube_sched *s, cube_plugin *plugin, const char *resource)
{
    pthread_mutex_lock(&s->mu);
    struct sched_accel *a = sched_accel_for(s, resource);
    int own = a && a->plugin == plugin;
    pthread_mutex_unlock(&s->mu);
    return own;
}

/* Records the state; 1 when it changed, 0 when not, or an error code. */
static int record(struct cube_sched *s, const char *key, int healthy, const char *reason)
{
    int rc = 1;
    pthread_mutex_lock(&s->mu);
    struct sched_health *h = s->health ? cube_strmap_get(s->health, key) : NULL;
    if (!s->health)
        rc = CUBE_ENOMEM;
    else if (h)
        rc = h->healthy != healthy || strncmp(h->reason, reason, sizeof h->reason - 1) != 0;
    else if (cube_strmap_size(s->health) >= HEALTH_MAX)
        rc = CUBE_ETOOBIG;
    else if (!(h = calloc(1, sizeof *h)) || cube_strmap_put(s->health, key, h, NULL) < 0) {
        free(h);
        h = NULL;
        rc = CUBE_ENOMEM;
    }
    if (h) {
        h->healthy = healthy;
        snprintf(h->reason, sizeof h->reason, "%s", reason);
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int cube_slot_device_health(cube_plugin *self, const char *resource, const char *device_id,
                            int healthy, const char *reason)
{
    struct cube_sched *s = self->ctx->sched;
    char key[192];
    if (!device_id || !*device_id || strlen(device_id) > 63 || (healthy != 0 && healthy != 1))
        return CUBE_EINVAL;
    if (!resource || !serves(s, self, resource)) {
        cube_log(CUBE_LOG_ERROR, self->log_component, "device_health: %s is no resource of "
                 "an accelerator this plugin registered", resource ? resource : "(null)");
        return CUBE_ESTATE;
    }
    health_key(resource, device_id, key, sizeof key);
    int rc = record(s, key, healthy, reason ? reason : "");
    if (rc < 0)
        return rc;
    const char *labels[] = {resource, device_id};
    if (s->m_health)
        cube_metric_set(s->m_health, labels, healthy);
    if (rc == 0)
        return CUBE_OK;
    cube_log(healthy ? CUBE_LOG_INFO : CUBE_LOG_WARN, self->log_component,
             "device %s %s is %s%s%s", resource, device_id, healthy ? "healthy again" : "unhealthy",
             reason && *reason ? ": " : "", reason ? reason : "");
    sched_local_nodes_reset(s);
    return CUBE_OK;
}
