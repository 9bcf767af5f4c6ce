/* nvml_api.h — the few NVML types and functions accel-nvidia uses, declared
 * here after NVIDIA's documented nvml.h (no link-time dependency: the
 * library is opened with dlopen and each symbol found with dlsym).
 *
 * Layouts follow nvml.h: nvmlPciInfo_t is the v3 layout (busIdLegacy[16],
 * domain, bus, device, pciDeviceId, pciSubSystemId, busId[32]) filled by
 * nvmlDeviceGetPciInfo_v3 and nvmlDeviceGetNvLinkRemotePciInfo_v2;
 * nvmlMemory_t is the v1 {total, free, used} of nvmlDeviceGetMemoryInfo;
 * nvmlEventData_t is what nvmlEventSetWait_v2 fills. */
#ifndef CUBE_NVML_API_H
#define CUBE_NVML_API_H

#include <stddef.h>

typedef int nvmlReturn_t;               /* enum nvmlReturn_enum */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef int nvmlEnableState_t;          /* NVML_FEATURE_DISABLED / _ENABLED */
typedef int nvmlAffinityScope_t;        /* NVML_AFFINITY_SCOPE_NODE = 0 */
typedef int nvmlIntNvLinkDeviceType_t;  /* NVML_NVLINK_DEVICE_TYPE_* */

#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_TIMEOUT 10
#define NVML_ERROR_GPU_IS_LOST 15
#define NVML_FEATURE_ENABLED 1
#define NVML_DEVICE_MIG_ENABLE 1
#define NVML_AFFINITY_SCOPE_NODE 0
#define NVML_NVLINK_DEVICE_TYPE_SWITCH 2
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96

typedef struct nvmlPciInfo_st {
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

typedef struct nvmlMemory_st {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;

/* nvmlEventSet_t and nvmlEventData_t (v1 layout, with the MIG instance
 * ids of 11.0 on), for XID events (nvmlEventTypeXidCriticalError). */
typedef struct nvmlEventSet_st *nvmlEventSet_t;
#define nvmlEventTypeXidCriticalError 0x0000000000000008ULL
typedef struct nvmlEventData_st {
    nvmlDevice_t device;
    unsigned long long eventType;
    unsigned long long eventData;       /* the XID */
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlEventData_t;

typedef struct nvmlUtilization_st {
    unsigned int gpu;      /* percent of time a kernel ran */
    unsigned int memory;   /* percent of time memory was read or written */
} nvmlUtilization_t;

/* The resolved functions. Required ones are never NULL once loaded;
 * optional ones (marked) may be. */
struct nvml_api {
    void *lib;
    nvmlReturn_t (*Init_v2)(void);
    nvmlReturn_t (*Shutdown)(void);
    const char *(*ErrorString)(nvmlReturn_t);
    nvmlReturn_t (*DeviceGetCount_v2)(unsigned int *);
    nvmlReturn_t (*DeviceGetHandleByIndex_v2)(unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*DeviceGetName)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*DeviceGetUUID)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*DeviceGetMemoryInfo)(nvmlDevice_t, nvmlMemory_t *);
    nvmlReturn_t (*DeviceGetPciInfo_v3)(nvmlDevice_t, nvmlPciInfo_t *);
    /* optional */
    nvmlReturn_t (*DeviceGetMigMode)(nvmlDevice_t, unsigned int *, unsigned int *);
    nvmlReturn_t (*DeviceGetUtilizationRates)(nvmlDevice_t, nvmlUtilization_t *);
    nvmlReturn_t (*DeviceGetNvLinkState)(nvmlDevice_t, unsigned int, nvmlEnableState_t *);
    nvmlReturn_t (*DeviceGetNvLinkRemotePciInfo_v2)(nvmlDevice_t, unsigned int,
                                                    nvmlPciInfo_t *);
    nvmlReturn_t (*DeviceGetNvLinkRemoteDeviceType)(nvmlDevice_t, unsigned int,
                                                    nvmlIntNvLinkDeviceType_t *);
    nvmlReturn_t (*DeviceGetMemoryAffinity)(nvmlDevice_t, unsigned int, unsigned long *,
                                            nvmlAffinityScope_t);
    /* optional, for pin (device nodes) and health */
    nvmlReturn_t (*DeviceGetMinorNumber)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*DeviceGetRetiredPagesPendingStatus)(nvmlDevice_t, nvmlEnableState_t *);
    nvmlReturn_t (*EventSetCreate)(nvmlEventSet_t *);
    nvmlReturn_t (*DeviceRegisterEvents)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
    nvmlReturn_t (*EventSetWait_v2)(nvmlEventSet_t, nvmlEventData_t *, unsigned int);
    nvmlReturn_t (*EventSetFree)(nvmlEventSet_t);
};

/* Opens the library at path and resolves the functions. Returns 0; -1
 * when the library cannot be opened (why: dlerror's text); -2 when a
 * required function is missing (why names it). */
int nvml_api_load(struct nvml_api *api, const char *path, char *why, size_t len);
/* Forgets the functions (after Shutdown); the library stays mapped, as
 * NVML is not meant to be unloaded while its threads may run. */
void nvml_api_unload(struct nvml_api *api);

#endif
