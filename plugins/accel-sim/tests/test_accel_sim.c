/* test_accel_sim.c — accel-sim with the fake host: registration, discover,
 * pin_env (whole devices and shares), usage, config errors; ABI 1.5 pin
 * (device nodes, mounts), partitions (prepare, pin, release) and the route
 * that pushes device health. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "cube_mock.h"

const struct cube_plugin_desc *cube_plugin_accel_sim(void);

static void *state;

static const char CONFIG[] =
    "{\"resource\":\"sim.cube.dev/gpu\",\"devices\":["
    "{\"id\":\"0\",\"model\":\"SimA100\",\"memory\":\"80Gi\",\"numa\":0,\"domain\":\"nvl-0\","
    " \"utilization\":0.5,\"memory_used\":\"10Gi\"},"
    "{\"id\":\"1\",\"model\":\"SimA100\",\"memory\":\"80Gi\",\"numa\":0,\"domain\":\"nvl-0\"},"
    "{\"id\":\"2\",\"model\":\"SimA100\",\"memory\":\"80Gi\",\"numa\":1,\"healthy\":false}]}";

static int setup(void **st)
{
    (void)st;
    return cube_mock_init(cube_plugin_accel_sim(), CONFIG, &state);
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(cube_plugin_accel_sim(), state);
    state = NULL;
    return 0;
}

static const struct cube_accel_desc *accel(void)
{
    const struct cube_accel_desc *a = cube_mock_accel("sim");
    assert_non_null(a);
    return a;
}

static void registers_the_vendor(void **st)
{
    (void)st;
    const struct cube_accel_desc *a = accel();
    assert_string_equal(a->resource, "sim.cube.dev/gpu");
    assert_non_null(a->usage);
    assert_string_equal(cube_plugin_accel_sim()->name, "accel-sim");
}

static void discovers_configured_devices(void **st)
{
    (void)st;
    char *out = NULL;
    assert_int_equal(accel()->discover(state, &out), CUBE_OK);
    assert_string_equal(out,
        "[{\"id\":\"0\",\"model\":\"SimA100\",\"memory\":\"80Gi\",\"numa\":0,\"domain\":\"nvl-0\","
        "\"healthy\":true,\"resource\":\"sim.cube.dev/gpu\"},"
        "{\"id\":\"1\",\"model\":\"SimA100\",\"memory\":\"80Gi\",\"numa\":0,\"domain\":\"nvl-0\","
        "\"healthy\":true,\"resource\":\"sim.cube.dev/gpu\"},"
        "{\"id\":\"2\",\"model\":\"SimA100\",\"memory\":\"80Gi\",\"numa\":1,\"healthy\":false,"
        "\"resource\":\"sim.cube.dev/gpu\"}]");
    free(out);
}

static void pins_whole_devices_and_shares(void **st)
{
    (void)st;
    char *env = NULL;
    assert_int_equal(accel()->pin_env(state, "[\"0\",\"2\"]", 1.0, &env), CUBE_OK);
    assert_string_equal(env, "{\"SIM_VISIBLE_DEVICES\":\"0,2\"}");
    free(env);
    env = NULL;
    assert_int_equal(accel()->pin_env(state, "[\"1\"]", 0.25, &env), CUBE_OK);
    assert_string_equal(env, "{\"SIM_VISIBLE_DEVICES\":\"1\",\"SIM_DEVICE_SHARE\":\"0.25\"}");
    free(env);
    env = NULL;
    assert_int_equal(accel()->pin_env(state, "[\"7\"]", 1.0, &env), CUBE_EINVAL);
    assert_int_equal(accel()->pin_env(state, "[\"0\",\"1\"]", 0.5, &env), CUBE_EINVAL);
    assert_int_equal(accel()->pin_env(state, "[\"0\"]", 0, &env), CUBE_EINVAL);
    assert_int_equal(accel()->pin_env(state, "[\"0\"]", 1.5, &env), CUBE_EINVAL);
    assert_int_equal(accel()->pin_env(state, "[]", 1, &env), CUBE_EINVAL);
    assert_int_equal(accel()->pin_env(state, "{", 1, &env), CUBE_EINVAL);
    assert_int_equal(accel()->pin_env(state, "[0]", 1, &env), CUBE_EINVAL);
    assert_null(env);
}

static void usage_reports_configured_figures(void **st)
{
    (void)st;
    char *out = NULL;
    assert_int_equal(accel()->usage(state, &out), CUBE_OK);
    assert_string_equal(out, "[{\"id\":\"0\",\"utilization\":0.5,\"memoryUsed\":\"10Gi\"},"
                             "{\"id\":\"1\",\"utilization\":0,\"memoryUsed\":\"0\"},"
                             "{\"id\":\"2\",\"utilization\":0,\"memoryUsed\":\"0\"}]");
    free(out);
}

static void custom_variable_names(void **st)
{
    (void)st;
    teardown(NULL);
    assert_int_equal(cube_mock_init(cube_plugin_accel_sim(),
        "{\"resource\":\"example.com/npu\",\"visible_env\":\"NPU_VISIBLE\","
        "\"share_env\":\"NPU_SHARE\",\"devices\":[{\"id\":\"npu-a\"}]}", &state), CUBE_OK);
    const struct cube_accel_desc *a = cube_mock_accel("sim");
    assert_string_equal(a->resource, "example.com/npu");
    char *env = NULL;
    assert_int_equal(a->pin_env(state, "[\"npu-a\"]", 0.5, &env), CUBE_OK);
    assert_string_equal(env, "{\"NPU_VISIBLE\":\"npu-a\",\"NPU_SHARE\":\"0.5\"}");
    free(env);
    /* local_devices fills in defaults and the resource */
    cube_plugin *self;
    int rc;
    const struct cube_host *h = cube_mock_host("{\"resource\":\"example.com/npu\","
                                               "\"devices\":[{\"id\":\"npu-a\"}]}", &self);
    char *all = h->local_devices(self, &rc);
    assert_non_null(strstr(all, "\"id\":\"npu-a\",\"model\":\"sim\",\"memory\":\"16Gi\""));
    h->free(all);
}

