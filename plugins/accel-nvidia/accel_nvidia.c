/* accel_nvidia.c — the accel-nvidia plugin: NVIDIA GPUs as the "nvidia"
 * accelerator vendor of nvidia.com/gpu. NVML is opened at run time; when
 * it is absent (no driver) the plugin logs one line and has no devices.
 *
 * discover: model, UUID, memory, MIG mode, NUMA node, NVLink island
 *           ("domain"), health. Device ids are NVML indices ("0", "1").
 * pin_env:  CUDA_VISIBLE_DEVICES and NVIDIA_VISIBLE_DEVICES (UUIDs, or
 *           indices with CUDA_DEVICE_ORDER=PCI_BUS_ID); for a share < 1
 *           the MPS client settings (active thread percentage, pinned
 *           memory limit, pipe directory). An MPS control daemon must be
 *           running for shares to be enforced; without one CUDA ignores
 *           them and the share is time-sliced.
 * pin:      (ABI 1.5) the same env, and the device nodes (nv_pin.c).
 * usage:    utilisation and memory used per GPU.
 * Health changes are pushed to the host (nv_health.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv.h"
#include "config_schema.h"   /* NV_CONFIG_SCHEMA: config.schema.json, embedded at build time */

/* Copies a string setting (def when absent) into out; 0 or -1 when long. */
static int setting(struct nv *n, const char *key, const char *def, char *out, size_t cap)
{
    const char *v = n->host->config_string(n->self, key, def);
    if (!v || strlen(v) >= cap)
        return -1;
    memcpy(out, v, strlen(v) + 1);
    return 0;
}

/* Reads and checks the config; CUBE_OK or CUBE_EINVAL with err set. */
static int read_config(struct nv *n, char *lib, size_t lib_len, char *err, size_t len)
{
    char pin_by[16];
    if (setting(n, "nvml_library", "libnvidia-ml.so.1", lib, lib_len) < 0 || !lib[0])
        return snprintf(err, len, "nvml_library: must be a file name or path"), CUBE_EINVAL;
    if (setting(n, "resource", "nvidia.com/gpu", n->resource, sizeof n->resource) < 0 ||
        !strchr(n->resource, '/') || n->resource[0] == '/')
        return snprintf(err, len, "resource: must look like vendor.com/device"), CUBE_EINVAL;
    if (setting(n, "pin_by", "uuid", pin_by, sizeof pin_by) < 0 ||
        (strcmp(pin_by, "uuid") != 0 && strcmp(pin_by, "index") != 0))
        return snprintf(err, len, "pin_by: must be \"uuid\" or \"index\""), CUBE_EINVAL;
    n->pin_by_uuid = strcmp(pin_by, "uuid") == 0;
    if (setting(n, "mps_pipe_directory", "", n->mps_pipe_dir, sizeof n->mps_pipe_dir) < 0 ||
        (n->mps_pipe_dir[0] && n->mps_pipe_dir[0] != '/'))
        return snprintf(err, len, "mps_pipe_directory: must be an absolute path or empty"),
               CUBE_EINVAL;
    if (setting(n, "sysfs_root", "/sys", n->sysfs_root, sizeof n->sysfs_root) < 0 ||
        n->sysfs_root[0] != '/')
        return snprintf(err, len, "sysfs_root: must be an absolute path"), CUBE_EINVAL;
    n->mps_memory_limit = n->host->config_bool(n->self, "mps_memory_limit", 1);
    if (setting(n, "dev_root", "/dev", n->dev_root, sizeof n->dev_root) < 0 ||
        n->dev_root[0] != '/')
        return snprintf(err, len, "dev_root: must be an absolute path"), CUBE_EINVAL;
    int64_t ms = n->host->config_int(n->self, "health_interval_ms", 10000);
    if (ms < 0 || ms > 3600000)
        return snprintf(err, len, "health_interval_ms: must be from 0 to 3600000"), CUBE_EINVAL;
    n->health_ms = (unsigned)ms;
    return CUBE_OK;
}

