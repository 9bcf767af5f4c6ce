/* test_schema_check.c — cube_schema_check on good and bad schemas, the
 * nesting bound (deep schemas, instances and combinators) and validation
 * from several threads at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "schema/schema.h"
#include "schema_fixture.h"

/* ---- schema_check -------------------------------------------------------- */

static void test_check_accepts_good_schema(void **state)
{
    char why[256];
    assert_int_equal(check(TASKS_SCHEMA, why, sizeof why), 0);
    assert_int_equal(check("{\"type\":[\"string\",\"null\"],"
        "\"enum\":[\"a\",null],"
        "\"items\":[true,{}],\"additionalItems\":false,\"oneOf\":[{}],"
        "\"format\":\"whatever\",\"default\":[],\"const\":1,"
        "\"x-extension\":{\"anything\":5},\"title\":\"t\"}",
        why, sizeof why), 0);
}

static void test_check_rejects_bad_schemas(void **state)
{
    assert_check_fails("{\"type\":5}",
                       "type: must be a type name or an array of type names");
    assert_check_fails("{\"type\":\"strng\"}", "type: unknown type \"strng\"");
    assert_check_fails("{\"properties\":{\"name\":{\"type\":[\"string\",1]}}}",
                       "properties.name.type: must be a type name");
    assert_check_fails("{\"pattern\":\"([a-z\"}",
                       "pattern: invalid pattern ([a-z");
    assert_check_fails("{\"minLength\":-1}",
                       "minLength: must be a non-negative");
    assert_check_fails("{\"maxItems\":1.5}",
                       "maxItems: must be a non-negative");
    assert_check_fails("{\"minimum\":\"1\"}", "minimum: must be a number");
    assert_check_fails("{\"required\":\"name\"}", "required: must be an array");
    assert_check_fails("{\"enum\":[]}", "enum: must be a non-empty array");
    assert_check_fails("{\"uniqueItems\":1}",
                       "uniqueItems: must be true or false");
    assert_check_fails("{\"properties\":[]}", "properties: must be an object");
    assert_check_fails("{\"items\":[{},3]}", "items[1]: must be a schema");
    assert_check_fails("{\"anyOf\":[]}", "anyOf: must be a non-empty array");
    assert_check_fails("{\"not\":\"x\"}", "not: must be a schema");
    assert_check_fails("{\"allOf\":[{\"properties\":"
                       "{\"a\":{\"$ref\":\"#\"}}}]}",
                       "allOf[0].properties.a.$ref: $ref is not supported");
    assert_check_fails("[]", "schema must be an object");
    assert_check_fails("{\"format\":1}", "format: must be a string");
}

static void test_check_error_buffer_edge_cases(void **state)
{
    cJSON *s = parse("{\"type\":5}");
    assert_int_equal(cube_schema_check(s, NULL, 0), -1);
    char tiny[8];
    assert_int_equal(cube_schema_check(s, tiny, sizeof tiny), -1);
    assert_true(strlen(tiny) < sizeof tiny);
    assert_int_equal(cube_schema_check(NULL, tiny, sizeof tiny), -1);
    cJSON_Delete(s);
}

/* ---- nesting bound ------------------------------------------------------- */

/* {"items":{"items":...{}}} and [[...[]]] nested `depth` levels. */
static cJSON *nested_items_schema(int depth)
{
    cJSON *s = cJSON_CreateObject();
    for (int i = 0; i < depth; i++) {
        cJSON *outer = cJSON_CreateObject();
        cJSON_AddItemToObject(outer, "items", s);
        s = outer;
    }
    return s;
}

static cJSON *nested_array(int depth)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < depth; i++) {
        cJSON *outer = cJSON_CreateArray();
        cJSON_AddItemToArray(outer, a);
        a = outer;
    }
    return a;
}