static void no_devices_is_fine(void **st)
{
    (void)st;
    teardown(NULL);
    assert_int_equal(cube_mock_init(cube_plugin_accel_sim(), NULL, &state), CUBE_OK);
    char *out = NULL;
    assert_int_equal(cube_mock_accel("sim")->discover(state, &out), CUBE_OK);
    assert_string_equal(out, "[]");
    free(out);
}

/* ABI 1.5: the config of the pin, partition and health cases. */
static const char PINNED[] =
    "{\"devices\":[{\"id\":\"0\",\"device_node\":\"/dev/sim0\",\"host_path\":\"/dev/null\"},"
    "{\"id\":\"1\",\"device_node\":\"/dev/sim1\",\"partitioned\":true},"
    "{\"id\":\"2\",\"prepare_error\":\"no slices left on device 2\"},{\"id\":\"3\"}],"
    "\"mounts\":[{\"host_path\":\"/opt/sim\",\"path\":\"/opt/sim\"}]}";

static void pins_device_nodes_and_mounts(void **st)
{
    (void)st;
    teardown(NULL);
    assert_int_equal(cube_mock_init(cube_plugin_accel_sim(), PINNED, &state), CUBE_OK);
    char *pin = NULL;
    assert_int_equal(accel()->pin(state, "[\"0\",\"3\"]", 1.0, &pin), CUBE_OK);
    assert_string_equal(pin, "{\"env\":{\"SIM_VISIBLE_DEVICES\":\"0,3\"},\"deviceNodes\":"
                             "[{\"path\":\"/dev/sim0\",\"hostPath\":\"/dev/null\"}],\"mounts\":"
                             "[{\"hostPath\":\"/opt/sim\",\"containerPath\":\"/opt/sim\","
                             "\"readOnly\":true}]}");
    free(pin);
    pin = NULL;
    assert_int_equal(accel()->pin(state, "[\"9\"]", 1.0, &pin), CUBE_EINVAL);
    assert_null(pin);
    assert_non_null(strstr(cube_mock_last_error(), "unknown device id"));
}

