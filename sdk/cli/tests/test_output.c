/* test_output.c — -o jsonpath= templates, --sort-by, and --field bodies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "fields.h"
#include "jsonpath_tmpl.h"
#include "sort.h"

static const char LIST[] =
    "{\"kind\":\"WidgetList\",\"items\":[{\"metadata\":{\"name\":\"a\",\"labels\":"
    "{\"app.io/x\":\"web\"}},\"spec\":{\"size\":3,\"tags\":[\"t\",2]}},"
    "{\"metadata\":{\"name\":\"b\"},\"spec\":{\"size\":1}}]}";

static void assert_tmpl(const char *tmpl, const char *want)
{
    cJSON *doc = cJSON_Parse(LIST);
    struct buf b = {0};
    char err[256] = "";
    if (jsonpath_tmpl_run(tmpl, doc, &b, err, sizeof err))
        fail_msg("%s: %s", tmpl, err);
    if (strcmp(buf_str(&b), want))
        fail_msg("%s: got [%s], want [%s]", tmpl, buf_str(&b), want);
    buf_free(&b);
    cJSON_Delete(doc);
}

static void assert_tmpl_error(const char *tmpl, const char *part)
{
    char err[256] = "";
    assert_int_equal(jsonpath_tmpl_check(tmpl, err, sizeof err), -1);
    if (!strstr(err, part))
        fail_msg("%s: error [%s] lacks [%s]", tmpl, err, part);
}

static void test_jsonpath_templates(void **state)
{
    (void)state;
    assert_tmpl("{.kind}", "WidgetList");
    assert_tmpl("{$.kind}", "WidgetList");
    assert_tmpl("{.items[*].metadata.name}", "a b");
    assert_tmpl("{.items[0].spec.size}", "3");
    assert_tmpl("{.items[-1].metadata.name}", "b");
    assert_tmpl("{.items[0].spec.tags}", "[\"t\",2]");
    assert_tmpl("{.items[0].metadata.labels['app.io/x']}", "web");
    assert_tmpl("{.items[*].spec.nope}", "");   /* missing keys print nothing */
    assert_tmpl("{range .items[*]}{.metadata.name}={.spec.size}{\"\\n\"}{end}", "a=3\nb=1\n");
    assert_tmpl("n: {range .items[*]}[{@.metadata.name}]{end}.", "n: [a][b].");
    assert_tmpl("{range .none[*]}x{end}done", "done");
    assert_tmpl("{range .items[*]}{range .spec.tags[*]}<{@}>{end}{end}", "<t><2>");
    assert_tmpl("{'\\t'}{.kind}", "\tWidgetList");
    assert_tmpl_error("{.items", "unclosed");
    assert_tmpl_error("{range .items[*]}x", "without {end}");
    assert_tmpl_error("x{end}", "without {range}");
    assert_tmpl_error("{..name}", "not supported");
    assert_tmpl_error("{.items[?(@.x)]}", "not supported");
    assert_tmpl_error("{kind}", "bad path");
    assert_tmpl_error("{}", "empty");
}

static void test_sort_by(void **state)
{
    (void)state;
    cJSON *items = cJSON_Parse("[{\"n\":\"c\",\"s\":10},{\"n\":\"a\",\"s\":9},"
                               "{\"n\":\"b\"},{\"n\":\"d\",\"s\":10}]");
    char *text;
    assert_int_equal(sort_items(items, ".s"), 0);   /* numbers by value, ties stable */
    text = cJSON_PrintUnformatted(items);
    assert_string_equal(text, "[{\"n\":\"b\"},{\"n\":\"a\",\"s\":9},{\"n\":\"c\",\"s\":10},"
                              "{\"n\":\"d\",\"s\":10}]");
    free(text);
    assert_int_equal(sort_items(items, "{.n}"), 0);
    text = cJSON_PrintUnformatted(cJSON_GetArrayItem(items, 0));
    assert_string_equal(text, "{\"n\":\"a\",\"s\":9}");
    free(text);
    cJSON_Delete(items);
}

static void test_fields(void **state)
{
    (void)state;
    struct flag_list l = {{"graceSeconds=5", "from=train", "spec.size=3", "on=true",
                           "date=2024-05-01", "q=\"7\"", "spec.tags=[1,2]", "empty="}, 8};
    cJSON *o = cJSON_CreateObject();
    char err[256];
    assert_int_equal(fields_add(o, &l, err, sizeof err), 0);
    char *text = cJSON_PrintUnformatted(o);
    assert_string_equal(text, "{\"graceSeconds\":5,\"from\":\"train\",\"spec\":{\"size\":3,"
                              "\"tags\":[1,2]},\"on\":true,\"date\":\"2024-05-01\",\"q\":\"7\","
                              "\"empty\":\"\"}");
    free(text);
    struct flag_list bad1 = {{"novalue"}, 1}, bad2 = {{"on.x=1"}, 1}, bad3 = {{"a..b=1"}, 1};
    assert_int_equal(fields_add(o, &bad1, err, sizeof err), -1);
    assert_non_null(strstr(err, "key=value"));
    assert_int_equal(fields_add(o, &bad2, err, sizeof err), -1);
    assert_non_null(strstr(err, "already a value"));
    assert_int_equal(fields_add(o, &bad3, err, sizeof err), -1);
    assert_non_null(strstr(err, "empty part"));
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jsonpath_templates),
        cmocka_unit_test(test_sort_by),
        cmocka_unit_test(test_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
