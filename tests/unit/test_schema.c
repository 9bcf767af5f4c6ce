/* test_schema.c — unit tests for the JSON Schema validator (schema.h):
 * every keyword with its message, error paths and nodes, STRICT and
 * defaults. Patterns are test_schema_pattern.c's; schema_check, the
 * nesting bound and threads test_schema_check.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "schema/schema.h"
#include "schema_fixture.h"

/* ---- type ---------------------------------------------------------------- */

static void test_type_names(void **state)
{
    assert_valid("{\"type\":\"string\"}", "\"x\"");
    assert_valid("{\"type\":\"number\"}", "1.5");
    assert_valid("{\"type\":\"object\"}", "{}");
    assert_valid("{\"type\":\"array\"}", "[]");
    assert_valid("{\"type\":\"boolean\"}", "false");
    assert_valid("{\"type\":\"null\"}", "null");
    assert_invalid("{\"type\":\"null\"}", "0");
    assert_invalid("{\"type\":\"boolean\"}", "0");
    assert_invalid("{\"type\":\"array\"}", "{}");
    assert_invalid("{\"type\":\"number\"}", "\"1\"");
}

static void test_type_integer_accepts_whole_floats(void **state)
{
    assert_valid("{\"type\":\"integer\"}", "1.0");
    assert_valid("{\"type\":\"integer\"}", "-3");
    assert_valid("{\"type\":\"integer\"}", "1e3");
    assert_error("{\"type\":\"integer\"}", "1.5", "", "must be an integer");
    assert_error("{\"type\":\"integer\"}", "\"1\"", "", "must be an integer");
}

static void test_type_messages(void **state)
{
    assert_error("{\"type\":\"object\"}", "[]", "", "must be an object");
    assert_error("{\"type\":\"null\"}", "1", "", "must be null");
    assert_error("{\"type\":[\"string\",\"integer\"]}", "true", "",
                 "must be a string or an integer");
    assert_error("{\"type\":[\"string\",\"array\",\"null\"]}", "1", "",
                 "must be a string, an array or null");
    assert_valid("{\"type\":[\"string\",\"null\"]}", "null");
}

static void test_type_mismatch_hides_other_keywords(void **state)
{
    /* one clear message rather than a type error plus an enum error */
    assert_error("{\"type\":\"string\",\"enum\":[\"a\"]}", "3", "",
                 "must be a string");
}

/* ---- enum, const --------------------------------------------------------- */

static void test_enum(void **state)
{
    assert_valid("{\"enum\":[\"a\",\"b\"]}", "\"b\"");
    assert_error("{\"enum\":[\"a\",\"b\"]}", "\"c\"", "",
                 "must be one of: \"a\", \"b\"");
    assert_valid("{\"enum\":[1,2]}", "1.0");
    assert_valid("{\"enum\":[{\"a\":[1,{\"b\":null}]}]}",
                 "{\"a\":[1.0,{\"b\":null}]}");
    assert_invalid("{\"enum\":[{\"a\":1}]}", "{\"a\":1,\"b\":2}");
    assert_invalid("{\"enum\":[[1,2]]}", "[2,1]");
    assert_invalid("{\"enum\":[0]}", "false");
    assert_invalid("{\"enum\":[null]}", "0");
}

static void test_enum_message_is_truncated(void **state)
{
    char schema[2048] = "{\"enum\":[";
    for (int i = 0; i < 100; i++)
        snprintf(schema + strlen(schema), sizeof schema - strlen(schema),
                 "%s\"value-%d\"", i ? "," : "", i);
    strcat(schema, "]}");
    cJSON *s = parse(schema), *inst = parse("\"nope\"");
    struct cube_schema_error err;
    assert_int_equal(cube_schema_validate(s, inst, 0, NULL, &err, 1), 1);
    assert_true(strncmp(err.message, "must be one of: \"value-0\"", 25) == 0);
    assert_true(strlen(err.message) == sizeof err.message - 1);
    assert_string_equal(err.message + strlen(err.message) - 3, "...");
    cJSON_Delete(s);
    cJSON_Delete(inst);
}