static void partitions_are_made_pinned_and_released(void **st)
{
    (void)st;
    teardown(NULL);
    assert_int_equal(cube_mock_init(cube_plugin_accel_sim(), PINNED, &state), CUBE_OK);
    const char *req = "{\"job\":{\"project\":\"p\",\"name\":\"j\",\"uid\":\"u\"},"
                      "\"replica\":0,\"attempt\":1,\"node\":\"n\",\"resource\":"
                      "\"sim.cube.dev/gpu\",\"devices\":[\"1\"],\"share\":0.5}";
    char *prep = NULL, *pin = NULL;
    assert_int_equal(accel()->prepare(state, req, &prep), CUBE_OK);
    assert_string_equal(prep, "{\"devices\":[\"1.p1\"],\"partition\":\"1.p1\"}");
    /* the partition is what gets pinned, with its device's node */
    assert_int_equal(accel()->pin(state, "[\"1.p1\"]", 0.5, &pin), CUBE_OK);
    assert_non_null(strstr(pin, "\"SIM_VISIBLE_DEVICES\":\"1.p1\",\"SIM_DEVICE_SHARE\":\"0.5\""));
    assert_non_null(strstr(pin, "{\"path\":\"/dev/sim1\",\"hostPath\":\"/dev/sim1\"}"));
    free(pin);
    cube_mock_set_user("root", "admin");
    struct cube_mock_response r = cube_mock_request("GET", "/api/v1/accel-sim/partitions", NULL,
                                                    NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.body, "\"live\":{\"1.p1\":{\"device\":\"1\""));
    cube_mock_response_free(&r);
    assert_int_equal(accel()->release(state, req, prep), CUBE_OK);
    assert_int_equal(accel()->release(state, req, prep), CUBE_OK);   /* idempotent */
    r = cube_mock_request("GET", "/api/v1/accel-sim/partitions", NULL, NULL, NULL);
    assert_non_null(strstr(r.body, "\"live\":{}"));
    assert_non_null(strstr(r.body, "{\"op\":\"prepare\",\"request\":{\"job\":{\"project\":\"p\""));
    assert_non_null(strstr(r.body, "{\"op\":\"release\""));
    cube_mock_response_free(&r);
    free(prep);
    prep = NULL;
    /* whole devices without partitions: declined; a failing device: its reason */
    assert_int_equal(accel()->prepare(state, "{\"devices\":[\"0\"]}", &prep), CUBE_DECLINED);
    assert_int_equal(accel()->prepare(state, "{\"devices\":[\"2\"]}", &prep), CUBE_EIO);
    assert_string_equal(cube_mock_last_error(), "no slices left on device 2");
    assert_null(prep);
}

static void health_route_pushes_device_health(void **st)
{
    (void)st;
    teardown(NULL);
    assert_int_equal(cube_mock_init(cube_plugin_accel_sim(), PINNED, &state), CUBE_OK);
    char why[64];
    cube_mock_set_user("root", "admin");
    struct cube_mock_response r = cube_mock_request(
        "PUT", "/api/v1/accel-sim/devices/1/health", NULL, NULL,
        "{\"healthy\":false,\"reason\":\"simulated XID 79\"}");
    assert_int_equal(r.status, 200);
    cube_mock_response_free(&r);
    assert_int_equal(cube_mock_device_health("sim.cube.dev/gpu", "1", why, sizeof why), 0);
    assert_string_equal(why, "simulated XID 79");
    r = cube_mock_request("PUT", "/api/v1/accel-sim/devices/1/health", NULL, NULL,
                          "{\"healthy\":true}");
    assert_int_equal(r.status, 200);
    cube_mock_response_free(&r);
    assert_int_equal(cube_mock_device_health("sim.cube.dev/gpu", "1", NULL, 0), 1);
    r = cube_mock_request("PUT", "/api/v1/accel-sim/devices/7/health", NULL, NULL,
                          "{\"healthy\":true}");
    assert_int_equal(r.status, 404);
    cube_mock_response_free(&r);
    r = cube_mock_request("PUT", "/api/v1/accel-sim/devices/1/health", NULL, NULL,
                          "{\"healthy\":\"no\"}");
    assert_int_equal(r.status, 422);
    cube_mock_response_free(&r);
    cube_mock_set_user("bob", "dev");   /* administrators only */
    r = cube_mock_request("PUT", "/api/v1/accel-sim/devices/1/health", NULL, NULL,
                          "{\"healthy\":false}");
    assert_int_equal(r.status, 403);
    cube_mock_response_free(&r);
}