static void test_deep_nesting_is_an_error(void **state)
{
    cJSON *s = nested_items_schema(200), *i = nested_array(200);
    struct cube_schema_error err;
    assert_int_equal(cube_schema_validate(s, i, 0, NULL, &err, 1), 1);
    assert_string_equal(err.message, "nesting too deep");
    assert_true(strncmp(err.path, "[0][0][0]", 9) == 0);
    char why[256];
    assert_int_equal(cube_schema_check(s, why, sizeof why), -1);
    assert_non_null(strstr(why, "nesting too deep"));
    assert_int_equal(cube_schema_apply_defaults(s, i), 0);
    cJSON_Delete(s);
    cJSON_Delete(i);
}

static void test_moderate_nesting_is_fine(void **state)
{
    cJSON *s = nested_items_schema(20), *i = nested_array(20);
    assert_int_equal(cube_schema_validate(s, i, 0, NULL, NULL, 0), 0);
    char why[256];
    assert_int_equal(cube_schema_check(s, why, sizeof why), 0);
    cJSON_Delete(s);
    cJSON_Delete(i);
}

static void test_deep_values_in_equality(void **state)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddItemToObject(s, "const", nested_array(5000));
    cJSON *i = nested_array(5000);
    struct cube_schema_error err;
    assert_int_equal(cube_schema_validate(s, i, 0, NULL, &err, 1), 1);
    assert_string_equal(err.message, "nesting too deep");
    cJSON_Delete(s);
    s = parse("{\"uniqueItems\":true}");
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToArray(arr, nested_array(5000));
    cJSON_AddItemToArray(arr, nested_array(5000));
    assert_int_equal(cube_schema_validate(s, arr, 0, NULL, &err, 1), 1);
    assert_string_equal(err.message, "nesting too deep");
    cJSON_Delete(arr);
    cJSON_Delete(s);
    cJSON_Delete(i);
}

static void test_deep_combinators(void **state)
{
    cJSON *s = cJSON_CreateObject();
    for (int d = 0; d < 100; d++) {
        cJSON *outer = cJSON_CreateObject();
        cJSON *list = cJSON_AddArrayToObject(outer, "anyOf");
        cJSON_AddItemToArray(list, s);
        s = outer;
    }
    cJSON *i = cJSON_CreateNumber(1);
    assert_int_equal(cube_schema_validate(s, i, 0, NULL, NULL, 0), 1);
    cJSON_Delete(s);
    cJSON_Delete(i);
}

/* ---- threads ------------------------------------------------------------ */

struct worker {
    const cJSON *schema;
    int failures;
};

static void *validate_repeatedly(void *arg)
{
    struct worker *w = arg;
    for (int n = 0; n < 300; n++) {
        char text[96];
        snprintf(text, sizeof text,
                 "{\"name\":\"%s\",\"tasks\":[{\"retries\":%d}]}",
                 n % 2 ? "ok" : "NOT", n % 3 ? 1 : -1);
        cJSON *i = cJSON_Parse(text);
        struct cube_schema_error err[4];
        int want = (n % 2 ? 0 : 1) + (n % 3 ? 0 : 1);
        if (cube_schema_validate(w->schema, i, CUBE_SCHEMA_STRICT, "t", err, 4)
            != want)
            w->failures++;
        cJSON_Delete(i);
    }
    return NULL;
}

static void test_concurrent_validation(void **state)
{
    cJSON *s = parse(TASKS_SCHEMA);
    pthread_t threads[4];
    struct worker workers[4];
    for (int t = 0; t < 4; t++) {
        workers[t] = (struct worker){.schema = s};
        assert_int_equal(pthread_create(&threads[t], NULL, validate_repeatedly,
                                        &workers[t]), 0);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(threads[t], NULL);
        assert_int_equal(workers[t].failures, 0);
    }
    cJSON_Delete(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_accepts_good_schema),
        cmocka_unit_test(test_check_rejects_bad_schemas),
        cmocka_unit_test(test_check_error_buffer_edge_cases),
        cmocka_unit_test(test_deep_nesting_is_an_error),
        cmocka_unit_test(test_moderate_nesting_is_fine),
        cmocka_unit_test(test_deep_values_in_equality),
        cmocka_unit_test(test_deep_combinators),
        cmocka_unit_test(test_concurrent_validation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
