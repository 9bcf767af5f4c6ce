/* test_accel_nvidia.c — accel-nvidia with the fake host against a FAKE NVML
 * (fake_nvml.c, loaded through the nvml_library setting): registration,
 * discover (model, memory, MIG, NUMA, NVLink domains, health), pin_env
 * (UUIDs, indices, MPS shares), usage, an absent or broken library (one
 * log line, no devices, init OK) and config errors; ABI 1.5 pin (device
 * nodes by NVML minor number) and health pushes (XID events, lost GPUs,
 * retired pages). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cube_mock.h"

const struct cube_plugin_desc *cube_plugin_accel_nvidia(void);

#define UUID0 "GPU-8f6b1c2e-0000-4d3a-9c1e-000000000000"
#define UUID1 "GPU-8f6b1c2e-0001-4d3a-9c1e-000000000001"
#define UUID2 "GPU-5a1d9e77-0002-4f00-8b00-000000000002"

static void *state;
static int log_lines;
static char last_line[1024];

/* The fake host's log, counting lines. */
CUBE_PRINTF(3, 4)
static void counting_log(cube_plugin *self, int level, const char *fmt, ...)
{
    (void)self;
    (void)level;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_line, sizeof last_line, fmt, ap);
    va_end(ap);
    log_lines++;
}

static struct cube_host wrapped;

/* Starts the plugin with config through the fake host, counting log lines. */
static int up(const char *config)
{
    cube_plugin *self;
    wrapped = *cube_mock_host(config, &self);
    wrapped.log = counting_log;
    log_lines = 0;
    last_line[0] = '\0';
    state = NULL;
    return cube_plugin_accel_nvidia()->init(&wrapped, self, &state);
}

static int up_fake(const char *extra)
{
    char config[1024];
    snprintf(config, sizeof config, "{\"nvml_library\":\"%s\"%s}", FAKE_NVML, extra ? extra : "");
    return up(config);
}

static int setup(void **st)
{
    (void)st;
    return up_fake(NULL);
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(cube_plugin_accel_nvidia(), state);
    state = NULL;
    unsetenv("FAKE_NVML_INIT");
    unsetenv("FAKE_NVML_LOST");
    unsetenv("FAKE_NVML_SWITCH");
    unsetenv("FAKE_NVML_NO_AFFINITY");
    unsetenv("FAKE_NVML_PENDING");
    return 0;
}

static const struct cube_accel_desc *accel(void)
{
    const struct cube_accel_desc *a = cube_mock_accel("nvidia");
    assert_non_null(a);
    return a;
}

/* Calls a document-answering callback and compares its answer. */
static void expect_doc(int (*fn)(void *, char **), const char *want)
{
    char *out = NULL;
    assert_int_equal(fn(state, &out), CUBE_OK);
    assert_non_null(out);
    assert_string_equal(out, want);
    free(out);
}

static void expect_pin(const char *ids, double share, const char *want)
{
    char *env = NULL;
    int rc = accel()->pin_env(state, ids, share, &env);
    if (!want) {
        assert_int_equal(rc, CUBE_EINVAL);
        assert_null(env);
        return;
    }
    assert_int_equal(rc, CUBE_OK);
    assert_string_equal(env, want);
    free(env);
}

static void registers_and_opens_nvml(void **st)
{
    (void)st;
    const struct cube_plugin_desc *d = cube_plugin_accel_nvidia();
    assert_string_equal(d->name, "accel-nvidia");
    assert_non_null(d->config_schema);
    assert_string_equal(accel()->resource, "nvidia.com/gpu");
    assert_non_null(accel()->usage);
    assert_int_equal(log_lines, 1);
    assert_non_null(strstr(last_line, "): 3 NVIDIA GPUs"));
}

