/* fake_nvml.c — a fake libnvidia-ml for accel-nvidia's tests, built as a
 * shared library exporting the NVML functions the plugin resolves, with
 * the documented signatures (see ../nvml_api.h). Three GPUs:
 *   0  NVIDIA H200  PCI 0000:18:00.0  NUMA 0  NVLink x4 to GPU 1
 *   1  NVIDIA H200  PCI 0000:2a:00.0  NUMA 1  NVLink x4 to GPU 0, MIG on
 *   2  NVIDIA L4    PCI 0000:ca:00.0  NUMA 1  no NVLink, no MIG support
 * Environment knobs (read at nvmlInit_v2):
 *   FAKE_NVML_INIT=9          nvmlInit_v2 fails with that code
 *   FAKE_NVML_LOST=<index>    that GPU answers NVML_ERROR_GPU_IS_LOST
 *   FAKE_NVML_SWITCH=1        every GPU has one link to an NVSwitch
 *   FAKE_NVML_NO_AFFINITY=1   nvmlDeviceGetMemoryAffinity is unsupported
 *   FAKE_NVML_PENDING=<index> that GPU has retired pages waiting for a reset
 * Minor numbers (/dev/nvidia<minor>) are 0, 3 and 1: not the indices.
 * Tests reach it at run time through exported helpers: fake_nvml_xid
 * queues an XID event of a GPU for nvmlEventSetWait_v2; fake_nvml_lose
 * makes a GPU answer GPU_IS_LOST (-1: none). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml_api.h"

#define EXPORT __attribute__((visibility("default")))

struct nvmlDevice_st {
    const char *name, *uuid;
    unsigned long long total, used;
    unsigned util, bus, mig, numa;
    int peer;          /* NVLink peer, -1 none */
};

static struct nvmlDevice_st GPUS[] = {
    {"NVIDIA H200", "GPU-8f6b1c2e-0000-4d3a-9c1e-000000000000", 150754820096ull,
     10737418240ull, 93, 0x18, 0, 0, 1},
    {"NVIDIA H200", "GPU-8f6b1c2e-0001-4d3a-9c1e-000000000001", 150754820096ull, 0, 0,
     0x2a, 1, 1, 0},
    {"NVIDIA L4", "GPU-5a1d9e77-0002-4f00-8b00-000000000002", 24152899584ull,
     1073741824ull, 7, 0xca, 2, 1, -1},
};
#define N_GPUS 3
#define SWITCH_BUS 0xff

static int inited, lost = -1, via_switch, no_affinity, pending = -1;
static const unsigned MINORS[N_GPUS] = {0, 3, 1};

/* XID events waiting, registered devices (bits), the one event set. */
struct fake_event { int gpu; unsigned long long xid; };
static struct fake_event events[16];
static int n_events;
static unsigned registered;
static struct nvmlEventSet_st { int unused; } the_set;

EXPORT void fake_nvml_xid(int gpu, unsigned long long xid);
void fake_nvml_xid(int gpu, unsigned long long xid)
{
    if (n_events < 16)
        events[n_events++] = (struct fake_event){gpu, xid};
}

EXPORT void fake_nvml_lose(int gpu);
void fake_nvml_lose(int gpu) { lost = gpu; }

EXPORT int fake_nvml_refcount(void);
int fake_nvml_refcount(void) { return inited; }

static int index_of(nvmlDevice_t d)
{
    for (int i = 0; i < N_GPUS; i++)
        if (d == &GPUS[i])
            return i;
    return -1;
}

/* NVML_SUCCESS, or why device d cannot answer. */
static nvmlReturn_t check(nvmlDevice_t d)
{
    int i = index_of(d);
    return !inited ? NVML_ERROR_UNINITIALIZED : i < 0 ? NVML_ERROR_INVALID_ARGUMENT
           : i == lost ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlInit_v2(void)
{
    const char *fail = getenv("FAKE_NVML_INIT"), *l = getenv("FAKE_NVML_LOST");
    if (fail && atoi(fail))
        return atoi(fail);
    lost = l ? atoi(l) : -1;
    via_switch = getenv("FAKE_NVML_SWITCH") != NULL;
    no_affinity = getenv("FAKE_NVML_NO_AFFINITY") != NULL;
    pending = getenv("FAKE_NVML_PENDING") ? atoi(getenv("FAKE_NVML_PENDING")) : -1;
    n_events = 0;
    registered = 0;
    inited++;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlShutdown(void);
nvmlReturn_t nvmlShutdown(void)
{
    if (!inited)
        return NVML_ERROR_UNINITIALIZED;
    inited--;
    return NVML_SUCCESS;
}

EXPORT const char *nvmlErrorString(nvmlReturn_t rc);
const char *nvmlErrorString(nvmlReturn_t rc)
{
    switch (rc) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    default: return "Unknown Error";
    }
}

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    if (!inited)
        return NVML_ERROR_UNINITIALIZED;
    *count = N_GPUS;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
    if (!inited)
        return NVML_ERROR_UNINITIALIZED;
    if (i >= N_GPUS)
        return NVML_ERROR_INVALID_ARGUMENT;
    *d = &GPUS[i];
    return NVML_SUCCESS;
}

/* Copies s into buf of len bytes (NVML_ERROR_INSUFFICIENT_SIZE is 7). */
static nvmlReturn_t copy(char *buf, unsigned len, const char *s)
{
    if (strlen(s) >= len)
        return 7;
    memcpy(buf, s, strlen(s) + 1);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len)
{
    nvmlReturn_t rc = check(d);
    return rc == NVML_SUCCESS || rc == NVML_ERROR_GPU_IS_LOST ? copy(name, len, d->name) : rc;
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int len);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int len)
{
    nvmlReturn_t rc = check(d);
    return rc == NVML_SUCCESS || rc == NVML_ERROR_GPU_IS_LOST ? copy(uuid, len, d->uuid) : rc;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
    nvmlReturn_t rc = check(d);
    if (rc == NVML_SUCCESS)
        *m = (nvmlMemory_t){d->total, d->total - d->used, d->used};
    return rc;
}

