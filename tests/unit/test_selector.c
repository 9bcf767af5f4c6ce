/* test_selector.c — label selector syntax, matching semantics, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "objects/selector.h"

static char err[256];

/* Parses sel (which must be valid) and matches it against labels JSON. */
static int matches(const char *sel_text, const char *labels_json)
{
    struct cube_selector *sel = cube_selector_parse(sel_text, err, sizeof err);
    if (!sel)
        fail_msg("'%s' did not parse: %s", sel_text, err);
    cJSON *labels = labels_json ? cJSON_Parse(labels_json) : NULL;
    if (labels_json)
        assert_non_null(labels);
    int m = cube_selector_match(sel, labels);
    cJSON_Delete(labels);
    cube_selector_free(sel);
    return m;
}

/* Asserts sel_text is rejected with a message containing `needle`. */
static void rejects(const char *sel_text, const char *needle)
{
    err[0] = '\0';
    struct cube_selector *sel = cube_selector_parse(sel_text, err, sizeof err);
    if (sel) {
        cube_selector_free(sel);
        fail_msg("'%s' parsed but should not", sel_text);
    }
    if (!strstr(err, needle))
        fail_msg("'%s': message '%s' lacks '%s'", sel_text, err, needle);
}

static void empty_selects_everything(void **st)
{
    const char *texts[] = {NULL, "", "   ", " \t\n"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        struct cube_selector *sel = cube_selector_parse(texts[i], err, sizeof err);
        assert_non_null(sel);
        assert_true(cube_selector_empty(sel));
        assert_true(cube_selector_match(sel, NULL));
        cJSON *l = cJSON_Parse("{\"a\":\"b\"}");
        assert_true(cube_selector_match(sel, l));
        cJSON_Delete(l);
        cube_selector_free(sel);
    }
}

static void non_empty_is_not_empty(void **st)
{
    struct cube_selector *sel = cube_selector_parse("a", err, sizeof err);
    assert_non_null(sel);
    assert_false(cube_selector_empty(sel));
    cube_selector_free(sel);
}

static void equality(void **st)
{
    assert_true(matches("app=web", "{\"app\":\"web\"}"));
    assert_true(matches("app==web", "{\"app\":\"web\",\"x\":\"y\"}"));
    assert_false(matches("app=web", "{\"app\":\"db\"}"));
    assert_false(matches("app=web", "{}"));
    assert_false(matches("app=web", NULL));
    assert_false(matches("app=web", "{\"App\":\"web\"}"));
    assert_false(matches("app=web", "{\"app\":\"Web\"}"));
}

static void inequality_matches_absent_keys(void **st)
{
    assert_true(matches("app!=web", "{\"app\":\"db\"}"));
    assert_false(matches("app!=web", "{\"app\":\"web\"}"));
    assert_true(matches("app!=web", "{}"));
    assert_true(matches("app!=web", NULL));
}

static void set_membership(void **st)
{
    assert_true(matches("env in (prod, staging)", "{\"env\":\"prod\"}"));
    assert_true(matches("env in (prod,staging)", "{\"env\":\"staging\"}"));
    assert_false(matches("env in (prod,staging)", "{\"env\":\"dev\"}"));
    assert_false(matches("env in (prod)", "{}"));
    assert_false(matches("env notin (prod,staging)", "{\"env\":\"prod\"}"));
    assert_true(matches("env notin (prod,staging)", "{\"env\":\"dev\"}"));
    assert_true(matches("env notin (prod)", NULL));
}

static void empty_values(void **st)
{
    assert_true(matches("a=", "{\"a\":\"\"}"));
    assert_false(matches("a=", "{\"a\":\"x\"}"));
    assert_false(matches("a=", "{}"));
    assert_true(matches("a!=", "{\"a\":\"x\"}"));
    assert_true(matches("a in ()", "{\"a\":\"\"}"));
    assert_false(matches("a in ()", "{\"a\":\"x\"}"));
    assert_true(matches("a in (x,)", "{\"a\":\"\"}"));
    assert_true(matches("a in (,x)", "{\"a\":\"x\"}"));
}

static void existence(void **st)
{
    assert_true(matches("gpu", "{\"gpu\":\"\"}"));
    assert_true(matches("gpu", "{\"gpu\":\"a100\"}"));
    assert_false(matches("gpu", "{}"));
    assert_false(matches("gpu", NULL));
    assert_true(matches("!gpu", "{}"));
    assert_true(matches("!gpu", NULL));
    assert_true(matches("! gpu", "{\"cpu\":\"x\"}"));
    assert_false(matches("!gpu", "{\"gpu\":\"x\"}"));
}