static void test_const(void **state)
{
    assert_valid("{\"const\":{\"a\":1,\"b\":[true]}}",
                 "{\"b\":[true],\"a\":1}");
    assert_error("{\"const\":\"on\"}", "\"off\"", "",
                 "must be equal to \"on\"");
    assert_error("{\"const\":null}", "false", "", "must be equal to null");
    assert_valid("{\"const\":2}", "2.0");
}

/* ---- numbers ------------------------------------------------------------- */

static void test_numeric_bounds(void **state)
{
    assert_error("{\"minimum\":1}", "0", "", "must be >= 1");
    assert_error("{\"maximum\":10}", "10.5", "", "must be <= 10");
    assert_error("{\"exclusiveMinimum\":0}", "0", "", "must be > 0");
    assert_error("{\"exclusiveMaximum\":5}", "5", "", "must be < 5");
    assert_error("{\"minimum\":0.5}", "0.25", "", "must be >= 0.5");
    assert_error("{\"minimum\":0.1}", "0", "", "must be >= 0.1");
    assert_valid("{\"minimum\":1,\"maximum\":1}", "1");
    assert_valid("{\"exclusiveMinimum\":0}", "0.001");
    assert_valid("{\"minimum\":5}", "\"not a number\"");
}

/* ---- strings ------------------------------------------------------------- */

static void test_string_length_counts_code_points(void **state)
{
    assert_valid("{\"maxLength\":5}", "\"h\\u00e9llo\"");
    assert_valid("{\"minLength\":2,\"maxLength\":2}", "\"\\ud83d\\udca9!\"");
    assert_error("{\"minLength\":3}", "\"ab\"", "",
                 "must be at least 3 characters long");
    assert_error("{\"maxLength\":2}", "\"\\u00e9\\u00e9\\u00e9\"", "",
                 "must be at most 2 characters long");
    assert_valid("{\"minLength\":1}", "5");
}

static void test_format(void **state)
{
    const char *dt = "{\"format\":\"date-time\"}";
    assert_valid(dt, "\"2024-02-29T23:59:60.5+05:30\"");
    assert_valid(dt, "\"2023-01-01t00:00:00z\"");
    assert_error(dt, "\"2023-02-29T00:00:00Z\"", "",
                 "must be a valid date-time");
    assert_invalid(dt, "\"2023-01-01T24:00:00Z\"");
    assert_invalid(dt, "\"2023-01-01T10:00:00\"");  /* offset required */
    assert_invalid(dt, "\"2023-01-01 10:00:00Z\"");
    assert_invalid(dt, "\"2023-01-01T10:00:00.Z\"");
    assert_invalid(dt, "\"2023-1-01T10:00:00Z\"");
    assert_invalid(dt, "\"1900-02-29T00:00:00Z\"");
    const char *email = "{\"format\":\"email\"}";
    assert_valid(email, "\"first.last+tag@mail.example.org\"");
    assert_error(email, "\"no-at-sign\"", "", "must be a valid email address");
    assert_invalid(email, "\".dot@example.com\"");
    assert_invalid(email, "\"a..b@example.com\"");
    assert_invalid(email, "\"a@-example.com\"");
    assert_invalid(email, "\"a@example..com\"");
    assert_invalid(email, "\"a b@example.com\"");
    assert_invalid(email, "\"a@b@example.com\"");
    const char *uri = "{\"format\":\"uri\"}";
    assert_valid(uri, "\"https://user@host.example:8443/p/a%20th?q=1#frag\"");
    assert_valid(uri, "\"urn:isbn:0451450523\"");
    assert_valid(uri, "\"http://[::1]:80/\"");
    assert_error(uri, "\"/relative/path\"", "", "must be a valid URI");
    assert_invalid(uri, "\"http://exa mple.com\"");
    assert_invalid(uri, "\"1http://x\"");
    assert_invalid(uri, "\"abc\"");       /* no scheme separator */
    assert_invalid(uri, "\"a.b-c+d\"");
    assert_invalid(uri, "\"http://x/%zz\"");
    assert_invalid(uri, "\"http://x/#a#b\"");
    assert_invalid(uri, "\"http://x:80a/\"");
    assert_valid("{\"format\":\"hostname\"}", "\"not checked\"");
    assert_valid(dt, "42"); /* formats only constrain strings */
}

/* ---- arrays -------------------------------------------------------------- */