static void fill_pci(nvmlPciInfo_t *p, unsigned bus)
{
    memset(p, 0, sizeof *p);
    p->bus = bus;
    p->pciDeviceId = 0x233510de;
    snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "0000:%02X:00.0", bus);
    snprintf(p->busId, sizeof p->busId, "00000000:%02X:00.0", bus);
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p)
{
    nvmlReturn_t rc = check(d);
    if (rc == NVML_SUCCESS || rc == NVML_ERROR_GPU_IS_LOST)
        fill_pci(p, d->bus);
    return rc == NVML_ERROR_GPU_IS_LOST ? NVML_SUCCESS : rc;
}

EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend);
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend)
{
    nvmlReturn_t rc = check(d);
    if (rc != NVML_SUCCESS)
        return rc;
    if (d->mig == 2)
        return NVML_ERROR_NOT_SUPPORTED;
    *cur = *pend = d->mig;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u);
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
    nvmlReturn_t rc = check(d);
    if (rc == NVML_SUCCESS)
        *u = (nvmlUtilization_t){d->util, d->util / 2};
    return rc;
}

/* Links 0..3 reach the peer; with FAKE_NVML_SWITCH link 0 reaches a switch. */
static int link_up(nvmlDevice_t d, unsigned link)
{
    return via_switch ? link == 0 : d->peer >= 0 && link < 4;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link,
                                             nvmlEnableState_t *on);
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link, nvmlEnableState_t *on)
{
    nvmlReturn_t rc = check(d);
    if (rc != NVML_SUCCESS)
        return rc;
    if (!via_switch && d->peer < 0)
        return NVML_ERROR_NOT_SUPPORTED;
    if (link >= NVML_NVLINK_MAX_LINKS)
        return NVML_ERROR_INVALID_ARGUMENT;
    *on = link_up(d, link) ? NVML_FEATURE_ENABLED : 0;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned int link,
                                                        nvmlPciInfo_t *p);
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned int link,
                                                 nvmlPciInfo_t *p)
{
    nvmlReturn_t rc = check(d);
    if (rc != NVML_SUCCESS)
        return rc;
    if (!link_up(d, link))
        return NVML_ERROR_INVALID_ARGUMENT;
    fill_pci(p, via_switch ? SWITCH_BUS : GPUS[d->peer].bus);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t d, unsigned int link,
                                                        nvmlIntNvLinkDeviceType_t *t);
nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t d, unsigned int link,
                                                 nvmlIntNvLinkDeviceType_t *t)
{
    nvmlReturn_t rc = check(d);
    if (rc != NVML_SUCCESS)
        return rc;
    *t = via_switch ? NVML_NVLINK_DEVICE_TYPE_SWITCH : 0;
    return link_up(d, link) ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryAffinity(nvmlDevice_t d, unsigned int size,
                                                unsigned long *set, nvmlAffinityScope_t scope);
nvmlReturn_t nvmlDeviceGetMemoryAffinity(nvmlDevice_t d, unsigned int size, unsigned long *set,
                                         nvmlAffinityScope_t scope)
{
    nvmlReturn_t rc = check(d);
    if (rc != NVML_SUCCESS)
        return rc;
    if (no_affinity)
        return NVML_ERROR_NOT_SUPPORTED;
    if (size < 1 || scope != NVML_AFFINITY_SCOPE_NODE)
        return NVML_ERROR_INVALID_ARGUMENT;
    memset(set, 0, size * sizeof *set);
    set[0] = 1ul << d->numa;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned int *minor);
nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned int *minor)
{
    nvmlReturn_t rc = check(d);
    if (rc == NVML_SUCCESS)
        *minor = MINORS[index_of(d)];
    return rc;
}

EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t d,
                                                           nvmlEnableState_t *is_pending);
nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t d, nvmlEnableState_t *is_pending)
{
    nvmlReturn_t rc = check(d);
    if (rc == NVML_SUCCESS)
        *is_pending = index_of(d) == pending ? NVML_FEATURE_ENABLED : 0;
    return rc;
}

EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set);
nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
    if (!inited)
        return NVML_ERROR_UNINITIALIZED;
    *set = &the_set;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types,
                                             nvmlEventSet_t set);
nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, nvmlEventSet_t set)
{
    nvmlReturn_t rc = check(d);
    if (rc != NVML_SUCCESS)
        return rc;
    if (set != &the_set || !(types & nvmlEventTypeXidCriticalError))
        return NVML_ERROR_INVALID_ARGUMENT;
    if (d->mig == 2)
        return NVML_ERROR_NOT_SUPPORTED;   /* the L4: no XID events, as some boards */
    registered |= 1u << index_of(d);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data,
                                        unsigned int timeoutms);
nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
    (void)timeoutms;
    if (!inited || set != &the_set)
        return NVML_ERROR_INVALID_ARGUMENT;
    while (n_events > 0) {
        struct fake_event e = events[0];
        memmove(events, events + 1, (size_t)--n_events * sizeof events[0]);
        if (!(registered >> e.gpu & 1u))
            continue;
        memset(data, 0, sizeof *data);
        data->device = &GPUS[e.gpu];
        data->eventType = nvmlEventTypeXidCriticalError;
        data->eventData = e.xid;
        return NVML_SUCCESS;
    }
    return NVML_ERROR_TIMEOUT;
}

EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set);
nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
    return set == &the_set ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}
