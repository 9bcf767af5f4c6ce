/* legacy_accel.c — an accelerator plugin as ABI 1.3 made them, compiled
 * against the frozen 1.3 headers (tests/abi/v1.3): discover and pin_env,
 * no pin, prepare or release (its descriptor is the 1.3 size). Two
 * devices of "legacy.cube.dev/npu", pinned by LEGACY_VISIBLE_DEVICES.
 * test_devices.py runs a Job on it through today's cubed: the env still
 * arrives and, its device nodes being unknown, the replica keeps the
 * machine's /dev (ABI 1.5, "deviceNodes" in cube_sched.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/cube.h>

static int legacy_discover(void *state, char **out)
{
    (void)state;
    *out = strdup("[{\"id\":\"n0\",\"model\":\"Legacy\"},{\"id\":\"n1\",\"model\":\"Legacy\"}]");
    return *out ? CUBE_OK : CUBE_ENOMEM;
}

/* ["n0","n1"] -> {"LEGACY_VISIBLE_DEVICES":"n0,n1"} (ids are plain). */
static int legacy_pin_env(void *state, const char *ids, double share, char **out)
{
    (void)state, (void)share;
    char list[256] = "";
    size_t o = 0;
    for (const char *p = ids ? ids : ""; *p && o < sizeof list - 8; p++)
        if (*p != '[' && *p != ']' && *p != '"' && *p != ' ')
            list[o++] = *p;
    list[o] = '\0';
    size_t n = strlen(list) + 40;
    if (!(*out = malloc(n)))
        return CUBE_ENOMEM;
    snprintf(*out, n, "{\"LEGACY_VISIBLE_DEVICES\":\"%s\"}", list);
    return CUBE_OK;
}

static int legacy_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    const struct cube_accel_desc d = {
        .size = sizeof d, .name = "legacy", .resource = "legacy.cube.dev/npu",
        .discover = legacy_discover, .pin_env = legacy_pin_env,
    };
    *state = NULL;
    return host->register_accel(self, &d);
}

CUBE_PLUGIN_DEFINE(accel_legacy,
    .name = "accel-legacy",
    .version = "1.3.0",
    .description = "An ABI 1.3 accelerator (tests)",
    .init = legacy_init)
