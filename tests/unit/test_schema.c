/* test_schema.c — unit tests for the JSON Schema validator (schema.h):
 * every keyword with its message, error paths and nodes, STRICT, defaults,
 * schema_check, the pattern translation and the nesting bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <locale.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "schema.h"
#include "schema_format.h" /* the pattern cache */

/* ---- helpers ------------------------------------------------------------ */

static cJSON *parse(const char *text)
{
    cJSON *j = cJSON_Parse(text);
    if (!j)
        fail_msg("test JSON does not parse: %s", text);
    return j;
}

/* Number of errors for `inst` against `schema` (both JSON text). */
static int count_errors(const char *schema, const char *inst, unsigned flags)
{
    cJSON *s = parse(schema), *i = parse(inst);
    int n = cube_schema_validate(s, i, flags, NULL, NULL, 0);
    cJSON_Delete(s);
    cJSON_Delete(i);
    return n;
}

static void assert_valid(const char *schema, const char *inst)
{
    int n = count_errors(schema, inst, 0);
    if (n != 0)
        fail_msg("%s should accept %s, found %d error(s)", schema, inst, n);
}

static void assert_invalid(const char *schema, const char *inst)
{
    if (count_errors(schema, inst, 0) == 0)
        fail_msg("%s should reject %s", schema, inst);
}

/* Expects exactly one error, with this path and message. */
static void assert_error_with(const char *schema, const char *inst,
                              unsigned flags, const char *prefix,
                              const char *path, const char *message)
{
    cJSON *s = parse(schema), *i = parse(inst);
    struct cube_schema_error errs[4];
    int n = cube_schema_validate(s, i, flags, prefix, errs, 4);
    if (n != 1) {
        cJSON_Delete(s);
        cJSON_Delete(i);
        fail_msg("%s on %s: expected 1 error, found %d (first: %s: %s)",
                 schema, inst, n, n ? errs[0].path : "",
                 n ? errs[0].message : "");
    }
    assert_string_equal(errs[0].path, path);
    assert_string_equal(errs[0].message, message);
    cJSON_Delete(s);
    cJSON_Delete(i);
}

static void assert_error(const char *schema, const char *inst,
                         const char *path, const char *message)
{
    assert_error_with(schema, inst, 0, NULL, path, message);
}

/* True when the string `s` matches the ECMA pattern. */
static bool pattern_accepts(const char *pattern, const char *s)
{
    cJSON *schema = cJSON_CreateObject();
    cJSON_AddStringToObject(schema, "pattern", pattern);
    cJSON *inst = cJSON_CreateString(s);
    char why[256];
    if (cube_schema_check(schema, why, sizeof why) != 0)
        fail_msg("pattern %s rejected: %s", pattern, why);
    int n = cube_schema_validate(schema, inst, 0, NULL, NULL, 0);
    cJSON_Delete(schema);
    cJSON_Delete(inst);
    return n == 0;
}

/* cube_schema_check's verdict; on failure the message lands in why. */
static int check(const char *schema, char *why, size_t len)
{
    cJSON *s = parse(schema);
    why[0] = '\0';
    int rc = cube_schema_check(s, why, len);
    cJSON_Delete(s);
    return rc;
}

static void assert_check_fails(const char *schema, const char *message)
{
    char why[256];
    if (check(schema, why, sizeof why) == 0)
        fail_msg("cube_schema_check accepted %s", schema);
    if (!strstr(why, message))
        fail_msg("check of %s said \"%s\", expected \"%s\"", schema, why,
                 message);
}

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

static void test_pattern_message(void **state)
{
    assert_error("{\"pattern\":\"^[a-z]+$\"}", "\"abc1\"", "",
                 "must match pattern ^[a-z]+$");
    assert_valid("{\"pattern\":\"^[a-z]+$\"}", "\"abc\"");
    assert_valid("{\"pattern\":\"^[a-z]+$\"}", "12"); /* not a string */
}

static void test_pattern_search_is_unanchored(void **state)
{
    assert_true(pattern_accepts("b+", "abbbc"));
    assert_false(pattern_accepts("^b+", "abbbc"));
    assert_false(pattern_accepts("b+$", "abbbc"));
}

