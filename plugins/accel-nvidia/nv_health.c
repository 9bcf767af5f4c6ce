/* nv_health.c — GPU health pushed to the host (ABI 1.5,
 * cube_host.device_health), checked every health_interval_ms on a host
 * timer, as NVIDIA's Kubernetes device plugin judges it:
 *   - XID events (nvmlEventTypeXidCriticalError, drained without waiting
 *     from an event set registered at start): a critical XID marks its GPU
 *     unhealthy until the plugin starts again (a reset is an operator's
 *     act); XIDs an application causes itself (13 graphics engine
 *     exception, 31 memory page fault, 43 stopped context, 45 preemptive
 *     cleanup, 68 video processor exception, 109 context switch timeout)
 *     are ignored, as there;
 *   - a GPU NVML cannot reach (no handle, NVML_ERROR_GPU_IS_LOST);
 *   - retired pages waiting for a reset (nvmlDeviceGetRetiredPagesPending-
 *     Status): the memory it still uses is bad.
 * Only changes are pushed; work running on an unhealthy GPU goes on (the
 * host stops offering the GPU). */
#include <stdio.h>
#include <string.h>

#include "nv.h"

static int app_xid(unsigned long long xid)
{
    static const unsigned long long APP[] = {13, 31, 43, 45, 68, 109};
    for (size_t i = 0; i < sizeof APP / sizeof APP[0]; i++)
        if (xid == APP[i])
            return 1;
    return 0;
}

/* Registers every GPU for critical XIDs (caller holds mu). */
static void open_events(struct nv *n, unsigned count)
{
    const struct nvml_api *a = &n->api;
    if (!a->EventSetCreate || !a->DeviceRegisterEvents || !a->EventSetWait_v2 ||
        a->EventSetCreate(&n->events) != NVML_SUCCESS) {
        n->events = NULL;
        return;
    }
    for (unsigned i = 0; i < count; i++) {
        nvmlDevice_t h;
        nvmlReturn_t rc = a->DeviceGetHandleByIndex_v2(i, &h);
        if (rc == NVML_SUCCESS)
            rc = a->DeviceRegisterEvents(h, nvmlEventTypeXidCriticalError, n->events);
        if (rc != NVML_SUCCESS && rc != NVML_ERROR_NOT_SUPPORTED)
            n->host->log(n->self, CUBE_LOG_WARN, "GPU %u: no XID events: %s", i, nv_err(n, rc));
    }
}

/* Notes the critical XIDs waiting in the event set (caller holds mu). */
static void drain_events(struct nv *n, unsigned count)
{
    nvmlEventData_t e;
    for (int guard = 0; n->events && guard < 1024; guard++) {
        memset(&e, 0, sizeof e);
        if (n->api.EventSetWait_v2(n->events, &e, 0) != NVML_SUCCESS)
            return;   /* NVML_ERROR_TIMEOUT: none left */
        if (!(e.eventType & nvmlEventTypeXidCriticalError) || app_xid(e.eventData))
            continue;
        for (unsigned i = 0; i < count; i++) {
            nvmlDevice_t h;
            if (n->api.DeviceGetHandleByIndex_v2(i, &h) == NVML_SUCCESS && h == e.device) {
                n->xid[i] = e.eventData;
                n->host->log(n->self, CUBE_LOG_WARN, "GPU %u: XID %llu", i, e.eventData);
            }
        }
    }
}

/* Whether GPU i is healthy now; why into reason when not (caller holds mu). */
static int judge(struct nv *n, unsigned i, char *reason, size_t len)
{
    const struct nvml_api *a = &n->api;
    nvmlDevice_t h;
    nvmlMemory_t mem;
    nvmlEnableState_t pending = 0;
    nvmlReturn_t rc = a->DeviceGetHandleByIndex_v2(i, &h);
    if (rc == NVML_SUCCESS)
        rc = a->DeviceGetMemoryInfo(h, &mem);
    if (rc != NVML_SUCCESS)
        return snprintf(reason, len, "NVML cannot reach it: %s", nv_err(n, rc)), 0;
    if (n->xid[i])
        return snprintf(reason, len, "XID %llu (a critical error; reset the GPU and restart "
                        "cubed)", n->xid[i]), 0;
    if (a->DeviceGetRetiredPagesPendingStatus &&
        a->DeviceGetRetiredPagesPendingStatus(h, &pending) == NVML_SUCCESS &&
        pending == NVML_FEATURE_ENABLED)
        return snprintf(reason, len, "retired memory pages wait for a GPU reset"), 0;
    reason[0] = '\0';
    return 1;
}

void nv_health_check(struct nv *n)
{
    int healthy[NV_MAX_DEVICES];
    char reasons[NV_MAX_DEVICES][160];
    unsigned count = 0;
    if (!n->ready)
        return;
    pthread_mutex_lock(&n->mu);
    if (n->api.DeviceGetCount_v2(&count) != NVML_SUCCESS)
        count = 0;
    if (count > NV_MAX_DEVICES)
        count = NV_MAX_DEVICES;
    drain_events(n, count);
    for (unsigned i = 0; i < count; i++)
        healthy[i] = judge(n, i, reasons[i], sizeof reasons[i]);
    pthread_mutex_unlock(&n->mu);
    for (unsigned i = 0; i < count; i++) {   /* outside mu: the host may log, lock */
        char id[16];
        if (healthy[i] == n->pushed[i])
            continue;
        snprintf(id, sizeof id, "%u", i);
        if (n->host->device_health(n->self, n->resource, id, healthy[i], reasons[i]) == CUBE_OK)
            n->pushed[i] = healthy[i];
    }
}

static void tick(void *state, void *arg)
{
    (void)state;
    nv_health_check(arg);   /* the plugin's own pointer, whatever state init set */
}

void nv_health_start(struct nv *n)
{
    unsigned count = 0;
    for (int i = 0; i < NV_MAX_DEVICES; i++)
        n->pushed[i] = 1;   /* discover says healthy until a check says not */
    if (!n->ready || !n->health_ms || !CUBE_HOST_HAS(n->host, device_health))
        return;
    pthread_mutex_lock(&n->mu);
    if (n->api.DeviceGetCount_v2(&count) == NVML_SUCCESS)
        open_events(n, count > NV_MAX_DEVICES ? NV_MAX_DEVICES : count);
    pthread_mutex_unlock(&n->mu);
    n->health_timer = n->host->timer_add(n->self, n->health_ms, n->health_ms, tick, n);
}

void nv_health_stop(struct nv *n)
{
    if (n->health_timer)
        n->host->timer_cancel(n->self, n->health_timer);
    n->health_timer = NULL;
    if (n->events && n->api.EventSetFree)
        n->api.EventSetFree(n->events);
    n->events = NULL;
}