static void all_requirements_must_hold(void **st)
{
    const char *sel = "app=web, tier in (front,back), !legacy, gpu";
    assert_true(matches(sel, "{\"app\":\"web\",\"tier\":\"front\",\"gpu\":\"1\"}"));
    assert_false(matches(sel, "{\"app\":\"web\",\"tier\":\"front\"}"));
    assert_false(matches(sel, "{\"app\":\"web\",\"tier\":\"front\",\"gpu\":\"1\",\"legacy\":\"y\"}"));
    assert_false(matches(sel, "{\"app\":\"web\",\"tier\":\"mid\",\"gpu\":\"1\"}"));
}

static void whitespace_is_ignored(void **st)
{
    assert_true(matches("  app = web ,  env  in  ( a ,  b )  ", "{\"app\":\"web\",\"env\":\"b\"}"));
    assert_true(matches("app\t!=\tweb", "{\"app\":\"x\"}"));
    assert_true(matches("a in(x)", "{\"a\":\"x\"}"));
    assert_true(matches("a notin(x)", "{\"a\":\"y\"}"));
}

static void prefixed_keys(void **st)
{
    assert_true(matches("cube.dev/team=ml", "{\"cube.dev/team\":\"ml\"}"));
    assert_false(matches("cube.dev/team=ml", "{\"team\":\"ml\"}"));
    assert_true(matches("!example.com/x", "{\"x\":\"1\"}"));
}

static void keywords_can_be_keys(void **st)
{
    assert_true(matches("in in (notin)", "{\"in\":\"notin\"}"));
    assert_true(matches("notin", "{\"notin\":\"\"}"));
}

static void non_string_label_values(void **st)
{
    assert_false(matches("a=1", "{\"a\":1}"));
    assert_true(matches("a!=1", "{\"a\":1}"));
    assert_true(matches("a", "{\"a\":1}"));
    assert_false(matches("a", "[\"a\"]"));
}

static void syntax_errors_name_position(void **st)
{
    rejects("a=b,", "column 5");
    rejects("a=b,", "expected a label key");
    rejects(",a", "column 1");
    rejects("a b", "column 3");
    rejects("a in b", "expected '('");
    rejects("a in (b", "expected ',' or ')'");
    rejects("a in (b c)", "column 9");
    rejects("a=b c", "expected ',' or end of text");
    rejects("!a=b", "column 3");
    rejects("a=(b)", "column 3");
    rejects("a inx (b)", "expected '='");
    rejects("a=b=c", "column 4");
    rejects("!", "expected a label key");
    rejects("a=\x01", "byte 0x01");
    rejects("a<1", "found '<'");
}

static void invalid_keys_and_values(void **st)
{
    rejects("-a=b", "invalid key '-a'");
    rejects("a-=b", "column 1");
    rejects("Bad.Prefix/a=b", "prefix");
    rejects("/a", "prefix");
    rejects("a/", "key name");
    rejects("a/b/c", "invalid key");
    rejects("a=-b", "invalid value '-b'");
    rejects("a=b/c", "invalid value");
    rejects("a in (ok,_bad)", "column 10");
    char key[80];
    memset(key, 'k', 64);
    key[64] = '\0';
    rejects(key, "1..63");
    key[63] = '\0';
    assert_true(matches(key, "{\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\":\"\"}"));
}

static void error_buffer_may_be_small_or_null(void **st)
{
    char tiny[4];
    assert_null(cube_selector_parse("a in (", tiny, sizeof tiny));
    assert_int_equal(strlen(tiny), 3);
    assert_null(cube_selector_parse("a in (", NULL, 0));
}

static void null_selector_matches_nothing(void **st)
{
    assert_false(cube_selector_match(NULL, NULL));
    assert_false(cube_selector_empty(NULL));
    cube_selector_free(NULL);
}

static void duplicate_label_keys_use_first(void **st)
{
    assert_true(matches("a=1", "{\"a\":\"1\",\"a\":\"2\"}"));
    assert_false(matches("a=2", "{\"a\":\"1\",\"a\":\"2\"}"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_selects_everything),
        cmocka_unit_test(non_empty_is_not_empty),
        cmocka_unit_test(equality),
        cmocka_unit_test(inequality_matches_absent_keys),
        cmocka_unit_test(set_membership),
        cmocka_unit_test(empty_values),
        cmocka_unit_test(existence),
        cmocka_unit_test(all_requirements_must_hold),
        cmocka_unit_test(whitespace_is_ignored),
        cmocka_unit_test(prefixed_keys),
        cmocka_unit_test(keywords_can_be_keys),
        cmocka_unit_test(non_string_label_values),
        cmocka_unit_test(syntax_errors_name_position),
        cmocka_unit_test(invalid_keys_and_values),
        cmocka_unit_test(error_buffer_may_be_small_or_null),
        cmocka_unit_test(null_selector_matches_nothing),
        cmocka_unit_test(duplicate_label_keys_use_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