/* Opens NVML; logs exactly one line saying what came of it. */
static void open_nvml(struct nv *n, const char *lib)
{
    char why[512];
    int rc = nvml_api_load(&n->api, lib, why, sizeof why);
    if (rc == -1 && strstr(why, "No such file"))
        n->host->log(n->self, CUBE_LOG_INFO, "%s not found: no NVIDIA devices", lib);
    else if (rc < 0)
        n->host->log(n->self, CUBE_LOG_WARN, "%s cannot be used (%s): no NVIDIA devices", lib,
                     why);
    if (rc < 0)
        return;
    nvmlReturn_t r = n->api.Init_v2();
    int inited = r == NVML_SUCCESS;
    unsigned count = 0;
    if (inited)
        r = n->api.DeviceGetCount_v2(&count);
    if (r != NVML_SUCCESS) {
        n->host->log(n->self, CUBE_LOG_WARN, "NVML: %s: no NVIDIA devices", nv_err(n, r));
        if (inited)
            n->api.Shutdown();
        nvml_api_unload(&n->api);
        return;
    }
    n->ready = 1;
    n->host->log(n->self, CUBE_LOG_INFO, "NVML (%s): %u NVIDIA GPU%s", lib, count,
                 count == 1 ? "" : "s");
}

/* "H200" from "NVIDIA H200": the product name without the vendor. */
static const char *model_of(const char *name)
{
    return strncmp(name, "NVIDIA ", 7) == 0 && name[7] ? name + 7 : name;
}

static void device_doc(struct nv_buf *b, const struct nv_dev *d)
{
    char mem[32];
    nv_printf(b, "{\"id\":\"%u\",\"model\":", d->index);
    nv_json_str(b, model_of(d->name));
    if (!d->ok) {
        nv_printf(b, ",\"healthy\":false}");
        return;
    }
    nv_printf(b, ",\"product\":");
    nv_json_str(b, d->name);
    nv_printf(b, ",\"uuid\":");
    nv_json_str(b, d->uuid);
    nv_fmt_bytes(d->mem_total, mem, sizeof mem);
    nv_printf(b, ",\"memory\":\"%s\"", mem);
    if (d->numa >= 0)
        nv_printf(b, ",\"numa\":%d", d->numa);
    if (d->domain >= 0)
        nv_printf(b, ",\"domain\":\"nvlink-%d\"", d->domain);
    if (d->mig >= 0)
        nv_printf(b, ",\"mig\":%s", d->mig ? "true" : "false");
    nv_printf(b, ",\"healthy\":%s}", d->healthy ? "true" : "false");
}

static int nv_discover(void *state, char **devices_json)
{
    struct nv *n = state;
    struct nv_dev devs[NV_MAX_DEVICES];
    struct nv_buf b = {0};
    int count = nv_scan(n, devs, 1);
    nv_printf(&b, "[");
    for (int i = 0; i < count; i++) {
        nv_printf(&b, i ? "," : "");
        device_doc(&b, &devs[i]);
    }
    nv_printf(&b, "]");
    *devices_json = nv_take(&b);
    return *devices_json ? CUBE_OK : CUBE_ENOMEM;
}

/* Adds the MPS client settings of a share of device d. */
static void share_env(const struct nv *n, struct nv_buf *b, const struct nv_dev *d, double share)
{
    int pct = (int)(share * 100 + 0.5);
    nv_printf(b, ",\"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE\":\"%d\"", pct < 1 ? 1 : pct);
    if (n->mps_memory_limit && d->mem_total)
        nv_printf(b, ",\"CUDA_MPS_PINNED_DEVICE_MEM_LIMIT\":\"0=%lluM\"",
                  (unsigned long long)((double)d->mem_total * share) >> 20);
    if (n->mps_pipe_dir[0]) {
        nv_printf(b, ",\"CUDA_MPS_PIPE_DIRECTORY\":");
        nv_json_str(b, n->mps_pipe_dir);
    }
}

