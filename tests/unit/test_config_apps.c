/* test_config_apps.c — cube.yaml's apps origin keys (config_apps.c):
 * apps_listen, apps_origin (with its per-object placeholders) and
 * console_origin, good and bad, with the exact file:line:col of each
 * message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "config/config.h"
#include "config_fixture.h"

static void unset_by_default(void **state)
{
    (void)state;
    struct cube_config cfg;
    put("cube.yaml", "listen: \"127.0.0.1:9000\"\n");
    load_ok("cube.yaml", &cfg);
    assert_int_equal(cfg.apps_listen_set, 0);   /* the listener takes port 9001 */
    assert_null(cfg.apps_origin);
    assert_null(cfg.console_origin);
    cube_config_free(&cfg);
}

static void good_values(void **state)
{
    (void)state;
    struct cube_config cfg;
    put("cube.yaml", "apps_listen: \"[::1]:8443\"\n"
                     "apps_origin: \"https://{name}--{project}.apps.cube.example/\"\n"
                     "console_origin: \"https://cube.example:8443\"\n");
    load_ok("cube.yaml", &cfg);
    assert_int_equal(cfg.apps_listen_set, 1);
    assert_string_equal(cfg.apps_listen_host, "::1");
    assert_int_equal(cfg.apps_listen_port, 8443);
    /* the trailing slash goes: origins are compared as browsers send them */
    assert_string_equal(cfg.apps_origin, "https://{name}--{project}.apps.cube.example");
    assert_string_equal(cfg.console_origin, "https://cube.example:8443");
    cube_config_free(&cfg);
    put("cube.yaml", "apps_origin: \"http://[::1]:8081\"\n");
    load_ok("cube.yaml", &cfg);
    assert_string_equal(cfg.apps_origin, "http://[::1]:8081");
    cube_config_free(&cfg);
}

static void bad_values_name_the_key(void **state)
{
    (void)state;
    yaml_fails("apps_listen: 8081\n",
               "cube.yaml:1:14: apps_listen: expected \"host:port\", got 8081");
    yaml_fails("apps_origin: apps.example\n",
               "cube.yaml:1:14: apps_origin: must start with http:// or https://");
    yaml_fails("apps_origin: \"https://apps.example/x\"\n", "cube.yaml:1:14: apps_origin: an "
               "origin has no path, query or user part (scheme://host[:port])");
    yaml_fails("apps_origin: \"https://me@apps.example\"\n", "cube.yaml:1:14: apps_origin: the "
               "host may hold letters, digits, '.', '-', {project} and {name} only");
    yaml_fails("apps_origin: \"https://{user}.apps.example\"\n", "cube.yaml:1:14: apps_origin: "
               "the host may hold letters, digits, '.', '-', {project} and {name} only");
    yaml_fails("apps_origin: \"https://apps.example:0\"\n",
               "cube.yaml:1:14: apps_origin: the port must be a number from 1 to 65535");
    yaml_fails("apps_origin: \"https://\"\n", "cube.yaml:1:14: apps_origin: the host is missing");
    yaml_fails("console_origin: \"https://{name}.example\"\n", "cube.yaml:1:17: console_origin: "
               "the host may hold letters, digits, '.' and '-' only");
    yaml_fails("console_origin: 5\n",
               "cube.yaml:1:17: console_origin: expected a string of at most 255 characters");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(unset_by_default, setup, teardown),
        cmocka_unit_test_setup_teardown(good_values, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_values_name_the_key, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
