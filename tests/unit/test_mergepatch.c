/* test_mergepatch.c — RFC 7386 merge patch (every Appendix A example) and
 * deep JSON equality. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "objects/mergepatch.h"

static cJSON *parse(const char *text)
{
    cJSON *j = cJSON_Parse(text);
    if (!j)
        fail_msg("bad test JSON: %s", text);
    return j;
}

static void assert_unchanged(const cJSON *j, const char *text)
{
    cJSON *orig = parse(text);
    char *a = cJSON_PrintUnformatted(j), *b = cJSON_PrintUnformatted(orig);
    assert_string_equal(a, b);
    free(a);
    free(b);
    cJSON_Delete(orig);
}

/* Applies patch to target and checks the result equals `want`; also checks
 * that neither input changed and that a second application is a no-op. */
static void check_patch(const char *target, const char *patch, const char *want)
{
    cJSON *t = parse(target), *p = parse(patch), *w = parse(want);
    cJSON *r = cube_merge_patch(t, p);
    assert_non_null(r);
    if (!cube_json_equal(r, w)) {
        char *got = cJSON_PrintUnformatted(r);
        fail_msg("%s + %s: got %s, want %s", target, patch, got, want);
    }
    assert_unchanged(t, target);
    assert_unchanged(p, patch);
    cJSON *again = cube_merge_patch(r, p);
    assert_true(cube_json_equal(again, r));
    cJSON_Delete(again);
    cJSON_Delete(r);
    cJSON_Delete(w);
    cJSON_Delete(p);
    cJSON_Delete(t);
}

