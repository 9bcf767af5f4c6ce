/* nv_devices.c — what NVML says about each GPU: name, UUID, memory, MIG
 * mode, utilisation and health; NUMA node (memory affinity, else sysfs);
 * NVLink islands as domains (GPUs linked to each other, directly or
 * through NVSwitches, share one). */
#include <stdio.h>
#include <string.h>

#include "nv.h"

const char *nv_err(const struct nv *n, nvmlReturn_t rc)
{
    const char *s = n->api.ErrorString ? n->api.ErrorString(rc) : NULL;
    return s ? s : "unknown NVML error";
}

/* Reads the facts of GPU i; *h gets its handle. */
static void read_dev(struct nv *n, unsigned i, nvmlDevice_t *h, struct nv_dev *d)
{
    const struct nvml_api *a = &n->api;
    memset(d, 0, sizeof *d);
    d->index = i;
    d->mig = d->numa = d->domain = d->util = d->minor = -1;
    nvmlReturn_t rc = a->DeviceGetHandleByIndex_v2(i, h);
    if (rc != NVML_SUCCESS) {
        snprintf(d->name, sizeof d->name, "unknown");
        n->host->log(n->self, CUBE_LOG_WARN, "GPU %u: %s", i, nv_err(n, rc));
        return;
    }
    d->ok = 1;
    nvmlMemory_t mem;
    int good = a->DeviceGetName(*h, d->name, sizeof d->name) == NVML_SUCCESS;
    good &= a->DeviceGetUUID(*h, d->uuid, sizeof d->uuid) == NVML_SUCCESS;
    if ((rc = a->DeviceGetMemoryInfo(*h, &mem)) == NVML_SUCCESS) {
        d->mem_total = mem.total;
        d->mem_used = mem.used;
    }
    good &= rc == NVML_SUCCESS;
    d->has_pci = a->DeviceGetPciInfo_v3(*h, &d->pci) == NVML_SUCCESS;
    unsigned cur, pending, minor;
    if (a->DeviceGetMinorNumber && a->DeviceGetMinorNumber(*h, &minor) == NVML_SUCCESS)
        d->minor = (int)minor;
    if (a->DeviceGetMigMode && a->DeviceGetMigMode(*h, &cur, &pending) == NVML_SUCCESS)
        d->mig = cur == NVML_DEVICE_MIG_ENABLE;
    nvmlUtilization_t u;
    if (a->DeviceGetUtilizationRates) {
        rc = a->DeviceGetUtilizationRates(*h, &u);
        if (rc == NVML_SUCCESS)
            d->util = (int)(u.gpu > 100 ? 100 : u.gpu);
        good &= rc != NVML_ERROR_GPU_IS_LOST;
    }
    d->healthy = good;
}

/* The NUMA node from the PCI device's sysfs entry, or -1. */
static int sysfs_numa(const struct nv *n, const nvmlPciInfo_t *pci)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bus/pci/devices/%04x:%02x:%02x.0/numa_node",
             n->sysfs_root, pci->domain & 0xffff, pci->bus, pci->device);
    FILE *f = fopen(path, "r");
    int node = -1;
    if (f) {
        if (fscanf(f, "%d", &node) != 1)
            node = -1;
        fclose(f);
    }
    return node;
}

/* The NUMA node nearest the GPU's memory, or -1 when unknown. */
static int numa_of(struct nv *n, nvmlDevice_t h, const struct nv_dev *d)
{
    unsigned long set[4] = {0};
    const int bits = (int)(8 * sizeof set[0]);
    if (n->api.DeviceGetMemoryAffinity &&
        n->api.DeviceGetMemoryAffinity(h, 4, set, NVML_AFFINITY_SCOPE_NODE) == NVML_SUCCESS)
        for (int i = 0; i < 4 * bits; i++)
            if (set[i / bits] >> (i % bits) & 1ul)
                return i;
    return d->has_pci ? sysfs_numa(n, &d->pci) : -1;
}