static void discovers_model_memory_mig_numa_domains(void **st)
{
    (void)st;
    expect_doc(accel()->discover,
        "[{\"id\":\"0\",\"model\":\"H200\",\"product\":\"NVIDIA H200\",\"uuid\":\"" UUID0 "\","
        "\"memory\":\"143771Mi\",\"numa\":0,\"domain\":\"nvlink-0\",\"mig\":false,\"healthy\":true},"
        "{\"id\":\"1\",\"model\":\"H200\",\"product\":\"NVIDIA H200\",\"uuid\":\"" UUID1 "\","
        "\"memory\":\"143771Mi\",\"numa\":1,\"domain\":\"nvlink-0\",\"mig\":true,\"healthy\":true},"
        "{\"id\":\"2\",\"model\":\"L4\",\"product\":\"NVIDIA L4\",\"uuid\":\"" UUID2 "\","
        "\"memory\":\"23034Mi\",\"numa\":1,\"healthy\":true}]");
}

static void nvswitch_makes_one_island(void **st)
{
    (void)st;
    teardown(NULL);
    setenv("FAKE_NVML_SWITCH", "1", 1);
    assert_int_equal(up_fake(NULL), CUBE_OK);
    char *out = NULL;
    assert_int_equal(accel()->discover(state, &out), CUBE_OK);
    int islands = 0;
    for (const char *p = out; (p = strstr(p, "\"domain\":\"nvlink-0\"")); p++)
        islands++;
    assert_int_equal(islands, 3);
    free(out);
}

static void lost_gpu_is_unhealthy(void **st)
{
    (void)st;
    teardown(NULL);
    setenv("FAKE_NVML_LOST", "1", 1);
    assert_int_equal(up_fake(NULL), CUBE_OK);
    char *out = NULL;
    assert_int_equal(accel()->discover(state, &out), CUBE_OK);
    assert_non_null(strstr(out, "\"uuid\":\"" UUID1 "\",\"memory\":\"0\""));
    assert_non_null(strstr(out, "\"mig\":false,\"healthy\":true},{\"id\":\"1\""));
    assert_non_null(strstr(out, "\"healthy\":false},{\"id\":\"2\""));
    free(out);
}

static void numa_from_sysfs_when_nvml_cannot_say(void **st)
{
    (void)st;
    teardown(NULL);
    char root[] = "/tmp/fake-sysfs-XXXXXX", path[256];
    assert_non_null(mkdtemp(root));
    const char *dirs[] = {"/bus", "/bus/pci", "/bus/pci/devices",
                          "/bus/pci/devices/0000:18:00.0", "/bus/pci/devices/0000:2a:00.0"};
    for (size_t i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s%s", root, dirs[i]);
        assert_int_equal(mkdir(path, 0700), 0);
    }
    const char *vals[] = {"1\n", "-1\n"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s%s/numa_node", root, dirs[3 + i]);
        FILE *f = fopen(path, "w");
        fputs(vals[i], f);
        fclose(f);
    }
    setenv("FAKE_NVML_NO_AFFINITY", "1", 1);
    char extra[128];
    snprintf(extra, sizeof extra, ",\"sysfs_root\":\"%s\"", root);
    assert_int_equal(up_fake(extra), CUBE_OK);
    char *out = NULL;
    assert_int_equal(accel()->discover(state, &out), CUBE_OK);
    assert_non_null(strstr(out, "\"memory\":\"143771Mi\",\"numa\":1,\"domain\""));
    assert_null(strstr(out, "\"numa\":0"));          /* -1 and absent: no numa */
    free(out);
    for (int i = 4; i >= 0; i--) {
        if (i >= 3) {
            snprintf(path, sizeof path, "%s%s/numa_node", root, dirs[i]);
            unlink(path);
        }
        snprintf(path, sizeof path, "%s%s", root, dirs[i]);
        rmdir(path);
    }
    rmdir(root);
}