static void test_pattern_shorthands(void **state)
{
    assert_true(pattern_accepts("^\\d+$", "2024"));
    assert_false(pattern_accepts("^\\d+$", "20a4"));
    assert_true(pattern_accepts("^\\w+$", "snake_case9"));
    assert_false(pattern_accepts("^\\w+$", "kebab-case"));
    assert_true(pattern_accepts("^a\\sb$", "a\tb"));
    assert_true(pattern_accepts("^\\D\\W\\S$", "x-y"));
    assert_false(pattern_accepts("^\\D$", "7"));
    assert_false(pattern_accepts("^\\W$", "_"));
    assert_false(pattern_accepts("^\\S$", " "));
}

static void test_pattern_shorthands_in_brackets(void **state)
{
    assert_true(pattern_accepts("^[\\d.]+$", "1.25"));
    assert_false(pattern_accepts("^[\\d.]+$", "1,25"));
    assert_true(pattern_accepts("^[\\w-]+$", "my-job_2"));
    assert_true(pattern_accepts("^[^\\d]+$", "abc"));
    assert_false(pattern_accepts("^[^\\d]+$", "ab3"));
    assert_true(pattern_accepts("^[\\D]$", "x"));
    assert_false(pattern_accepts("^[\\D]$", "5"));
    /* a negated class holding a negated shorthand: digits only */
    assert_true(pattern_accepts("^[^\\D]+$", "123"));
    assert_false(pattern_accepts("^[^\\D]+$", "12x"));
    assert_true(pattern_accepts("^[^\\W_]+$", "abc9"));
    assert_false(pattern_accepts("^[^\\W_]+$", "ab_c"));
    assert_true(pattern_accepts("^[\\s,]+$", " ,\n"));
    assert_true(pattern_accepts("^[\\S]+$", "abc"));
}

static void test_pattern_escapes_and_brackets(void **state)
{
    assert_true(pattern_accepts("^a\\.b$", "a.b"));
    assert_false(pattern_accepts("^a\\.b$", "axb"));
    assert_true(pattern_accepts("^\\/api\\/v1$", "/api/v1"));
    assert_true(pattern_accepts("^[\\]\\[]+$", "][]"));
    assert_true(pattern_accepts("^[a-]+$", "a-a"));
    assert_true(pattern_accepts("^[\\^x]+$", "^x"));
    assert_true(pattern_accepts("^[\\^]$", "^"));
    assert_true(pattern_accepts("^[-^]$", "^"));
    assert_true(pattern_accepts("^[\\\\]$", "\\"));
    assert_true(pattern_accepts("^\\x41\\u0042$", "AB"));
    assert_true(pattern_accepts("^\\u00e9$", "\xc3\xa9"));
    assert_true(pattern_accepts("^a\\nb$", "a\nb"));
    assert_true(pattern_accepts("^\\$\\d+$", "$10"));
    assert_true(pattern_accepts("^[$]$", "$"));
    assert_true(pattern_accepts("^a{2}$", "aa"));
    assert_true(pattern_accepts("^a{$", "a{")); /* not a quantifier */
    assert_true(pattern_accepts("^x}$", "x}"));
}

static void test_pattern_ecma_semantics(void **state)
{
    assert_false(pattern_accepts("^a.b$", "a\nb")); /* '.' stops at \n */
    assert_true(pattern_accepts("^a[^x]b$", "a\nb"));
    assert_false(pattern_accepts("[]", "anything")); /* empty class */
    assert_true(pattern_accepts("^[^]$", "\n"));      /* any character */
    assert_true(pattern_accepts("^(?:ab)+$", "abab"));
    assert_true(pattern_accepts("^(?<word>ab)+$", "abab"));
    assert_true(pattern_accepts("^a+?b*?c??$", "aab"));
    assert_true(pattern_accepts("^a{1,2}?$", "a"));
    assert_true(pattern_accepts("\\bcat\\b", "a cat sat"));
    assert_false(pattern_accepts("\\bcat\\b", "concatenate"));
    assert_true(pattern_accepts("^(foo|bar)-\\d{2,}$", "bar-123"));
}