static void test_items(void **state)
{
    assert_error("{\"items\":{\"type\":\"integer\"}}", "[1,2,\"x\"]", "[2]",
                 "must be an integer");
    assert_valid("{\"items\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}",
                 "[\"a\",1,true]");
    assert_error("{\"items\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}",
                 "[\"a\",\"b\"]", "[1]", "must be an integer");
    assert_error("{\"items\":[{},{}],\"additionalItems\":false}", "[1,2,3]",
                 "", "must have at most 2 items");
    assert_error("{\"items\":[{}],\"additionalItems\":{\"type\":\"string\"}}",
                 "[1,\"a\",2]", "[2]", "must be a string");
    assert_valid("{\"items\":{},\"additionalItems\":false}", "[1,2,3]");
}

static void test_item_counts(void **state)
{
    assert_error("{\"maxItems\":5}", "[1,2,3,4,5,6]", "",
                 "must have at most 5 items");
    assert_error("{\"minItems\":1}", "[]", "", "must have at least 1 item");
    assert_error("{\"minItems\":2}", "[1]", "", "must have at least 2 items");
    assert_error("{\"maxLength\":1}", "\"ab\"", "",
                 "must be at most 1 character long");
    assert_valid("{\"minItems\":1,\"maxItems\":1}", "[0]");
}

static void test_unique_items(void **state)
{
    assert_error("{\"uniqueItems\":true}", "[1,2,1.0]", "",
                 "must not contain duplicates ([2] equals [0])");
    assert_valid("{\"uniqueItems\":true}", "[1,\"1\",true,[1],{\"a\":1}]");
    assert_invalid("{\"uniqueItems\":true}",
                   "[{\"a\":1,\"b\":2},{\"b\":2,\"a\":1}]");
    assert_valid("{\"uniqueItems\":false}", "[1,1]");
}

/* ---- objects ------------------------------------------------------------- */

static void test_nested_error_path_and_node(void **state)
{
    cJSON *s = parse(TASKS_SCHEMA);
    cJSON *i = parse("{\"name\":\"job\",\"tasks\":[{},{\"retries\":1},"
                     "{\"retries\":\"three\"}]}");
    struct cube_schema_error err;
    assert_int_equal(cube_schema_validate(s, i, 0, "spec", &err, 1), 1);
    assert_string_equal(err.path, "spec.tasks[2].retries");
    assert_string_equal(err.message, "must be an integer");
    const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(i, "tasks");
    assert_ptr_equal(err.node, cJSON_GetObjectItemCaseSensitive(
                                   cJSON_GetArrayItem(tasks, 2), "retries"));
    cJSON_Delete(s);
    cJSON_Delete(i);
}

static void test_required_names_missing_key(void **state)
{
    cJSON *s = parse(TASKS_SCHEMA), *i = parse("{\"tasks\":[]}");
    struct cube_schema_error err;
    assert_int_equal(cube_schema_validate(s, i, 0, "spec", &err, 1), 1);
    assert_string_equal(err.path, "spec.name");
    assert_string_equal(err.message, "is required");
    assert_ptr_equal(err.node, i); /* the object lacking the key */
    cJSON_Delete(s);
    cJSON_Delete(i);
    assert_error("{\"required\":[\"a\",\"b\"]}", "{\"a\":1}", "b",
                 "is required");
    assert_valid("{\"required\":[\"a\"]}", "[]"); /* only objects */
    assert_invalid("{\"required\":[\"A\"]}", "{\"a\":1}"); /* case matters */
}

static void test_prefix_and_root_paths(void **state)
{
    assert_error_with("{\"type\":\"string\"}", "1", 0, NULL, "",
                      "must be a string");
    assert_error_with("{\"type\":\"string\"}", "1", 0, "", "",
                      "must be a string");
    assert_error_with("{\"type\":\"string\"}", "1", 0, "spec", "spec",
                      "must be a string");
    assert_error_with("{\"items\":{\"type\":\"string\"}}", "[1]", 0, NULL,
                      "[0]", "must be a string");
    assert_error_with("{\"items\":{\"type\":\"string\"}}", "[1]", 0, "args",
                      "args[0]", "must be a string");
    assert_error_with("{\"properties\":{\"x\":{\"type\":\"string\"}}}",
                      "{\"x\":1}", 0, NULL, "x", "must be a string");
    assert_error_with("{\"properties\":{\"a\":{\"items\":{\"items\":"
                      "{\"type\":\"null\"}}}}}", "{\"a\":[[null],[null,0]]}",
                      0, "p", "p.a[1][1]", "must be null");
}

