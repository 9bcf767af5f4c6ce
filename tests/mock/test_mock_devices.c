/* test_mock_devices.c — the fake host's ABI 1.5 device pinning and health,
 * checked as cubed checks them: accelerators of the 1.3 size (pin_env
 * only), with pin alone, prepare without release refused; device_health's
 * arguments and codes; a pushed state showing in local_devices. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube_mock.h"

static const struct cube_host *host;
static cube_plugin *self;
static int variant;   /* which descriptor probe_init registers */

static int discover(void *state, char **out)
{
    (void)state;
    *out = strdup("[{\"id\":\"0\",\"model\":\"p\"},{\"id\":\"1\",\"healthy\":false}]");
    return *out ? CUBE_OK : CUBE_ENOMEM;
}

static int pin_env(void *state, const char *ids, double share, char **env)
{
    (void)state, (void)ids, (void)share;
    *env = strdup("{\"P\":\"1\"}");
    return CUBE_OK;
}

static int pin(void *state, const char *ids, double share, char **out)
{
    (void)state, (void)ids, (void)share;
    *out = strdup("{\"deviceNodes\":[{\"path\":\"/dev/p0\"}]}");
    return CUBE_OK;
}

static int prepare(void *state, const char *req, char **out)
{
    (void)state, (void)req;
    *out = strdup("{\"devices\":[\"0.a\"]}");
    return CUBE_OK;
}

static int probe_init(const struct cube_host *h, cube_plugin *s, void **state)
{
    host = h;
    self = s;
    *state = NULL;
    struct cube_accel_desc d = {
        .size = sizeof d, .name = "probe", .resource = "probe.cube.dev/dev",
        .discover = discover, .pin_env = pin_env,
    };
    if (variant == 1)   /* as a plugin built against ABI 1.3 registers it */
        d.size = offsetof(struct cube_accel_desc, usage) + sizeof d.usage;
    if (variant == 2) {
        d.pin_env = NULL;
        d.pin = pin;
    }
    if (variant == 3)
        d.prepare = prepare;   /* without release */
    if (variant == 4)
        d.pin_env = NULL;      /* neither pin_env nor pin */
    return h->register_accel(s, &d);
}

static const struct cube_plugin_desc PROBE = {
    .magic = CUBE_PLUGIN_MAGIC, .abi_major = CUBE_ABI_MAJOR, .abi_minor = CUBE_ABI_MINOR,
    .size = sizeof PROBE, .name = "probe", .init = probe_init,
};

static int up(int v)
{
    void *state;
    variant = v;
    return cube_mock_init(&PROBE, NULL, &state);
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(NULL, NULL);
    return 0;
}

static void old_descriptors_have_no_pin(void **st)
{
    (void)st;
    assert_int_equal(up(1), CUBE_OK);
    const struct cube_accel_desc *a = cube_mock_accel("probe");
    assert_non_null(a);
    assert_null(a->pin);
    assert_null(a->prepare);
    assert_null(a->release);
    char *env = NULL;
    assert_int_equal(a->pin_env(NULL, "[\"0\"]", 1.0, &env), CUBE_OK);
    assert_string_equal(env, "{\"P\":\"1\"}");
    free(env);
}

static void pin_alone_is_enough_and_rules_hold(void **st)
{
    (void)st;
    assert_int_equal(up(2), CUBE_OK);
    assert_non_null(cube_mock_accel("probe")->pin);
    cube_mock_reset(NULL, NULL);
    assert_int_equal(up(3), CUBE_EINVAL);   /* prepare needs release */
    cube_mock_reset(NULL, NULL);
    assert_int_equal(up(4), CUBE_EINVAL);   /* nothing pins */
}

static void health_pushes_are_checked_and_shown(void **st)
{
    (void)st;
    char why[64];
    assert_int_equal(up(0), CUBE_OK);
    const char *res = "probe.cube.dev/dev";
    assert_int_equal(cube_mock_device_health(res, "0", why, sizeof why), -1);
    assert_int_equal(host->device_health(self, res, "0", 0, "XID 79"), CUBE_OK);
    assert_int_equal(cube_mock_device_health(res, "0", why, sizeof why), 0);
    assert_string_equal(why, "XID 79");
    int rc;
    char *list = host->local_devices(self, &rc);
    assert_non_null(list);
    assert_non_null(strstr(list, "\"id\":\"0\",\"model\":\"p\",\"resource\":\"probe.cube.dev/dev\","
                                 "\"healthy\":false,\"healthReason\":\"XID 79\""));
    host->free(list);
    assert_int_equal(host->device_health(self, res, "1", 1, NULL), CUBE_OK);
    list = host->local_devices(self, &rc);
    assert_non_null(strstr(list, "\"id\":\"1\",\"resource\":\"probe.cube.dev/dev\","
                                 "\"healthy\":true}"));
    host->free(list);
    assert_int_equal(host->device_health(self, res, "", 0, NULL), CUBE_EINVAL);
    assert_int_equal(host->device_health(self, res, NULL, 0, NULL), CUBE_EINVAL);
    assert_int_equal(host->device_health(self, res, "0", 2, NULL), CUBE_EINVAL);
    assert_int_equal(host->device_health(self, "other.dev/x", "0", 0, NULL), CUBE_ESTATE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(old_descriptors_have_no_pin, teardown),
        cmocka_unit_test_teardown(pin_alone_is_enough_and_rules_hold, teardown),
        cmocka_unit_test_teardown(health_pushes_are_checked_and_shown, teardown),
    };
    return cmocka_run_group_tests_name("fake host: device pinning and health", tests, NULL,
                                       NULL);
}
