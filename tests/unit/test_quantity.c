/* test_quantity.c — cpu, memory and device quantities: units, fractions,
 * JSON numbers, and every malformed form refused with a reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "base/quantity.h"

static int64_t milli(const char *json)
{
    cJSON *v = cJSON_Parse(json);
    const char *why = NULL;
    int64_t out = -42;
    int rc = cube_qty_milli(v, &out, &why);
    cJSON_Delete(v);
    return rc < 0 ? -1 : out;
}

static int64_t bytes(const char *json)
{
    cJSON *v = cJSON_Parse(json);
    const char *why = NULL;
    int64_t out = -42;
    int rc = cube_qty_bytes(v, &out, &why);
    cJSON_Delete(v);
    return rc < 0 ? -1 : out;
}

static void cpu_and_devices(void **state)
{
    (void)state;
    assert_int_equal(milli("\"2\""), 2000);
    assert_int_equal(milli("\"500m\""), 500);
    assert_int_equal(milli("\"0.25\""), 250);
    assert_int_equal(milli("\".5\""), 500);
    assert_int_equal(milli("1.5"), 1500);
    assert_int_equal(milli("8"), 8000);
    assert_int_equal(milli("\"0\""), 0);
    assert_int_equal(milli("\"0.0001\""), 1);   /* rounds up, never to 0 */
}

static void memory(void **state)
{
    (void)state;
    assert_int_equal(bytes("\"4Gi\""), INT64_C(4) << 30);
    assert_int_equal(bytes("\"512Mi\""), INT64_C(512) << 20);
    assert_int_equal(bytes("\"512M\""), 512000000);
    assert_int_equal(bytes("\"1.5Gi\""), INT64_C(3) << 29);
    assert_int_equal(bytes("\"1024\""), 1024);
    assert_int_equal(bytes("1048576"), 1048576);
    assert_int_equal(bytes("\"2k\""), 2000);
    assert_int_equal(bytes("\"1Ti\""), INT64_C(1) << 40);
}

static void refused(void **state)
{
    (void)state;
    const char *bad_milli[] = {"\"-1\"", "-1", "\"2x\"", "\"\"", "\"m\"", "\"1..2\"",
                               "\"1 \"", "\"1e3\"", "true", "null", "[]",
                               "\"9999999999999999999\"", "1e300", "\"2Gi\""};
    for (size_t i = 0; i < sizeof bad_milli / sizeof *bad_milli; i++)
        if (milli(bad_milli[i]) != -1)
            fail_msg("milli accepted %s", bad_milli[i]);
    const char *bad_bytes[] = {"\"-4Gi\"", "\"4GB\"", "\"4gi\"", "\"Gi\"", "\"4 Gi\"",
                               "{}", "\"500m\"", "1e300"};
    for (size_t i = 0; i < sizeof bad_bytes / sizeof *bad_bytes; i++)
        if (bytes(bad_bytes[i]) != -1)
            fail_msg("bytes accepted %s", bad_bytes[i]);
    cJSON *v = cJSON_Parse("\"4GB\"");
    const char *why = NULL;
    int64_t out;
    assert_int_equal(cube_qty_bytes(v, &out, &why), -1);
    assert_non_null(why);
    cJSON_Delete(v);
}

static void format(void **state)
{
    (void)state;
    char buf[32];
    cube_qty_format_bytes(INT64_C(4) << 30, buf, sizeof buf);
    assert_string_equal(buf, "4Gi");
    cube_qty_format_bytes(INT64_C(1536) << 20, buf, sizeof buf);
    assert_string_equal(buf, "1536Mi");
    cube_qty_format_bytes(1000, buf, sizeof buf);
    assert_string_equal(buf, "1000");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_and_devices),
        cmocka_unit_test(memory),
        cmocka_unit_test(refused),
        cmocka_unit_test(format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