static void test_pattern_matches_code_points(void **state)
{
    assert_true(pattern_accepts("^.$", "\xc3\xa9"));             /* é */
    assert_true(pattern_accepts("^.$", "\xf0\x9f\x92\xa9"));     /* U+1F4A9 */
    assert_true(pattern_accepts("^.{3}$", "h\xc3\xa9\xe2\x82\xac"));
    assert_false(pattern_accepts("^.$", "\xe2\x80\xa8"));        /* U+2028 */
    assert_true(pattern_accepts("^\\u00e9+$", "\xc3\xa9\xc3\xa9"));
    assert_true(pattern_accepts("^\xc3\xa9+$", "\xc3\xa9\xc3\xa9"));
    assert_true(pattern_accepts("^[\\u00e0-\\u00ff]+$", "\xc3\xa0\xc3\xbf"));
    assert_false(pattern_accepts("^[\\u00e0-\\u00ff]$", "\xc3\x9f"));
    assert_true(pattern_accepts("^[^\xc3\xa9]$", "\xc3\xbc"));   /* ü */
    assert_false(pattern_accepts("^[^\xc3\xa9]$", "\xc3\xa9"));
    assert_true(pattern_accepts("^[^a]$", "\xf0\x9f\x92\xa9"));
    assert_true(pattern_accepts("^\\S$", "\xc3\xa9"));
    assert_true(pattern_accepts("^\\s$", "\xc2\xa0"));           /* NBSP */
    assert_false(pattern_accepts("^\\w$", "\xc3\xa9"));   /* \w is ASCII */
    assert_true(pattern_accepts("^[\\u0400-\\u04ff\\d]+$",
                                "\xd0\x96\xd1\x8f" "7"));
    assert_true(pattern_accepts("^[\\u0800-\\uffff]$", "\xe2\x82\xac"));
    assert_true(pattern_accepts("^\\ud83d\\udca9$", "\xf0\x9f\x92\xa9"));
}

static void test_pattern_ignores_process_locale(void **state)
{
    if (!setlocale(LC_ALL, "C.UTF-8"))
        skip();
    bool accepted = pattern_accepts("^[\u00e0-\u00ff].$",
                                    "\xc3\xa9\xe2\x82\xac");
    setlocale(LC_ALL, "C");
    assert_true(accepted);
}

static void test_pattern_unsupported_features(void **state)
{
    assert_check_fails("{\"pattern\":\"a(?=b)\"}", "lookaround");
    assert_check_fails("{\"pattern\":\"(a)\\\\1\"}", "backreferences");
    assert_check_fails("{\"pattern\":\"\\\\p{L}\"}", "property");
    assert_check_fails("{\"pattern\":\"[z-a]\"}", "out of order");
    assert_check_fails("{\"pattern\":\"[abc\"}", "unterminated");
    assert_check_fails("{\"pattern\":\"abc\\\\\"}", "backslash");
}

static void test_pattern_unusable_at_validation(void **state)
{
    /* without cube_schema_check first, a bad pattern fails closed */
    cJSON *s = parse("{\"pattern\":\"([a-z\"}"), *i = parse("\"abc\"");
    struct cube_schema_error err;
    assert_int_equal(cube_schema_validate(s, i, 0, NULL, &err, 1), 1);
    assert_true(strncmp(err.message, "unusable pattern ([a-z: ", 24) == 0);
    cJSON_Delete(s);
    cJSON_Delete(i);
}

static void test_pattern_reused_across_items(void **state)
{
    char inst[4096] = "[";
    for (int i = 0; i < 200; i++)
        snprintf(inst + strlen(inst), sizeof inst - strlen(inst), "%s\"n%d\"",
                 i ? "," : "", i);
    strcat(inst, ",\"bad!\"]");
    assert_error("{\"items\":{\"pattern\":\"^n\\\\d+$\"}}", inst, "[200]",
                 "must match pattern ^n\\d+$");
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

static const char TASKS_SCHEMA[] =
    "{\"type\":\"object\",\"required\":[\"name\"],\"properties\":{"
    "\"name\":{\"type\":\"string\",\"pattern\":\"^[a-z]+$\"},"
    "\"tasks\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"retries\":{\"type\":\"integer\",\"minimum\":0}}}}}}";

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

/* ---- pattern limits and the compiled-pattern cache ---------------------- */

/* cube_schema_check of {"pattern": pattern}; the message lands in why. */
static int check_pattern(const char *pattern, char *why, size_t len)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "pattern", pattern);
    why[0] = '\0';
    int rc = cube_schema_check(s, why, len);
    cJSON_Delete(s);
    return rc;
}

static void assert_pattern_refused(const char *pattern, const char *message)
{
    char why[256];
    if (check_pattern(pattern, why, sizeof why) == 0)
        fail_msg("pattern %.80s was accepted", pattern);
    if (strncmp(why, "pattern: invalid pattern ", 25) != 0 ||
        !strstr(why, message))
        fail_msg("pattern %.80s: \"%s\", expected \"%s\"", pattern, why,
                 message);
}

