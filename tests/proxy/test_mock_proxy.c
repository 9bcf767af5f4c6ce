/* test_mock_proxy.c — the fake host's register_proxy follows the host's
 * prefix rules, so a plugin's unit tests catch what cubed would refuse:
 * the proxyprobe plugin's registrations, run against the mock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cube_mock.h"

const struct cube_plugin_desc *cube_plugin_proxyprobe(void);

static void registrations_as_the_host_checks_them(void **state)
{
    (void)state;
    void *st;
    assert_int_equal(cube_mock_init(cube_plugin_proxyprobe(), "{\"port\":1}", &st), CUBE_OK);
    assert_string_equal(cube_mock_proxy(0)->prefix, "/probe/{project}/{name}");
    assert_true(cube_mock_proxy(0)->login_redirect);
    assert_string_equal(cube_mock_proxy(1)->kind, "ProbeApp");
    assert_true(cube_mock_proxy(1)->strip_prefix);
    assert_string_equal(cube_mock_proxy(2)->prefix, "/healthz/{project}"); /* see below */
    assert_null(cube_mock_proxy(3));
    struct cube_mock_response r =
        cube_mock_request("GET", "/api/v1/proxyprobe/registrations", NULL, NULL, NULL);
    assert_int_equal(r.status, 200);
    /* what the mock refuses as cubed does (core routes, which it does not
     * have, are cubed's alone: test_proxy.py checks those) */
    const char *want[] = {"\"api\":-1", "\"ui\":-1", "\"param_first\":-1", "\"overlap\":-4",
                          "\"overlap_param\":-4", "\"bad_perm\":-1", "\"no_project\":-1",
                          "\"bad_kind\":-1", "\"trailing_slash\":-1", "\"reserved\":-1"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(r.body, want[i]))
            fail_msg("%s not in %s", want[i], r.body);
    cube_mock_response_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registrations_as_the_host_checks_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