static void expect_error(const char *config, const char *setting)
{
    void *s = NULL;
    assert_int_not_equal(cube_mock_init(cube_plugin_accel_sim(), config, &s), CUBE_OK);
    assert_null(s);
    const char *err = cube_mock_last_error();
    if (strncmp(err, setting, strlen(setting)) != 0)
        fail_msg("error \"%s\" does not start with \"%s\"", err, setting);
    cube_mock_reset(NULL, NULL);
}

static void bad_config_names_the_setting(void **st)
{
    (void)st;
    expect_error("{\"resource\":\"gpu\"}", "resource:");
    expect_error("{\"resource\":7}", "resource:");
    expect_error("{\"visible_env\":\"1BAD\"}", "visible_env:");
    expect_error("{\"share_env\":\"A-B\"}", "share_env:");
    expect_error("{\"devices\":{}}", "devices:");
    expect_error("{\"devices\":[{\"model\":\"x\"}]}", "devices[0].id:");
    expect_error("{\"devices\":[{\"id\":\"a,b\"}]}", "devices[0].id:");
    expect_error("{\"devices\":[{\"id\":\"a\"},{\"id\":\"a\"}]}", "devices[1].id:");
    expect_error("{\"devices\":[{\"id\":\"a\",\"utilization\":2}]}", "devices[0].utilization:");
    expect_error("{\"devices\":[{\"id\":\"a\",\"numa\":-1}]}", "devices[0].numa:");
    expect_error("{\"devices\":[{\"id\":\"a\",\"memory\":\"lots\"}]}", "devices[0].memory:");
    expect_error("{\"devices\":[{\"id\":\"a\",\"healthy\":1}]}", "devices[0].healthy:");
    expect_error("{\"devices\":[{\"id\":\"a\",\"device_node\":\"/etc/x\"}]}",
                 "devices[0].device_node:");
    expect_error("{\"devices\":[{\"id\":\"a\",\"host_path\":\"/dev/null\"}]}",
                 "devices[0].host_path:");
    expect_error("{\"mounts\":[{\"host_path\":\"/a/../b\",\"path\":\"/b\"}]}", "mounts[0]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(registers_the_vendor, setup, teardown),
        cmocka_unit_test_setup_teardown(discovers_configured_devices, setup, teardown),
        cmocka_unit_test_setup_teardown(pins_whole_devices_and_shares, setup, teardown),
        cmocka_unit_test_setup_teardown(usage_reports_configured_figures, setup, teardown),
        cmocka_unit_test_setup_teardown(custom_variable_names, setup, teardown),
        cmocka_unit_test_setup_teardown(no_devices_is_fine, setup, teardown),
        cmocka_unit_test_setup_teardown(pins_device_nodes_and_mounts, setup, teardown),
        cmocka_unit_test_setup_teardown(partitions_are_made_pinned_and_released, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(health_route_pushes_device_health, setup, teardown),
        cmocka_unit_test(bad_config_names_the_setting),
    };
    return cmocka_run_group_tests_name("accel-sim plugin (fake host)", tests, NULL, NULL);
}