static void rfc7386_appendix_a(void **st)
{
    static const char *const cases[][3] = {
        {"{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
        {"{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}"},
        {"{\"a\":\"b\"}", "{\"a\":null}", "{}"},
        {"{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}"},
        {"{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
        {"{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}"},
        {"{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}"},
        {"{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}"},
        {"[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]"},
        {"{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]"},
        {"{\"a\":\"foo\"}", "null", "null"},
        {"{\"a\":\"foo\"}", "\"bar\"", "\"bar\""},
        {"{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}"},
        {"[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}"},
        {"{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        check_patch(cases[i][0], cases[i][1], cases[i][2]);
}

static void rfc7386_section3_example(void **st)
{
    check_patch(
        "{\"title\":\"Goodbye!\",\"author\":{\"givenName\":\"John\",\"familyName\":\"Doe\"},"
        "\"tags\":[\"example\",\"sample\"],\"content\":\"This will be unchanged\"}",
        "{\"title\":\"Hello!\",\"phoneNumber\":\"+01-123-456-7890\","
        "\"author\":{\"familyName\":null},\"tags\":[\"example\"]}",
        "{\"title\":\"Hello!\",\"author\":{\"givenName\":\"John\"},\"tags\":[\"example\"],"
        "\"content\":\"This will be unchanged\",\"phoneNumber\":\"+01-123-456-7890\"}");
}

static void result_keeps_target_order_and_appends(void **st)
{
    cJSON *t = parse("{\"x\":1,\"y\":2,\"z\":3}");
    cJSON *p = parse("{\"y\":{\"k\":null,\"n\":true},\"w\":4,\"x\":null}");
    cJSON *r = cube_merge_patch(t, p);
    char *s = cJSON_PrintUnformatted(r);
    assert_string_equal(s, "{\"y\":{\"n\":true},\"z\":3,\"w\":4}");
    free(s);
    cJSON_Delete(r);
    cJSON_Delete(p);
    cJSON_Delete(t);
}

static void null_arguments(void **st)
{
    cJSON *t = parse("{\"a\":1}"), *p = parse("{\"b\":{\"c\":null,\"d\":2}}");
    cJSON *r = cube_merge_patch(NULL, p);
    cJSON *w = parse("{\"b\":{\"d\":2}}");
    assert_true(cube_json_equal(r, w));
    cJSON_Delete(r);
    r = cube_merge_patch(t, NULL);
    assert_true(cube_json_equal(r, t));
    assert_ptr_not_equal(r, t);
    cJSON_Delete(r);
    assert_null(cube_merge_patch(NULL, NULL));
    cJSON_Delete(w);
    cJSON_Delete(p);
    cJSON_Delete(t);
}

static void duplicate_target_keys_collapse(void **st)
{
    check_patch("{\"a\":1,\"b\":0,\"a\":2}", "{\"a\":null}", "{\"b\":0}");
    cJSON *t = parse("{\"a\":1,\"b\":0,\"a\":2}"), *p = parse("{\"a\":3}");
    cJSON *r = cube_merge_patch(t, p);
    char *s = cJSON_PrintUnformatted(r);
    assert_string_equal(s, "{\"a\":3,\"b\":0}");
    free(s);
    cJSON_Delete(r);
    cJSON_Delete(p);
    cJSON_Delete(t);
    check_patch("{\"a\":{\"x\":1},\"a\":{\"y\":2}}", "{\"a\":{\"z\":3}}",
                "{\"a\":{\"x\":1,\"z\":3}}");
}

static void duplicate_patch_keys_apply_in_order(void **st)
{
    check_patch("{}", "{\"a\":1,\"a\":null}", "{}");
    check_patch("{}", "{\"a\":null,\"a\":1}", "{\"a\":1}");
    check_patch("{}", "{\"a\":{\"x\":1},\"a\":{\"y\":2}}", "{\"a\":{\"x\":1,\"y\":2}}");
}

/* open x n, then inner, then close x n: n nested containers. */
static char *nested(const char *open, const char *inner, const char *close,
                    int n)
{
    size_t lo = strlen(open), li = strlen(inner), lc = strlen(close);
    char *s = malloc((size_t)n * (lo + lc) + li + 1), *p = s;
    for (int i = 0; i < n; i++, p += lo)
        memcpy(p, open, lo);
    memcpy(p, inner, li);
    p += li;
    for (int i = 0; i < n; i++, p += lc)
        memcpy(p, close, lc);
    *p = '\0';
    return s;
}

static void nesting_limit_is_64(void **st)
{
    char *ok = nested("{\"k\":", "1", "}", 64), *deep = nested("{\"k\":", "1", "}", 65);
    char *deep_arr = nested("[", "", "]", 65);
    cJSON *jok = parse(ok), *jdeep = parse(deep), *jarr = parse(deep_arr);
    cJSON *empty = parse("{}");
    cJSON *r = cube_merge_patch(empty, jok);
    assert_non_null(r);
    assert_true(cube_json_equal(r, jok));
    cJSON_Delete(r);
    assert_null(cube_merge_patch(empty, jdeep));
    assert_null(cube_merge_patch(jdeep, empty));
    assert_null(cube_merge_patch(empty, jarr));
    cJSON_Delete(empty);
    cJSON_Delete(jarr);
    cJSON_Delete(jdeep);
    cJSON_Delete(jok);
    free(deep_arr);
    free(deep);
    free(ok);
}

static int eq(const char *a, const char *b)
{
    cJSON *x = parse(a), *y = parse(b);
    int r = cube_json_equal(x, y);
    assert_int_equal(cube_json_equal(y, x), r);
    cJSON_Delete(x);
    cJSON_Delete(y);
    return r;
}

static void equality_basics(void **st)
{
    assert_true(eq("1", "1.0"));
    assert_true(eq("100", "1e2"));
    assert_false(eq("1", "2"));
    assert_false(eq("1", "\"1\""));
    assert_true(eq("\"x\"", "\"x\""));
    assert_false(eq("\"x\"", "\"X\""));
    assert_true(eq("true", "true"));
    assert_false(eq("true", "false"));
    assert_false(eq("false", "null"));
    assert_true(eq("null", "null"));
    assert_false(eq("[]", "{}"));
    assert_false(eq("0", "false"));
}

static void equality_containers(void **st)
{
    assert_true(eq("{\"a\":1,\"b\":[1,2]}", "{\"b\":[1,2],\"a\":1}"));
    assert_false(eq("[1,2]", "[2,1]"));
    assert_false(eq("[1,2]", "[1,2,3]"));
    assert_false(eq("{\"a\":1}", "{\"a\":1,\"b\":2}"));
    assert_false(eq("{\"a\":1}", "{\"b\":1}"));
    assert_false(eq("{\"a\":{\"b\":1}}", "{\"a\":{\"b\":2}}"));
    assert_true(eq("{\"a\":{\"b\":[{}]}}", "{\"a\":{\"b\":[{}]}}"));
    assert_false(eq("{\"a\":null}", "{}"));
}

static void equality_duplicate_keys_use_first(void **st)
{
    assert_true(eq("{\"a\":1,\"a\":2}", "{\"a\":1,\"a\":2}"));
    assert_true(eq("{\"a\":1,\"a\":2}", "{\"a\":1}"));
    assert_false(eq("{\"a\":1,\"a\":2}", "{\"a\":2}"));
    assert_false(eq("{\"a\":1,\"a\":1}", "{\"a\":1,\"b\":1}"));
}

static void equality_nulls_and_depth(void **st)
{
    cJSON *one = parse("1");
    assert_true(cube_json_equal(NULL, NULL));
    assert_false(cube_json_equal(NULL, one));
    assert_false(cube_json_equal(one, NULL));
    cJSON_Delete(one);
    char *s64 = nested("[", "", "]", 64), *s65 = nested("[", "", "]", 65);
    cJSON *a64 = parse(s64), *b64 = parse(s64), *a65 = parse(s65), *b65 = parse(s65);
    assert_true(cube_json_equal(a64, b64));
    assert_false(cube_json_equal(a65, b65));
    assert_true(cube_json_equal(a65, a65));
    cJSON_Delete(a64);
    cJSON_Delete(b64);
    cJSON_Delete(a65);
    cJSON_Delete(b65);
    free(s64);
    free(s65);
}

/* An object of n members "k<i>": {"phase": "<phase>"}, in order or reversed. */
static cJSON *big_object(int n, int reversed, const char *phase)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; k < n; k++) {
        char name[16];
        snprintf(name, sizeof name, "k%d", reversed ? n - 1 - k : k);
        cJSON_AddStringToObject(cJSON_AddObjectToObject(o, name), "phase", phase);
    }
    return o;
}

/* Objects of many members (sorted comparison) follow the same rules as
 * small ones: order does not matter, values and names do, first wins. */
static void equality_large_objects(void **st)
{
    (void)st;
    cJSON *a = big_object(500, 0, "Running"), *b = big_object(500, 1, "Running");
    assert_true(cube_json_equal(a, b));
    cJSON_SetValuestring(cJSON_GetObjectItemCaseSensitive(
                             cJSON_GetObjectItemCaseSensitive(b, "k250"), "phase"), "Failed");
    assert_false(cube_json_equal(a, b));
    assert_false(cube_json_equal(b, a));
    cJSON_Delete(b);
    b = big_object(499, 0, "Running");
    assert_false(cube_json_equal(a, b));
    cJSON_AddObjectToObject(b, "other");
    assert_false(cube_json_equal(a, b));
    cJSON_Delete(b);
    b = big_object(500, 0, "Running");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(b, "k3"), "phase", "later duplicate");
    assert_true(cube_json_equal(a, b));   /* the first k3 counts */
    cJSON_Delete(b);
    cJSON_Delete(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rfc7386_appendix_a),
        cmocka_unit_test(rfc7386_section3_example),
        cmocka_unit_test(result_keeps_target_order_and_appends),
        cmocka_unit_test(null_arguments),
        cmocka_unit_test(duplicate_target_keys_collapse),
        cmocka_unit_test(duplicate_patch_keys_apply_in_order),
        cmocka_unit_test(nesting_limit_is_64),
        cmocka_unit_test(equality_basics),
        cmocka_unit_test(equality_containers),
        cmocka_unit_test(equality_duplicate_keys_use_first),
        cmocka_unit_test(equality_nulls_and_depth),
        cmocka_unit_test(equality_large_objects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