static void test_long_paths_are_truncated(void **state)
{
    char key[300];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    cJSON *s = parse("{\"additionalProperties\":{\"type\":\"string\"}}");
    cJSON *i = cJSON_CreateObject();
    cJSON_AddNumberToObject(i, key, 1);
    struct cube_schema_error err;
    assert_int_equal(cube_schema_validate(s, i, 0, "spec", &err, 1), 1);
    assert_int_equal(strlen(err.path), sizeof err.path - 1);
    assert_true(strncmp(err.path, "spec.kkk", 8) == 0);
    cJSON_Delete(s);
    cJSON_Delete(i);
}

static void test_strict_rejects_unknown_keys(void **state)
{
    const char *schema = "{\"properties\":{\"name\":{},\"size\":{}}}";
    assert_int_equal(count_errors(schema, "{\"name\":1,\"foo\":2}", 0), 0);
    assert_error_with(schema, "{\"name\":1,\"foo\":2}", CUBE_SCHEMA_STRICT,
                      "spec", "spec.foo", "unknown field \"foo\"");
    /* the offending node is the unknown member's value */
    cJSON *s = parse(schema), *i = parse("{\"foo\":[1]}");
    struct cube_schema_error err;
    assert_int_equal(cube_schema_validate(s, i, CUBE_SCHEMA_STRICT, NULL,
                                          &err, 1), 1);
    assert_ptr_equal(err.node, cJSON_GetObjectItemCaseSensitive(i, "foo"));
    cJSON_Delete(s);
    cJSON_Delete(i);
}

static void test_strict_respects_explicit_additional_properties(void **state)
{
    assert_int_equal(count_errors("{\"properties\":{\"a\":{}},"
                                  "\"additionalProperties\":true}",
                                  "{\"b\":1}", CUBE_SCHEMA_STRICT), 0);
    assert_int_equal(count_errors("{\"properties\":{\"a\":{}},"
                                  "\"additionalProperties\":"
                                  "{\"type\":\"integer\"}}",
                                  "{\"b\":1}", CUBE_SCHEMA_STRICT), 0);
    /* no "properties": nothing to be strict against */
    assert_int_equal(count_errors("{\"type\":\"object\"}", "{\"b\":1}",
                                  CUBE_SCHEMA_STRICT), 0);
    /* nested objects are strict too */
    assert_error_with("{\"properties\":{\"a\":{\"properties\":{\"x\":{}}}}}",
                      "{\"a\":{\"y\":1}}", CUBE_SCHEMA_STRICT, NULL, "a.y",
                      "unknown field \"y\"");
}

static void test_additional_properties(void **state)
{
    assert_error("{\"properties\":{\"a\":{}},\"additionalProperties\":false}",
                 "{\"a\":1,\"zz\":2}", "zz", "unknown field \"zz\"");
    assert_error("{\"additionalProperties\":{\"type\":\"boolean\"}}",
                 "{\"flag\":1}", "flag", "must be a boolean");
    assert_error("{\"properties\":{\"off\":false}}", "{\"off\":1}", "off",
                 "is not allowed");
}

static void test_property_counts(void **state)
{
    assert_error("{\"minProperties\":2}", "{\"a\":1}", "",
                 "must have at least 2 properties");
    assert_error("{\"maxProperties\":1}", "{\"a\":1,\"b\":2}", "",
                 "must have at most 1 property");
}

/* ---- combinators and boolean schemas ------------------------------------ */

static void test_combinators(void **state)
{
    const char *any = "{\"anyOf\":[{\"type\":\"string\"},{\"minimum\":10}]}";
    assert_valid(any, "\"x\"");
    assert_valid(any, "12");
    assert_error(any, "3", "", "must match at least one schema in anyOf");
    const char *one = "{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":2}]}";
    assert_valid(one, "1");
    assert_error(one, "3", "",
                 "must match exactly one schema in oneOf, "
                 "matched more than one");
    assert_error(one, "1.5", "",
                 "must match exactly one schema in oneOf, matched none");
    assert_error("{\"allOf\":[{\"type\":\"object\"},{\"required\":[\"id\"]}]}",
                 "{}", "id", "is required");
    assert_error("{\"not\":{\"type\":\"null\"}}", "null", "",
                 "must not match the schema in not");
    assert_valid("{\"not\":{\"type\":\"null\"}}", "0");
}

