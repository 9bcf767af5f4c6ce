/* test_job_sdk.c — cube.yaml's sdk_pythonpath and the Python SDK on a
 * replica's PYTHONPATH (sched/job_sdk.c): an explicit directory, none,
 * "auto" in the build tree (the source's sdk/python), and PYTHONPATH
 * values the Job set itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/config.h"
#include "config_fixture.h"
#include "cube_build.h"
#include "sched/job_sdk.h"

static void test_config_values(void **state)
{
    (void)state;
    struct cube_config cfg;
    put("cube.yaml", "sdk_pythonpath: /opt/cube-sdk\n");
    load_ok("cube.yaml", &cfg);
    assert_string_equal(cfg.sdk_pythonpath, "/opt/cube-sdk");
    cube_config_free(&cfg);
    put("cube.yaml", "sdk_pythonpath: \"\"\n");
    load_ok("cube.yaml", &cfg);
    assert_string_equal(cfg.sdk_pythonpath, "");
    cube_config_free(&cfg);
    put("cube.yaml", "sdk_pythonpath: auto\n");
    load_ok("cube.yaml", &cfg);
    assert_null(cfg.sdk_pythonpath);
    cube_config_free(&cfg);
    load_ok(NULL, &cfg);
    assert_null(cfg.sdk_pythonpath);   /* the default is auto */
    cube_config_free(&cfg);
}

static void test_config_refuses(void **state)
{
    (void)state;
    yaml_fails("sdk_pythonpath: lib/python\n",
               "cube.yaml:1:17: sdk_pythonpath: expected \"auto\", \"\" or an absolute "
               "path, got \"lib/python\"");
    yaml_fails("sdk_pythonpath: 5\n",
               "cube.yaml:1:17: sdk_pythonpath: expected \"auto\", \"\" or an absolute "
               "path, got 5");
}

/* env's PYTHONPATH after job_sdk_env with sdk_pythonpath = dir, starting
 * from `before` (NULL: unset); a static copy, "(unset)" when absent. */
static const char *after(const char *dir, const char *before)
{
    static char out[512];
    struct cube_config cfg = {.sdk_pythonpath = (char *)dir};
    cJSON *env = cJSON_CreateObject();
    if (before)
        cJSON_AddStringToObject(env, "PYTHONPATH", before);
    cJSON_AddStringToObject(env, "OTHER", "x");
    job_sdk_env(&cfg, env);
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(env, "PYTHONPATH"));
    snprintf(out, sizeof out, "%s", v ? v : "(unset)");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(env, "OTHER")),
                        "x");
    cJSON_Delete(env);
    return out;
}

static void test_env(void **state)
{
    (void)state;
    assert_string_equal(after("/opt/sdk", NULL), "/opt/sdk");
    assert_string_equal(after("/opt/sdk", ""), "/opt/sdk");
    assert_string_equal(after("/opt/sdk", "/mine"), "/mine:/opt/sdk");   /* the Job's first */
    assert_string_equal(after("/opt/sdk", "/opt/sdk"), "/opt/sdk");      /* not twice */
    assert_string_equal(after("/opt/sdk", "/a:/opt/sdk:/b"), "/a:/opt/sdk:/b");
    assert_string_equal(after("/opt/sdk", "/opt/sdk-old"), "/opt/sdk-old:/opt/sdk");
    assert_string_equal(after("", "/mine"), "/mine");                   /* none */
    assert_string_equal(after("", NULL), "(unset)");
}

static void test_auto_in_the_build_tree(void **state)
{
    (void)state;
    struct cube_config cfg = {0};
    /* this test runs from the build tree: the source's sdk/python */
    assert_string_equal(job_sdk_dir(&cfg), CUBE_SDK_PYTHON_SOURCE);
    assert_string_equal(job_sdk_dir(NULL), CUBE_SDK_PYTHON_SOURCE);
    assert_string_equal(after(NULL, NULL), CUBE_SDK_PYTHON_SOURCE);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_config_values),
        T(test_config_refuses),
        T(test_env),
        T(test_auto_in_the_build_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
