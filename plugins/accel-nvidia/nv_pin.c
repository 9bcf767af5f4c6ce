/* nv_pin.c — accel-nvidia's pin (ABI 1.5, "Pin" in cube_sched.h): what
 * NVIDIA's container runtime gives a container for its GPUs, without the
 * libraries (replicas use the machine's own, read-only already):
 *   env          what pin_env sets (CUDA_VISIBLE_DEVICES ...);
 *   deviceNodes  /dev/nvidia<minor> of each GPU, its minor number from
 *                NVML (nvmlDeviceGetMinorNumber: not the NVML index, which
 *                follows PCI order while minors follow the driver's probe
 *                order), /dev/nvidiactl, and /dev/nvidia-uvm and
 *                /dev/nvidia-uvm-tools where this machine has them (the
 *                uvm module creates them on first use: load it at boot,
 *                nvidia-modprobe -u -c=0, so that replicas find them).
 * A GPU whose node or nvidiactl is missing fails the pin (the replica
 * would not reach its GPU): the reason goes to set_error. MIG instances
 * (/dev/nvidia-caps) are not pinned in this release. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nv.h"

/* Adds {"path": "/dev/<name>", "hostPath": "<dev_root>/<name>"}; -1 when
 * the node is absent here. */
static int node(struct nv *n, struct nv_buf *b, const char *name, int *first)
{
    char host[512], path[128];
    snprintf(host, sizeof host, "%s/%s", n->dev_root, name);
    snprintf(path, sizeof path, "/dev/%s", name);
    if (access(host, F_OK) != 0)
        return -1;
    nv_printf(b, "%s{\"path\":", *first ? "" : ",");
    nv_json_str(b, path);
    nv_printf(b, ",\"hostPath\":");
    nv_json_str(b, host);
    nv_printf(b, "}");
    *first = 0;
    return 0;
}

int nv_pin(void *state, const char *ids_json, double share, char **pin_json)
{
    struct nv *n = state;
    unsigned idx[NV_MAX_DEVICES];
    struct nv_dev devs[NV_MAX_DEVICES];
    char *env = NULL, name[32];
    int rc = nv_pin_env(state, ids_json, share, &env);
    if (rc != CUBE_OK) {
        n->host->set_error(n->self, "GPUs %.100s: not on this machine", ids_json ? ids_json : "");
        return rc;
    }
    int k = nv_parse_ids(ids_json, idx, NV_MAX_DEVICES), first = 1;
    int count = nv_scan(n, devs, 0);
    struct nv_buf b = {0};
    nv_printf(&b, "{\"env\":%s,\"deviceNodes\":[", env);
    free(env);
    for (int i = 0; i < k && rc == CUBE_OK; i++) {
        const struct nv_dev *d = (int)idx[i] < count ? &devs[idx[i]] : NULL;
        snprintf(name, sizeof name, "nvidia%d", d ? d->minor : -1);
        if (!d || d->minor < 0 || node(n, &b, name, &first) < 0) {
            n->host->set_error(n->self, "GPU %u: no device node %s/nvidia<minor> (%s)", idx[i],
                               n->dev_root, d && d->minor >= 0 ? "missing" : "minor unknown");
            rc = CUBE_EIO;
        }
    }
    if (rc == CUBE_OK && node(n, &b, "nvidiactl", &first) < 0) {
        n->host->set_error(n->self, "%s/nvidiactl is missing: is the driver loaded?", n->dev_root);
        rc = CUBE_EIO;
    }
    node(n, &b, "nvidia-uvm", &first);
    node(n, &b, "nvidia-uvm-tools", &first);
    nv_printf(&b, "],\"mounts\":[]}");
    char *out = nv_take(&b);
    if (rc != CUBE_OK || !out) {
        free(out);
        return rc != CUBE_OK ? rc : CUBE_ENOMEM;
    }
    *pin_json = out;
    return CUBE_OK;
}
