/* nvml_load.c — opens NVML with dlopen and resolves its functions with
 * dlsym; required ones must all be present, optional ones may be absent
 * (older drivers). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "nvml_api.h"

struct sym {
    const char *name;
    size_t offset;   /* of the function pointer in struct nvml_api */
    int required;
};

#define SYM(f, req) {"nvml" #f, offsetof(struct nvml_api, f), req}

static const struct sym SYMS[] = {
    SYM(Init_v2, 1), SYM(Shutdown, 1), SYM(ErrorString, 1), SYM(DeviceGetCount_v2, 1),
    SYM(DeviceGetHandleByIndex_v2, 1), SYM(DeviceGetName, 1), SYM(DeviceGetUUID, 1),
    SYM(DeviceGetMemoryInfo, 1), SYM(DeviceGetPciInfo_v3, 1),
    SYM(DeviceGetMigMode, 0), SYM(DeviceGetUtilizationRates, 0), SYM(DeviceGetNvLinkState, 0),
    SYM(DeviceGetNvLinkRemotePciInfo_v2, 0), SYM(DeviceGetNvLinkRemoteDeviceType, 0),
    SYM(DeviceGetMemoryAffinity, 0), SYM(DeviceGetMinorNumber, 0),
    SYM(DeviceGetRetiredPagesPendingStatus, 0), SYM(EventSetCreate, 0),
    SYM(DeviceRegisterEvents, 0), SYM(EventSetWait_v2, 0), SYM(EventSetFree, 0),
};

int nvml_api_load(struct nvml_api *api, const char *path, char *why, size_t len)
{
    memset(api, 0, sizeof *api);
    api->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!api->lib) {
        const char *e = dlerror();
        snprintf(why, len, "%s", e ? e : "dlopen failed");
        return -1;
    }
    for (size_t i = 0; i < sizeof SYMS / sizeof SYMS[0]; i++) {
        void *f = dlsym(api->lib, SYMS[i].name);
        if (!f && SYMS[i].required) {
            snprintf(why, len, "%s lacks %s", path, SYMS[i].name);
            memset(api, 0, sizeof *api);
            return -2;
        }
        /* dlsym answers object pointers; POSIX guarantees the cast. */
        memcpy((char *)api + SYMS[i].offset, &f, sizeof f);
    }
    return 0;
}

void nvml_api_unload(struct nvml_api *api)
{
    memset(api, 0, sizeof *api);
}