static void test_combinator_errors_stay_hidden(void **state)
{
    /* branch errors of anyOf must not leak into the error list */
    cJSON *s = parse("{\"anyOf\":["
                     "{\"properties\":{\"a\":{\"type\":\"string\"}}},"
                     "{\"required\":[\"b\"]}]}");
    cJSON *i = parse("{\"a\":1}");
    struct cube_schema_error errs[4];
    assert_int_equal(cube_schema_validate(s, i, 0, NULL, errs, 4), 1);
    assert_string_equal(errs[0].path, "");
    assert_string_equal(errs[0].message,
                        "must match at least one schema in anyOf");
    cJSON_Delete(s);
    cJSON_Delete(i);
}

static void test_boolean_schemas(void **state)
{
    assert_valid("true", "{\"anything\":[1]}");
    assert_error("false", "1", "", "is not allowed");
    assert_error("{\"items\":false}", "[1]", "[0]", "is not allowed");
    assert_valid("{\"items\":false}", "[]");
}

/* ---- error collection ---------------------------------------------------- */

static void test_error_count_beyond_max(void **state)
{
    cJSON *s = parse("{\"items\":{\"type\":\"string\"}}");
    cJSON *i = parse("[1,2,3,4,5]");
    struct cube_schema_error errs[3];
    memset(errs, 0, sizeof errs);
    assert_int_equal(cube_schema_validate(s, i, 0, NULL, errs, 2), 5);
    assert_string_equal(errs[0].path, "[0]");
    assert_string_equal(errs[1].path, "[1]");
    assert_string_equal(errs[2].path, ""); /* untouched */
    assert_int_equal(cube_schema_validate(s, i, 0, NULL, NULL, 0), 5);
    assert_int_equal(cube_schema_validate(s, i, 0, NULL, errs, -1), 5);
    cJSON_Delete(s);
    cJSON_Delete(i);
}

static void test_reports_every_problem(void **state)
{
    cJSON *s = parse(TASKS_SCHEMA);
    cJSON *i = parse("{\"name\":\"Bad Name\",\"tasks\":[{\"retries\":-1},7]}");
    struct cube_schema_error errs[8];
    assert_int_equal(cube_schema_validate(s, i, 0, NULL, errs, 8), 3);
    assert_string_equal(errs[0].path, "name");
    assert_string_equal(errs[0].message, "must match pattern ^[a-z]+$");
    assert_string_equal(errs[1].path, "tasks[0].retries");
    assert_string_equal(errs[1].message, "must be >= 0");
    assert_string_equal(errs[2].path, "tasks[1]");
    assert_string_equal(errs[2].message, "must be an object");
    cJSON_Delete(s);
    cJSON_Delete(i);
}

static void test_null_arguments(void **state)
{
    cJSON *s = parse("{}");
    struct cube_schema_error err;
    assert_int_equal(cube_schema_validate(s, NULL, 0, NULL, &err, 1), 1);
    assert_string_equal(err.message, "is missing");
    assert_int_equal(cube_schema_validate(NULL, s, 0, NULL, &err, 1), 1);
    assert_int_equal(cube_schema_apply_defaults(s, NULL), 0);
    cJSON_Delete(s);
}

/* ---- defaults ------------------------------------------------------------ */

static void test_defaults_fill_absent_members(void **state)
{
    cJSON *s = parse("{\"properties\":{"
        "\"port\":{\"type\":\"integer\",\"default\":8080},"
        "\"host\":{\"default\":\"localhost\"},"
        "\"tls\":{\"type\":\"object\",\"default\":{},\"properties\":{"
        "\"enabled\":{\"default\":false}}},"
        "\"workers\":{\"type\":\"array\",\"items\":{\"properties\":{"
        "\"threads\":{\"default\":4}}}}}}");
    cJSON *i = parse("{\"host\":\"example\",\"workers\":[{},{\"threads\":8}]}");
    assert_int_equal(cube_schema_apply_defaults(s, i), 0);
    cJSON *want = parse("{\"host\":\"example\",\"workers\":[{\"threads\":4},"
        "{\"threads\":8}],\"port\":8080,\"tls\":{\"enabled\":false}}");
    if (!cJSON_Compare(i, want, 1)) {
        char *got = cJSON_PrintUnformatted(i);
        fail_msg("defaults gave %s", got);
    }
    assert_int_equal(cube_schema_validate(s, i, 0, NULL, NULL, 0), 0);
    cJSON_Delete(want);
    cJSON_Delete(i);
    cJSON_Delete(s);
}

