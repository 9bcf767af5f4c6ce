/* nv.h — the accel-nvidia plugin: NVIDIA GPUs through NVML, opened at run
 * time (no link-time dependency), as the "nvidia" accelerator vendor.
 *
 * accel_nvidia.c  descriptor, config, init/fini, discover/pin_env/usage
 * nv_pin.c        pin (ABI 1.5): the env of pin_env and the device nodes
 * nv_health.c     health pushed to the host (ABI 1.5): XID events, lost
 *                 GPUs, retired pages waiting for a reset
 * nv_devices.c    one device's facts from NVML; NVLink domains; NUMA
 * nvml_load.c     dlopen/dlsym of the NVML functions (nvml_api.h)
 * nv_json.c       a growing JSON text buffer; the device-id array parser */
#ifndef CUBE_ACCEL_NVIDIA_H
#define CUBE_ACCEL_NVIDIA_H

#include <pthread.h>
#include <stddef.h>

#include <cube/cube.h>

#include "nvml_api.h"

#define NV_MAX_DEVICES 64

/* One GPU as discover reports it. */
struct nv_dev {
    unsigned index;
    int ok;                     /* the handle was found */
    int healthy;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    unsigned long long mem_total, mem_used;
    int util;                   /* GPU utilisation percent, -1 unknown */
    int mig;                    /* 1 enabled, 0 disabled, -1 not supported */
    int numa;                   /* -1 when unknown */
    int domain;                 /* lowest index of its NVLink island, -1 alone */
    nvmlPciInfo_t pci;
    int has_pci;
    int minor;                  /* /dev/nvidia<minor>; -1 unknown */
};

struct nv {
    const struct cube_host *host;
    cube_plugin *self;
    char resource[64];
    int pin_by_uuid;            /* config pin_by: "uuid" (1) or "index" (0) */
    char mps_pipe_dir[256];
    int mps_memory_limit;
    char sysfs_root[256];
    struct nvml_api api;
    int ready;                  /* NVML loaded and initialised */
    pthread_mutex_t mu;         /* serialises NVML queries of one scan */
    /* since ABI 1.5 */
    char dev_root[256];         /* where the device nodes are ("/dev") */
    unsigned health_ms;         /* health checks every ...; 0: none */
    cube_timer *health_timer;
    nvmlEventSet_t events;      /* XID critical errors; NULL: unsupported */
    int pushed[NV_MAX_DEVICES]; /* last health pushed: 1 healthy, 0 not */
    unsigned long long xid[NV_MAX_DEVICES];  /* a critical XID seen (sticky) */
};

/* -- accel_nvidia.c ---------------------------------------------------- */

/* The descriptor's pin_env (the environment alone). */
int nv_pin_env(void *state, const char *ids_json, double share, char **env_json);

/* -- nv_pin.c ---------------------------------------------------------- */

/* The descriptor's pin: pin_env's environment, /dev/nvidia<minor> of each
 * GPU (from NVML), /dev/nvidiactl, and /dev/nvidia-uvm and
 * /dev/nvidia-uvm-tools when this machine has them. */
int nv_pin(void *state, const char *ids_json, double share, char **pin_json);

/* -- nv_health.c ------------------------------------------------------- */

/* Starts the health checks (NVML ready, the host has device_health). */
void nv_health_start(struct nv *n);
/* One round: drains XID events, checks each GPU, pushes changes. */
void nv_health_check(struct nv *n);
/* Stops them (fini). */
void nv_health_stop(struct nv *n);

/* -- nv_devices.c ------------------------------------------------------ */

/* Fills devs with every GPU (at most NV_MAX_DEVICES); returns the count
 * or -1 (NVML failed: the log says why). Domains and NUMA included. */
int nv_scan(struct nv *n, struct nv_dev *devs, int with_topology);
/* The NVML error text of rc. */
const char *nv_err(const struct nv *n, nvmlReturn_t rc);

/* -- nv_json.c --------------------------------------------------------- */

/* A growing NUL-terminated text buffer; oom latches on failure. */
struct nv_buf {
    char *p;
    size_t len, cap;
    int oom;
};

/* Appends printf-style text. */
void nv_printf(struct nv_buf *b, const char *fmt, ...) CUBE_PRINTF(2, 3);
/* Appends s as a JSON string (quoted, escaped). */
void nv_json_str(struct nv_buf *b, const char *s);
/* Hands the text over (malloc()ed) or NULL when out of memory. */
char *nv_take(struct nv_buf *b);
/* Parses a JSON array of decimal index strings (["0","3"]) into idx (at
 * most max); returns the count, or -1 when malformed. */
int nv_parse_ids(const char *json, unsigned *idx, int max);
/* Writes bytes as the largest exact binary unit ("141Gi", "143771Mi"). */
void nv_fmt_bytes(unsigned long long bytes, char *out, size_t len);

#endif