int nv_pin_env(void *state, const char *ids_json, double share, char **env_json)
{
    struct nv *n = state;
    unsigned idx[NV_MAX_DEVICES];
    struct nv_dev devs[NV_MAX_DEVICES];
    int k = nv_parse_ids(ids_json, idx, NV_MAX_DEVICES);
    if (k <= 0 || !(share > 0 && share <= 1) || (share < 1 && k != 1))
        return CUBE_EINVAL;
    int count = nv_scan(n, devs, 0);
    struct nv_buf list = {0}, b = {0};
    for (int i = 0; i < k; i++) {
        if ((int)idx[i] >= count || !devs[idx[i]].ok) {
            n->host->log(n->self, CUBE_LOG_WARN, "pin_env: no GPU %u", idx[i]);
            free(list.p);
            return CUBE_EINVAL;
        }
        if (n->pin_by_uuid)
            nv_printf(&list, "%s%s", i ? "," : "", devs[idx[i]].uuid);
        else
            nv_printf(&list, "%s%u", i ? "," : "", idx[i]);
    }
    char *v = nv_take(&list);
    if (!v)
        return CUBE_ENOMEM;
    nv_printf(&b, "{\"CUDA_VISIBLE_DEVICES\":");
    nv_json_str(&b, v);
    nv_printf(&b, ",\"NVIDIA_VISIBLE_DEVICES\":");
    nv_json_str(&b, v);
    if (!n->pin_by_uuid)
        nv_printf(&b, ",\"CUDA_DEVICE_ORDER\":\"PCI_BUS_ID\"");
    if (share < 1)
        share_env(n, &b, &devs[idx[0]], share);
    nv_printf(&b, "}");
    free(v);
    *env_json = nv_take(&b);
    return *env_json ? CUBE_OK : CUBE_ENOMEM;
}

static int nv_usage(void *state, char **usage_json)
{
    struct nv *n = state;
    struct nv_dev devs[NV_MAX_DEVICES];
    struct nv_buf b = {0};
    int count = nv_scan(n, devs, 0);
    nv_printf(&b, "[");
    for (int i = 0, first = 1; i < count; i++) {
        char used[32], total[32];
        if (!devs[i].ok)
            continue;
        nv_fmt_bytes(devs[i].mem_used, used, sizeof used);
        nv_fmt_bytes(devs[i].mem_total, total, sizeof total);
        nv_printf(&b, "%s{\"id\":\"%u\"", first ? "" : ",", devs[i].index);
        if (devs[i].util >= 0)
            nv_printf(&b, ",\"utilization\":%.2f", devs[i].util / 100.0);
        nv_printf(&b, ",\"memoryUsed\":\"%s\",\"memoryTotal\":\"%s\"}", used, total);
        first = 0;
    }
    nv_printf(&b, "]");
    *usage_json = nv_take(&b);
    return *usage_json ? CUBE_OK : CUBE_ENOMEM;
}

static void nv_free(struct nv *n)
{
    nv_health_stop(n);
    if (n->ready)
        n->api.Shutdown();
    nvml_api_unload(&n->api);
    pthread_mutex_destroy(&n->mu);
    free(n);
}

static int nv_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    struct nv *n = calloc(1, sizeof *n);
    char err[256], lib[4097];
    if (!n) {
        host->set_error(self, "out of memory");
        return CUBE_ENOMEM;
    }
    n->host = host;
    n->self = self;
    pthread_mutex_init(&n->mu, NULL);
    int rc = read_config(n, lib, sizeof lib, err, sizeof err);
    const struct cube_accel_desc desc = {
        .size = sizeof desc, .name = "nvidia", .resource = n->resource,
        .discover = nv_discover, .pin_env = nv_pin_env, .usage = nv_usage, .pin = nv_pin,
    };
    if (rc == CUBE_OK && (rc = host->register_accel(self, &desc)) != CUBE_OK)
        snprintf(err, sizeof err, "register_accel failed (%d): see the log", rc);
    if (rc != CUBE_OK) {
        host->set_error(self, "%s", err);
        nv_free(n);
        return rc;
    }
    *state = n;
    open_nvml(n, lib);
    nv_health_start(n);
    return CUBE_OK;
}

static void nv_fini(void *state)
{
    nv_free(state);
}

CUBE_PLUGIN_DEFINE(accel_nvidia,
    .name = "accel-nvidia",
    .version = "1.0.0",
    .vendor = "Cube",
    .license = "Apache-2.0",
    .description = "NVIDIA GPUs through NVML, loaded at run time (vendor \"nvidia\")",
    .config_schema = NV_CONFIG_SCHEMA,
    .init = nv_init,
    .fini = nv_fini)
