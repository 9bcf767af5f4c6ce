/* test_mock_statedep.c — the statedep test plugin in the fake host: it
 * gets statekv's API only when the API is there, new enough, and
 * exported by a plugin its descriptor requires. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <cube/cube.h>

#include "cube_mock.h"
#include "statekv_api.h"

const struct cube_plugin_desc *cube_plugin_statedep(void);

static const char *greet(void)
{
    return "hi";
}

static int calls(void)
{
    return 7;
}

static const struct statekv_api API = {sizeof API, greet, calls};

static void test_requires_declared(void **ts)
{
    (void)ts;
    const struct cube_plugin_desc *d = cube_plugin_statedep();
    assert_non_null(d->dependencies);
    assert_string_equal(d->dependencies[0], "statekv>=1.2");
    assert_null(d->dependencies[1]);
}

static void test_api_from_required_plugin(void **ts)
{
    (void)ts;
    void *state;
    assert_int_equal(cube_mock_api_provide("statekv", STATEKV_API_NAME, 2, &API), CUBE_OK);
    assert_int_equal(cube_mock_init(cube_plugin_statedep(), NULL, &state), CUBE_OK);
    cube_mock_set_user("admin", "admin");
    struct cube_mock_response r = cube_mock_request("GET", "/api/v1/statedep/hello", NULL,
                                                    NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.body, "\"greet\":\"hi\""));
    assert_non_null(strstr(r.body, "\"version\":2"));
    cube_mock_response_free(&r);
    cube_mock_reset(cube_plugin_statedep(), state);
}

static void test_api_too_old(void **ts)
{
    (void)ts;
    void *state;
    assert_int_equal(cube_mock_api_provide("statekv", STATEKV_API_NAME, 1, &API), CUBE_OK);
    assert_int_equal(cube_mock_init(cube_plugin_statedep(), NULL, &state), CUBE_EVERSION);
    assert_non_null(strstr(cube_mock_last_error(), "api_get"));
    cube_mock_reset(NULL, NULL);
}

static void test_api_missing_or_not_required(void **ts)
{
    (void)ts;
    void *state;
    assert_int_equal(cube_mock_init(cube_plugin_statedep(), NULL, &state), CUBE_ENOTFOUND);
    cube_mock_reset(NULL, NULL);
    /* the same API from a plugin statedep does not require */
    assert_int_equal(cube_mock_api_provide("intruder", STATEKV_API_NAME, 2, &API), CUBE_OK);
    assert_int_equal(cube_mock_init(cube_plugin_statedep(), NULL, &state), CUBE_EPERM);
    assert_non_null(strstr(cube_mock_last_log(), "dependencies"));
    cube_mock_reset(NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_requires_declared),
        cmocka_unit_test(test_api_from_required_plugin),
        cmocka_unit_test(test_api_too_old),
        cmocka_unit_test(test_api_missing_or_not_required),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