static void pins_by_uuid_and_by_index(void **st)
{
    (void)st;
    expect_pin("[\"0\",\"1\"]", 1.0,
               "{\"CUDA_VISIBLE_DEVICES\":\"" UUID0 "," UUID1 "\","
               "\"NVIDIA_VISIBLE_DEVICES\":\"" UUID0 "," UUID1 "\"}");
    teardown(NULL);
    assert_int_equal(up_fake(",\"pin_by\":\"index\""), CUBE_OK);
    expect_pin(" [ \"2\" , \"0\" ] ", 1.0,
               "{\"CUDA_VISIBLE_DEVICES\":\"2,0\",\"NVIDIA_VISIBLE_DEVICES\":\"2,0\","
               "\"CUDA_DEVICE_ORDER\":\"PCI_BUS_ID\"}");
}

static void shares_use_mps_settings(void **st)
{
    (void)st;
    teardown(NULL);
    assert_int_equal(up_fake(",\"mps_pipe_directory\":\"/run/nvidia-mps\""), CUBE_OK);
    expect_pin("[\"1\"]", 0.25,
               "{\"CUDA_VISIBLE_DEVICES\":\"" UUID1 "\",\"NVIDIA_VISIBLE_DEVICES\":\"" UUID1 "\","
               "\"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE\":\"25\","
               "\"CUDA_MPS_PINNED_DEVICE_MEM_LIMIT\":\"0=35942M\","
               "\"CUDA_MPS_PIPE_DIRECTORY\":\"/run/nvidia-mps\"}");
    teardown(NULL);
    assert_int_equal(up_fake(",\"mps_memory_limit\":false"), CUBE_OK);
    expect_pin("[\"2\"]", 0.005,
               "{\"CUDA_VISIBLE_DEVICES\":\"" UUID2 "\",\"NVIDIA_VISIBLE_DEVICES\":\"" UUID2 "\","
               "\"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE\":\"1\"}");
}

static void bad_pins_are_refused(void **st)
{
    (void)st;
    expect_pin("[\"3\"]", 1.0, NULL);
    expect_pin("[\"0\",\"1\"]", 0.5, NULL);
    expect_pin("[\"0\"]", 0.0, NULL);
    expect_pin("[\"0\"]", 2.0, NULL);
    expect_pin("[]", 1.0, NULL);
    expect_pin("[0]", 1.0, NULL);
    expect_pin("[\"0\"", 1.0, NULL);
    expect_pin("[\"0\"] x", 1.0, NULL);
    expect_pin("[\"-1\"]", 1.0, NULL);
    expect_pin(NULL, 1.0, NULL);
}

static void usage_reports_utilisation_and_memory(void **st)
{
    (void)st;
    expect_doc(accel()->usage,
        "[{\"id\":\"0\",\"utilization\":0.93,\"memoryUsed\":\"10Gi\",\"memoryTotal\":\"143771Mi\"},"
        "{\"id\":\"1\",\"utilization\":0.00,\"memoryUsed\":\"0\",\"memoryTotal\":\"143771Mi\"},"
        "{\"id\":\"2\",\"utilization\":0.07,\"memoryUsed\":\"1Gi\",\"memoryTotal\":\"23034Mi\"}]");
}

static void expect_idle(void)
{
    expect_doc(accel()->discover, "[]");
    expect_doc(accel()->usage, "[]");
    assert_int_equal(log_lines, 1);
    expect_pin("[\"0\"]", 1.0, NULL);
}

static void absent_library_logs_one_line(void **st)
{
    (void)st;
    assert_int_equal(up("{\"nvml_library\":\"/nonexistent/libnvidia-ml.so.1\"}"), CUBE_OK);
    assert_string_equal(last_line, "/nonexistent/libnvidia-ml.so.1 not found: no NVIDIA devices");
    expect_idle();
    teardown(NULL);
    void *real = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (real) {
        dlclose(real);
        return; /* a machine with the driver: the default finds it */
    }
    assert_int_equal(up(NULL), CUBE_OK);
    assert_string_equal(last_line, "libnvidia-ml.so.1 not found: no NVIDIA devices");
    expect_idle();
}