static void test_defaults_are_copies(void **state)
{
    cJSON *s = parse("{\"properties\":{\"tags\":{\"default\":[\"a\"]}}}");
    cJSON *i = parse("{}");
    assert_int_equal(cube_schema_apply_defaults(s, i), 0);
    cJSON *tags = cJSON_GetObjectItemCaseSensitive(i, "tags");
    cJSON_AddItemToArray(tags, cJSON_CreateString("b"));
    cJSON *def = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(s, "properties"), "tags"),
        "default");
    assert_int_equal(cJSON_GetArraySize(def), 1);
    cJSON_Delete(i);
    cJSON_Delete(s);
}

static void test_defaults_positional_items_and_additional(void **state)
{
    cJSON *s = parse("{\"items\":[{\"properties\":{\"a\":{\"default\":1}}}],"
                     "\"additionalItems\":{}}");
    cJSON *i = parse("[{},{}]");
    assert_int_equal(cube_schema_apply_defaults(s, i), 0);
    cJSON *want = parse("[{\"a\":1},{}]");
    assert_true(cJSON_Compare(i, want, 1));
    cJSON_Delete(want);
    cJSON_Delete(i);
    cJSON_Delete(s);
    s = parse("{\"additionalProperties\":{\"properties\":{\"on\":"
              "{\"default\":true}}}}");
    i = parse("{\"x\":{},\"y\":{\"on\":false}}");
    assert_int_equal(cube_schema_apply_defaults(s, i), 0);
    want = parse("{\"x\":{\"on\":true},\"y\":{\"on\":false}}");
    assert_true(cJSON_Compare(i, want, 1));
    cJSON_Delete(want);
    cJSON_Delete(i);
    cJSON_Delete(s);
}

static void test_defaults_leave_non_objects_alone(void **state)
{
    cJSON *s = parse("{\"properties\":{\"a\":{\"default\":1}}}");
    cJSON *i = parse("\"scalar\"");
    assert_int_equal(cube_schema_apply_defaults(s, i), 0);
    assert_string_equal(i->valuestring, "scalar");
    cJSON_Delete(i);
    cJSON_Delete(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_names),
        cmocka_unit_test(test_type_integer_accepts_whole_floats),
        cmocka_unit_test(test_type_messages),
        cmocka_unit_test(test_type_mismatch_hides_other_keywords),
        cmocka_unit_test(test_enum),
        cmocka_unit_test(test_enum_message_is_truncated),
        cmocka_unit_test(test_const),
        cmocka_unit_test(test_numeric_bounds),
        cmocka_unit_test(test_string_length_counts_code_points),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_items),
        cmocka_unit_test(test_item_counts),
        cmocka_unit_test(test_unique_items),
        cmocka_unit_test(test_nested_error_path_and_node),
        cmocka_unit_test(test_required_names_missing_key),
        cmocka_unit_test(test_prefix_and_root_paths),
        cmocka_unit_test(test_long_paths_are_truncated),
        cmocka_unit_test(test_strict_rejects_unknown_keys),
        cmocka_unit_test(test_strict_respects_explicit_additional_properties),
        cmocka_unit_test(test_additional_properties),
        cmocka_unit_test(test_property_counts),
        cmocka_unit_test(test_combinators),
        cmocka_unit_test(test_combinator_errors_stay_hidden),
        cmocka_unit_test(test_boolean_schemas),
        cmocka_unit_test(test_error_count_beyond_max),
        cmocka_unit_test(test_reports_every_problem),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_defaults_fill_absent_members),
        cmocka_unit_test(test_defaults_are_copies),
        cmocka_unit_test(test_defaults_positional_items_and_additional),
        cmocka_unit_test(test_defaults_leave_non_objects_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