static int uf_find(int *parent, int i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

/* The GPU at this PCI address, or -1. */
static int by_pci(const struct nv_dev *devs, int count, const nvmlPciInfo_t *pci)
{
    for (int i = 0; i < count; i++)
        if (devs[i].has_pci && devs[i].pci.domain == pci->domain &&
            devs[i].pci.bus == pci->bus && devs[i].pci.device == pci->device)
            return i;
    return -1;
}

/* Joins GPU i with what its active NVLinks reach: another GPU, or the
 * NVSwitch fabric (element `count` of parent). linked[] marks who has one. */
static void follow_links(struct nv *n, nvmlDevice_t h, int i, const struct nv_dev *devs,
                         int count, int *parent, int *linked)
{
    const struct nvml_api *a = &n->api;
    for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
        nvmlEnableState_t on = 0;
        nvmlPciInfo_t pci;
        if (a->DeviceGetNvLinkState(h, l, &on) != NVML_SUCCESS || on != NVML_FEATURE_ENABLED ||
            a->DeviceGetNvLinkRemotePciInfo_v2(h, l, &pci) != NVML_SUCCESS)
            continue;
        int j = by_pci(devs, count, &pci);
        nvmlIntNvLinkDeviceType_t type = -1;
        if (j < 0 && a->DeviceGetNvLinkRemoteDeviceType &&
            a->DeviceGetNvLinkRemoteDeviceType(h, l, &type) == NVML_SUCCESS &&
            type != NVML_NVLINK_DEVICE_TYPE_SWITCH)
            continue; /* a GPU we cannot see, or a CPU: no island of ours */
        if (j == i)
            continue;
        j = j < 0 ? count : j;
        linked[i] = linked[j] = 1;
        parent[uf_find(parent, i)] = uf_find(parent, j);
    }
}

/* Sets each linked GPU's domain to the lowest index of its island. */
static void link_domains(struct nv *n, const nvmlDevice_t *h, struct nv_dev *devs, int count)
{
    int parent[NV_MAX_DEVICES + 1], linked[NV_MAX_DEVICES + 1] = {0};
    if (!n->api.DeviceGetNvLinkState || !n->api.DeviceGetNvLinkRemotePciInfo_v2)
        return;
    for (int i = 0; i <= count; i++)
        parent[i] = i;
    for (int i = 0; i < count; i++)
        if (devs[i].ok)
            follow_links(n, h[i], i, devs, count, parent, linked);
    for (int i = 0; i < count; i++) {
        if (!linked[i])
            continue;
        for (int j = 0; j <= i && devs[i].domain < 0; j++)
            if (linked[j] && uf_find(parent, j) == uf_find(parent, i))
                devs[i].domain = j;
    }
}

int nv_scan(struct nv *n, struct nv_dev *devs, int with_topology)
{
    unsigned count = 0;
    nvmlDevice_t h[NV_MAX_DEVICES];
    if (!n->ready)
        return 0;
    pthread_mutex_lock(&n->mu);
    nvmlReturn_t rc = n->api.DeviceGetCount_v2(&count);
    if (rc != NVML_SUCCESS) {
        pthread_mutex_unlock(&n->mu);
        n->host->log(n->self, CUBE_LOG_WARN, "nvmlDeviceGetCount: %s", nv_err(n, rc));
        return -1;
    }
    if (count > NV_MAX_DEVICES)
        count = NV_MAX_DEVICES;
    for (unsigned i = 0; i < count; i++)
        read_dev(n, i, &h[i], &devs[i]);
    for (unsigned i = 0; with_topology && i < count; i++)
        if (devs[i].ok)
            devs[i].numa = numa_of(n, h[i], &devs[i]);
    if (with_topology)
        link_domains(n, h, devs, (int)count);
    pthread_mutex_unlock(&n->mu);
    return (int)count;
}