static void broken_library_or_driver(void **st)
{
    (void)st;
    assert_int_equal(up("{\"nvml_library\":\"libc.so.6\"}"), CUBE_OK);
    assert_string_equal(last_line, "libc.so.6 cannot be used (libc.so.6 lacks nvmlInit_v2): "
                                   "no NVIDIA devices");
    expect_idle();
    teardown(NULL);
    setenv("FAKE_NVML_INIT", "9", 1);
    assert_int_equal(up_fake(NULL), CUBE_OK);
    assert_string_equal(last_line, "NVML: Driver Not Loaded: no NVIDIA devices");
    expect_idle();
}

static void fini_shuts_nvml_down(void **st)
{
    (void)st;
    void *fake = dlopen(FAKE_NVML, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(fake);
    int (*refcount)(void);
    *(void **)&refcount = dlsym(fake, "fake_nvml_refcount");
    assert_non_null(refcount);
    assert_int_equal(refcount(), 1);
    teardown(NULL);
    assert_int_equal(refcount(), 0);
    dlclose(fake);
}

/* A fake /dev: files named as the driver's nodes (pin checks they exist;
 * the executor checks they are devices). nodes: names, NULL-terminated. */
static void fake_dev(char *root, const char *const *nodes)
{
    char path[256];
    assert_non_null(mkdtemp(root));
    for (int i = 0; nodes[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", root, nodes[i]);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fclose(f);
    }
}

static void drop_dev(char *root, const char *const *nodes)
{
    char path[256];
    for (int i = 0; nodes[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", root, nodes[i]);
        unlink(path);
    }
    rmdir(root);
}

static void pins_device_nodes_by_minor_number(void **st)
{
    (void)st;
    teardown(NULL);
    static const char *const nodes[] = {"nvidia0", "nvidia3", "nvidiactl", "nvidia-uvm", NULL};
    char root[] = "/tmp/fake-dev-XXXXXX", extra[128], want[1024], *pin = NULL;
    fake_dev(root, nodes);
    snprintf(extra, sizeof extra, ",\"dev_root\":\"%s\"", root);
    assert_int_equal(up_fake(extra), CUBE_OK);
    assert_int_equal(accel()->pin(state, "[\"0\",\"1\"]", 1.0, &pin), CUBE_OK);
    snprintf(want, sizeof want,
             "{\"env\":{\"CUDA_VISIBLE_DEVICES\":\"" UUID0 "," UUID1 "\",\"NVIDIA_VISIBLE_DEVICES\":"
             "\"" UUID0 "," UUID1 "\"},\"deviceNodes\":["
             "{\"path\":\"/dev/nvidia0\",\"hostPath\":\"%s/nvidia0\"},"
             "{\"path\":\"/dev/nvidia3\",\"hostPath\":\"%s/nvidia3\"},"   /* GPU 1's minor */
             "{\"path\":\"/dev/nvidiactl\",\"hostPath\":\"%s/nvidiactl\"},"
             "{\"path\":\"/dev/nvidia-uvm\",\"hostPath\":\"%s/nvidia-uvm\"}],\"mounts\":[]}",
             root, root, root, root);
    assert_string_equal(pin, want);
    free(pin);
    pin = NULL;
    /* GPU 2 is /dev/nvidia1, absent here: refused with the reason */
    assert_int_equal(accel()->pin(state, "[\"2\"]", 1.0, &pin), CUBE_EIO);
    assert_null(pin);
    assert_non_null(strstr(cube_mock_last_error(), "GPU 2: no device node"));
    assert_int_equal(accel()->pin(state, "[\"7\"]", 1.0, &pin), CUBE_EINVAL);
    drop_dev(root, nodes);
}

/* The fake NVML's run-time knobs. */
static void fake_call(const char *fn, int gpu, unsigned long long xid)
{
    void *fake = dlopen(FAKE_NVML, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(fake);
    void *f = dlsym(fake, fn);
    assert_non_null(f);
    if (!strcmp(fn, "fake_nvml_xid"))
        ((void (*)(int, unsigned long long))f)(gpu, xid);
    else
        ((void (*)(int))f)(gpu);
    dlclose(fake);
}

static void pushes_health_from_xids_lost_gpus_and_pages(void **st)
{
    (void)st;
    char why[160];
    const char *res = "nvidia.com/gpu";
    assert_true(cube_mock_run_timers() >= 1);           /* the health check */
    assert_int_equal(cube_mock_device_health(res, "0", NULL, 0), -1);   /* nothing to say */
    fake_call("fake_nvml_xid", 0, 79);                  /* fell off the bus: critical */
    fake_call("fake_nvml_xid", 1, 13);                  /* the application's own fault */
    cube_mock_run_timers();
    assert_int_equal(cube_mock_device_health(res, "0", why, sizeof why), 0);
    assert_non_null(strstr(why, "XID 79"));
    assert_int_equal(cube_mock_device_health(res, "1", NULL, 0), -1);
    fake_call("fake_nvml_lose", 2, 0);
    cube_mock_run_timers();
    assert_int_equal(cube_mock_device_health(res, "2", why, sizeof why), 0);
    assert_string_equal(why, "NVML cannot reach it: GPU is lost");
    fake_call("fake_nvml_lose", -1, 0);
    cube_mock_run_timers();
    assert_int_equal(cube_mock_device_health(res, "2", NULL, 0), 1);   /* back */
    assert_int_equal(cube_mock_device_health(res, "0", NULL, 0), 0);   /* an XID sticks */
    teardown(NULL);
    setenv("FAKE_NVML_PENDING", "1", 1);
    assert_int_equal(up_fake(NULL), CUBE_OK);
    cube_mock_run_timers();
    assert_int_equal(cube_mock_device_health(res, "1", why, sizeof why), 0);
    assert_string_equal(why, "retired memory pages wait for a GPU reset");
    teardown(NULL);
    assert_int_equal(up_fake(",\"health_interval_ms\":0"), CUBE_OK);
    assert_int_equal(cube_mock_run_timers(), 0);        /* off */
}

static void expect_error(const char *config, const char *setting)
{
    assert_int_not_equal(up(config), CUBE_OK);
    assert_null(state);
    const char *err = cube_mock_last_error();
    if (strncmp(err, setting, strlen(setting)) != 0)
        fail_msg("error \"%s\" does not start with \"%s\"", err, setting);
    cube_mock_reset(NULL, NULL);
}

static void bad_config_names_the_setting(void **st)
{
    (void)st;
    expect_error("{\"nvml_library\":\"\"}", "nvml_library:");
    expect_error("{\"resource\":\"gpu\"}", "resource:");
    expect_error("{\"pin_by\":\"slot\"}", "pin_by:");
    expect_error("{\"mps_pipe_directory\":\"run/mps\"}", "mps_pipe_directory:");
    expect_error("{\"sysfs_root\":\"sys\"}", "sysfs_root:");
    expect_error("{\"dev_root\":\"dev\"}", "dev_root:");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
#define B(f) cmocka_unit_test_teardown(f, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(registers_and_opens_nvml), T(discovers_model_memory_mig_numa_domains),
        T(nvswitch_makes_one_island), T(lost_gpu_is_unhealthy),
        T(numa_from_sysfs_when_nvml_cannot_say), T(pins_by_uuid_and_by_index),
        T(shares_use_mps_settings), T(bad_pins_are_refused),
        T(usage_reports_utilisation_and_memory), T(pins_device_nodes_by_minor_number),
        T(pushes_health_from_xids_lost_gpus_and_pages), B(absent_library_logs_one_line),
        B(broken_library_or_driver), T(fini_shuts_nvml_down),
        cmocka_unit_test(bad_config_names_the_setting),
    };
    return cmocka_run_group_tests_name("accel-nvidia plugin (fake host, fake NVML)", tests,
                                       NULL, NULL);
}
