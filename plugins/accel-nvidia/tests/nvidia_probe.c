/* nvidia_probe.c — loads a BUILT cube-accel-nvidia.so into a minimal host of
 * its own (no cubed, no test library: it builds with `cc -Iabi ... -ldl`)
 * and prints what the plugin discovers, the environment that pins GPU 0
 * (whole and a 0.5 share), its pin (env and device nodes) and the usage
 * document. device-check.sh runs it
 * on a machine with a GPU; the unit suite runs it against the fake NVML.
 *
 *   nvidia_probe PLUGIN.so [NVML_LIBRARY]
 *
 * Exit status: 0 with at least one GPU, all pinned; 2 when there are no
 * GPUs; 1 on any error. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/cube.h>

static const char *nvml_library;
static struct cube_accel_desc accel;
static int registered;

static void logv(cube_plugin *self, int level, const char *fmt, va_list ap)
{
    (void)self;
    fprintf(stdout, "log %s: ", level >= CUBE_LOG_WARN ? "warn" : "info");
    vfprintf(stdout, fmt, ap);
    fputc('\n', stdout);
}

CUBE_PRINTF(3, 4)
static void log_(cube_plugin *self, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    logv(self, level, fmt, ap);
    va_end(ap);
}

CUBE_PRINTF(2, 3)
static void set_error(cube_plugin *self, const char *fmt, ...)
{
    (void)self;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "init error: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static int log_enabled(cube_plugin *self, int level) { (void)self; (void)level; return 1; }
static void free_(void *p) { free(p); }

static const char *config_string(cube_plugin *self, const char *path, const char *def)
{
    (void)self;
    return strcmp(path, "nvml_library") == 0 && nvml_library ? nvml_library : def;
}

static int config_bool(cube_plugin *self, const char *path, int def)
{
    (void)self; (void)path;
    return def;
}

static int64_t config_int(cube_plugin *self, const char *path, int64_t def)
{
    (void)self; (void)path;
    return def;
}

static int register_accel(cube_plugin *self, const struct cube_accel_desc *d)
{
    (void)self;
    memcpy(&accel, d, d->size < sizeof accel ? d->size : sizeof accel);
    registered = 1;
    return CUBE_OK;
}

/* Prints one callback's answer (and frees it); its return code. */
static int show(const char *what, int rc, char **doc)
{
    printf("%s: %s\n", what, rc == CUBE_OK && *doc ? *doc : "(error)");
    free(*doc);
    *doc = NULL;
    return rc;
}

/* Calls every callback; the exit status. */
static int probe(void *state)
{
    char *doc = NULL;
    int rc = accel.discover(state, &doc);
    int gpus = rc == CUBE_OK && doc && strcmp(doc, "[]") != 0;
    show("discover", rc, &doc);
    if (rc != CUBE_OK || !gpus)
        return rc != CUBE_OK ? 1 : 2;
    int bad = show("pin_env [\"0\"] 1.0", accel.pin_env(state, "[\"0\"]", 1.0, &doc), &doc);
    bad |= show("pin_env [\"0\"] 0.5", accel.pin_env(state, "[\"0\"]", 0.5, &doc), &doc);
    /* not counted: without the driver's device nodes (the fake NVML) it fails */
    if (accel.size >= offsetof(struct cube_accel_desc, pin) + sizeof accel.pin && accel.pin)
        show("pin [\"0\"] 1.0", accel.pin(state, "[\"0\"]", 1.0, &doc), &doc);
    bad |= show("usage", accel.usage(state, &doc), &doc);
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PLUGIN.so [NVML_LIBRARY]\n", argv[0]);
        return 1;
    }
    nvml_library = argc > 2 ? argv[2] : NULL;
    void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    cube_plugin_entry_fn entry = NULL;
    if (so)
        *(void **)&entry = dlsym(so, "cube_plugin_accel_nvidia");
    if (!entry) {
        fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
        return 1;
    }
    static struct cube_host host;
    host.size = sizeof host;
    host.abi_major = CUBE_ABI_MAJOR;
    host.abi_minor = CUBE_ABI_MINOR;
    host.free = free_;
    host.log = log_;
    host.logv = logv;
    host.log_enabled = log_enabled;
    host.set_error = set_error;
    host.config_string = config_string;
    host.config_bool = config_bool;
    host.config_int = config_int;
    host.register_accel = register_accel;
    static char self; /* the plugin handle: opaque to the plugin */
    const struct cube_plugin_desc *d = entry();
    void *state = NULL;
    if (d->init(&host, (cube_plugin *)&self, &state) != CUBE_OK || !registered)
        return 1;
    int status = probe(state);
    if (d->fini)
        d->fini(state);
    return status;
}