/* `unit` written n times (the caller frees). */
static char *repeat_text(const char *unit, size_t n)
{
    size_t len = strlen(unit);
    char *s = malloc(len * n + 1);
    assert_non_null(s);
    for (size_t i = 0; i < n; i++)
        memcpy(s + i * len, unit, len);
    s[len * n] = '\0';
    return s;
}

static void test_pattern_nothing_to_repeat(void **state)
{
    static const char *const bad[] = {
        "a++", "a**", "a*+", "a?*", "a{2}{3}", "a{2}*", "a+{2}", "a???",
        "a+??", "*a", "+", "(+a)", "a|*b", "^*", "$+", "\\b+", "\\B?",
        "a++++++++++++++++++++",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_pattern_refused(bad[i], "nothing to repeat");
    /* a '?' after a quantifier makes it lazy, which changes no verdict */
    assert_true(pattern_accepts("^a+?$", "aaa"));
    assert_true(pattern_accepts("^a*?b??c{1,2}?$", "cc"));
    assert_false(pattern_accepts("^a{1,2}?$", "aaa"));
    /* a brace that is no quantifier stays a literal */
    assert_true(pattern_accepts("^a*{$", "aa{"));
    assert_true(pattern_accepts("^a{,2}$", "a{,2}"));
}

static void test_pattern_repeat_bounds(void **state)
{
    assert_pattern_refused("a{1001}",
                           "too complex: a repeat count above 1000");
    assert_pattern_refused("a{0,1001}", "too complex: a repeat count");
    assert_pattern_refused("a{1001,}", "too complex: a repeat count");
    assert_pattern_refused("a{99999999999999999999}", "too complex");
    assert_pattern_refused("a{5,2}", "out of order");
    char *a1000 = repeat_text("a", 1000), *a10000 = repeat_text("a", 10000);
    assert_true(pattern_accepts("^a{1000}$", a1000));
    assert_false(pattern_accepts("^a{1000}$", a1000 + 1));
    assert_true(pattern_accepts("^a{2,1000}b$", "aab"));
    /* nested repeats multiply: at most 10000 copies in all */
    assert_pattern_refused("(a{0,1000}){0,1000}", "nested repeats");
    assert_pattern_refused("((a{10}){10}){101}",
                           "too complex: nested repeats make more than 10000");
    assert_true(pattern_accepts("^(a{10}){1000}$", a10000));
    assert_pattern_refused("((((((((((((((a+)+)+)+)+)+)+)+)+)+)+)+)+)+)+",
                           "too complex");
    free(a1000);
    free(a10000);
}

static void test_pattern_length_and_alternatives(void **state)
{
    char *max = repeat_text("a", 4096), *over = repeat_text("a", 4097);
    char why[256];
    assert_int_equal(check_pattern(max, why, sizeof why), 0);
    assert_pattern_refused(over, "too complex: longer than 4096 bytes");
    free(max);
    free(over);
    char *alts = repeat_text("a|", 255); /* ends "a|": 256 alternatives */
    assert_true(pattern_accepts(alts, "b"));
    char *more = repeat_text("a|", 256);
    assert_pattern_refused(more, "too complex: more than 256 alternatives");
    free(alts);
    free(more);
    char *open = repeat_text("(", 33), *close = repeat_text(")", 33);
    char *deep = NULL, *ok = NULL;
    assert_true(asprintf(&deep, "%sa%s", open, close) > 0);
    assert_true(asprintf(&ok, "%sa%s", open + 1, close + 1) > 0);
    assert_pattern_refused(deep, "too complex: groups nested");
    assert_true(pattern_accepts(ok, "a")); /* 32 deep is fine */
    free(open);
    free(close);
    free(deep);
    free(ok);
    assert_pattern_refused("(a", "missing ')'");
    assert_pattern_refused("a)", "unmatched ')'");
}

static void test_pattern_empty_repeats_stay_cheap(void **state)
{
    /* ^(a|||...|)+ took regcomp minutes; (a?)+ (a?){0,1000} likewise */
    char *body = repeat_text("|", 255), *pattern = NULL;
    assert_true(asprintf(&pattern, "^(a%s)+$", body) > 0);
    assert_true(pattern_accepts(pattern, "aaa"));
    assert_true(pattern_accepts(pattern, ""));
    assert_false(pattern_accepts(pattern, "ab"));
    free(body);
    free(pattern);
    assert_true(pattern_accepts("^((((((((((a?)+)+)+)+)+)+)+)+)+)+$", "aaaa"));
    assert_false(pattern_accepts("^((((a?)+)+)+)+$", "ab"));
    assert_true(pattern_accepts("^(a?){2,3}$", ""));
    assert_true(pattern_accepts("^(a?){2,3}$", "aaa"));
    assert_false(pattern_accepts("^(a?){2,3}$", "aaaa"));
    assert_true(pattern_accepts("^(a|b?){0,2}c$", "abc"));
    assert_false(pattern_accepts("^(a|b?){0,2}c$", "abac"));
    assert_true(pattern_accepts("^(a?)?b$", "b"));
    assert_true(pattern_accepts("^x(a){0}y$", "xy"));
    assert_true(pattern_accepts("^()*x(|)+y(?:)$", "xy"));
    assert_true(pattern_accepts("^(a||)$", ""));
    assert_true(pattern_accepts("^(|a|)b$", "ab"));
    assert_pattern_refused("^(a?){0,1000}$", "too complex");
    assert_pattern_refused("^.{0,1000}$", "too complex");
    assert_true(pattern_accepts("^.{0,200}$", "short"));
}

static void test_pattern_assertion_limits(void **state)
{
    /* regcomp re-checks assertions along every input-free path */
    assert_pattern_refused("((((\\b|a)+)+)+)+",
                           "too complex: a repeated part can match the empty "
                           "string through an assertion");
    assert_pattern_refused("(\\b)*", "through an assertion");
    assert_pattern_refused("(^|,)+", "through an assertion");
    assert_pattern_refused("\\b\\b\\b\\b\\b\\b\\b\\b\\b",
                           "too complex: more than 8 assertions");
    assert_pattern_refused("(^|$|a?)(^|$|a?)(^|$|a?)(^|$|a?)(^|$|a?)"
                           "(^|$|a?)(^|$|a?)(^|$|a?)(^|$|a?)", "assertions");
    assert_pattern_refused("((a?)*|b?){20}", "too complex: too many ways");
    assert_true(pattern_accepts("^\\bcat\\b$", "cat"));
    assert_true(pattern_accepts("^(\\w+\\b\\s?)+$", "two words"));
    assert_true(pattern_accepts("(^|,)x", "a,x"));
    assert_true(pattern_accepts("^(\\b)?a$", "a"));
}

static void test_pattern_complex_message_keeps_reason(void **state)
{
    char *long_pattern = repeat_text("ab|", 300), why[256];
    assert_int_equal(check_pattern(long_pattern, why, sizeof why), -1);
    assert_non_null(strstr(why, "...: too complex: more than 256"));
    cJSON *s = cJSON_CreateObject(), *i = cJSON_CreateString("x");
    cJSON_AddStringToObject(s, "pattern", long_pattern);
    struct cube_schema_error err;
    assert_int_equal(cube_schema_validate(s, i, 0, NULL, &err, 1), 1);
    assert_non_null(strstr(err.message, "...: too complex: more than 256"));
    cJSON_Delete(s);
    cJSON_Delete(i);
    free(long_pattern);
}

static void test_pattern_cache(void **state)
{
    cube_schema_regex_cache_clear();
    assert_int_equal(cube_schema_regex_cache_count(), 0);
    for (int round = 0; round < 2; round++) { /* the same verdicts twice */
        assert_true(pattern_accepts("^c[a-z]+e$", "cache"));
        assert_false(pattern_accepts("^c[a-z]+e$", "cach"));
    }
    assert_int_equal(cube_schema_regex_cache_count(), 1);
    /* many distinct patterns: the cache stays bounded */
    for (int n = 0; n < 1000; n++) {
        char pattern[32], text[16];
        snprintf(pattern, sizeof pattern, "^p%d$", n);
        snprintf(text, sizeof text, "p%d", n);
        assert_true(pattern_accepts(pattern, text));
        assert_true(cube_schema_regex_cache_count() <= 256);
    }
    assert_int_equal(cube_schema_regex_cache_count(), 256);
    /* a pattern in use outlives its eviction */
    char err[64];
    struct cube_schema_regex *re = cube_schema_regex_get("^held$", err,
                                                         sizeof err);
    assert_non_null(re);
    cube_schema_regex_cache_clear();
    assert_int_equal(cube_schema_regex_cache_count(), 0);
    assert_true(cube_schema_regex_test(re, "held"));
    cube_schema_regex_release(re);
    assert_null(cube_schema_regex_get("a**", err, sizeof err));
    assert_string_equal(err, "nothing to repeat");
    assert_int_equal(cube_schema_regex_cache_count(), 0);
}

static void test_pattern_cache_renews_after_much_text(void **state)
{
    /* regexec's DFA states pile up in a regex_t: after enough text the
     * cache compiles the pattern afresh (the old one lives while held) */
    char err[64], *text = repeat_text("ab", 32768);
    struct cube_schema_regex *first = cube_schema_regex_get("b$", err,
                                                            sizeof err);
    assert_non_null(first);
    struct cube_schema_regex *again = cube_schema_regex_get("b$", err,
                                                            sizeof err);
    assert_ptr_equal(again, first);
    cube_schema_regex_release(again);
    for (int n = 0; n < 200 && again == first; n++) {
        assert_true(cube_schema_regex_test(first, text));
        again = cube_schema_regex_get("b$", err, sizeof err);
        cube_schema_regex_release(again);
    }
    assert_ptr_not_equal(again, first);
    assert_true(cube_schema_regex_test(first, "ab"));
    cube_schema_regex_release(first);
    free(text);
}

/* Whether s matches pattern, without cmocka (for other threads): 1, 0, or
 * -1 when the schema is refused. */
static int quiet_match(const char *pattern, const char *s)
{
    cJSON *schema = cJSON_CreateObject(), *inst = cJSON_CreateString(s);
    cJSON_AddStringToObject(schema, "pattern", pattern);
    int rc = cube_schema_check(schema, NULL, 0) < 0 ? -1
           : cube_schema_validate(schema, inst, 0, NULL, NULL, 0) == 0;
    cJSON_Delete(schema);
    cJSON_Delete(inst);
    return rc;
}

struct cache_worker {
    int id;
    int failures;
};

/* Matches patterns of its own (evicting entries that other threads may be
 * using) and shared ones. */
static void *match_many_patterns(void *arg)
{
    struct cache_worker *w = arg;
    for (int n = 0; n < 600; n++) {
        char pattern[48], text[32];
        snprintf(pattern, sizeof pattern, "^t%d-%d$", w->id, n);
        snprintf(text, sizeof text, "t%d-%d", w->id, n);
        if (quiet_match(pattern, text) != 1 ||
            quiet_match("^t[0-9]+-[0-9]+$", text) != 1 ||
            quiet_match("^shared$", text) != 0)
            w->failures++;
    }
    return NULL;
}

static void test_pattern_cache_concurrent(void **state)
{
    pthread_t threads[4];
    struct cache_worker workers[4];
    for (int t = 0; t < 4; t++) {
        workers[t] = (struct cache_worker){.id = t};
        assert_int_equal(pthread_create(&threads[t], NULL,
                                        match_many_patterns, &workers[t]), 0);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(threads[t], NULL);
        assert_int_equal(workers[t].failures, 0);
    }
    assert_true(cube_schema_regex_cache_count() <= 256);
}

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
        cmocka_unit_test(test_type_names),
        cmocka_unit_test(test_type_integer_accepts_whole_floats),
        cmocka_unit_test(test_type_messages),
        cmocka_unit_test(test_type_mismatch_hides_other_keywords),
        cmocka_unit_test(test_enum),
        cmocka_unit_test(test_enum_message_is_truncated),
        cmocka_unit_test(test_const),
        cmocka_unit_test(test_numeric_bounds),
        cmocka_unit_test(test_string_length_counts_code_points),
        cmocka_unit_test(test_pattern_message),
        cmocka_unit_test(test_pattern_search_is_unanchored),
        cmocka_unit_test(test_pattern_shorthands),
        cmocka_unit_test(test_pattern_shorthands_in_brackets),
        cmocka_unit_test(test_pattern_escapes_and_brackets),
        cmocka_unit_test(test_pattern_ecma_semantics),
        cmocka_unit_test(test_pattern_matches_code_points),
        cmocka_unit_test(test_pattern_ignores_process_locale),
        cmocka_unit_test(test_pattern_unsupported_features),
        cmocka_unit_test(test_pattern_unusable_at_validation),
        cmocka_unit_test(test_pattern_reused_across_items),
        cmocka_unit_test(test_pattern_nothing_to_repeat),
        cmocka_unit_test(test_pattern_repeat_bounds),
        cmocka_unit_test(test_pattern_length_and_alternatives),
        cmocka_unit_test(test_pattern_empty_repeats_stay_cheap),
        cmocka_unit_test(test_pattern_assertion_limits),
        cmocka_unit_test(test_pattern_complex_message_keeps_reason),
        cmocka_unit_test(test_pattern_cache),
        cmocka_unit_test(test_pattern_cache_renews_after_much_text),
        cmocka_unit_test(test_pattern_cache_concurrent),
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
