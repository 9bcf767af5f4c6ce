/* test_table.c — table layout, ages and durations, printer-column paths
 * and the rows `get` prints for a kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "age.h"
#include "buf.h"
#include "jsonpath.h"
#include "kinds.h"
#include "print.h"
#include "table.h"

static void test_table_layout(void **state)
{
    (void)state;
    static const char *const head[] = {"NAME", "SIZE", "AGE"};
    const char *r1[] = {"a", "10", "5m"};
    const char *r2[] = {"caf\xc3\xa9-long", NULL, "3h"};
    struct table t;
    struct buf b = {0};
    assert_int_equal(table_init(&t, 3, head), 0);
    assert_int_equal(table_add(&t, r1), 0);
    assert_int_equal(table_add(&t, r2), 0);
    assert_int_equal(table_render(&t, 0, &b), 0);
    assert_string_equal(buf_str(&b),
                        "NAME        SIZE   AGE\n"
                        "a           10     5m\n"
                        "caf\xc3\xa9-long          3h\n");
    buf_free(&b);
    assert_int_equal(table_render(&t, t.nrows - 1, &b), 0);
    assert_string_equal(buf_str(&b), "caf\xc3\xa9-long          3h\n");
    buf_free(&b);
    table_free(&t);
}

static void assert_age(double s, const char *want)
{
    char out[32];
    age_format(s, out, sizeof out);
    assert_string_equal(out, want);
}

static void test_age_format(void **state)
{
    (void)state;
    assert_age(0, "0s");
    assert_age(59.9, "59s");
    assert_age(60, "1m");
    assert_age(5 * 60 + 59, "5m");
    assert_age(3 * 3600 + 1, "3h");
    assert_age(86399, "23h");
    assert_age(2 * 86400 + 7, "2d");
    assert_age(400 * 86400.0, "1y");
    assert_age(-30, "0s");   /* the server's clock ahead of ours */
}

static void test_time_parse(void **state)
{
    (void)state;
    time_t t;
    assert_int_equal(age_parse_time("1970-01-01T00:01:00Z", &t), 0);
    assert_int_equal((long)t, 60);
    assert_int_equal(age_parse_time("2024-02-29T12:00:00.123456Z", &t), 0);
    assert_int_equal((long)t, 1709208000L);
    assert_int_equal(age_parse_time("2024-02-29T14:30:00+02:30", &t), 0);
    assert_int_equal((long)t, 1709208000L);
    assert_int_equal(age_parse_time("2024-02-29 12:00:00z", &t), 0);
    assert_int_equal(age_parse_time("2024-02-29T12:00:00", &t), -1);
    assert_int_equal(age_parse_time("2024-13-01T00:00:00Z", &t), -1);
    assert_int_equal(age_parse_time("yesterday", &t), -1);
    char out[32];
    cJSON *s = cJSON_CreateString("1970-01-01T00:00:00Z");
    age_of(s, 3 * 86400, out, sizeof out);
    assert_string_equal(out, "3d");
    age_of(NULL, 0, out, sizeof out);
    assert_string_equal(out, "<unknown>");
    cJSON_Delete(s);
}

static void assert_path(const cJSON *obj, const char *path, const char *want)
{
    char *cell = jsonpath_cell(jsonpath_get(obj, path));
    if (strcmp(cell, want))
        fail_msg("%s: got %s, want %s", path, cell, want);
    free(cell);
}

static void test_jsonpath(void **state)
{
    (void)state;
    cJSON *o = cJSON_Parse("{\"spec\":{\"size\":3,\"ok\":true,\"tasks\":[{\"name\":\"t0\"},"
                           "{\"name\":\"t1\"}]},\"metadata\":{\"labels\":"
                           "{\"app.io/name\":\"web\"}},\"status\":{\"phase\":\"Running\"}}");
    assert_path(o, ".spec.size", "3");
    assert_path(o, "{.status.phase}", "Running");
    assert_path(o, ".spec.tasks[1].name", "t1");
    assert_path(o, ".spec.tasks[2].name", "<none>");
    assert_path(o, ".spec.ok", "true");
    assert_path(o, ".spec.tasks[0]", "{\"name\":\"t0\"}");
    assert_path(o, ".metadata.labels['app.io/name']", "web");
    assert_path(o, ".metadata.labels.app\\.io/name", "web");
    assert_path(o, ".status.missing", "<none>");
    assert_path(o, ".spec.size.deeper", "<none>");
    cJSON_Delete(o);
}

static void test_kind_rows(void **state)
{
    (void)state;
    cJSON *doc = cJSON_Parse(
        "{\"items\":[{\"kind\":\"Widget\",\"plural\":\"widgets\",\"singular\":\"widget\","
        "\"scope\":\"project\",\"printerColumns\":[{\"name\":\"Size\",\"jsonPath\":\".spec.size\","
        "\"type\":\"integer\"},{\"name\":\"Phase\",\"jsonPath\":\".status.phase\"},"
        "{\"name\":\"Started\",\"jsonPath\":\".status.started\",\"type\":\"date\"}]},"
        "{\"kind\":\"Gadget\",\"plural\":\"gadgets\",\"scope\":\"cluster\"},{\"kind\":\"Broken\"}]}");
    struct kind_list kinds;
    assert_int_equal(kinds_load(doc, &kinds), 0);
    assert_int_equal(kinds.n, 2);
    const struct kind *w = kinds_find(&kinds, "Widgets");
    assert_non_null(w);
    assert_ptr_equal(kinds_find(&kinds, "widget"), w);
    assert_ptr_equal(kinds_find(&kinds, "WIDGET"), w);
    const struct kind *g = kinds_find(&kinds, "gadget");   /* from the kind */
    assert_non_null(g);
    assert_true(g->cluster);
    assert_string_equal(g->label, "gadget");
    assert_null(kinds_find(&kinds, "nope"));

    struct printer p;
    struct buf b = {0};
    cJSON *obj = cJSON_Parse("{\"metadata\":{\"name\":\"a\",\"project\":\"p1\",\"created\":"
                             "\"1970-01-01T00:00:00Z\"},\"spec\":{\"size\":3},"
                             "\"status\":{\"started\":\"1970-01-01T00:00:00Z\"}}");
    assert_int_equal(print_init(&p, OUT_TABLE, w, 1, stdout), 0);
    assert_int_equal(print_row(&p, obj, 7200), 0);
    p.kind_prefix = 1;   /* several kinds in one get: NAME is kind/name */
    assert_int_equal(print_row(&p, obj, 7200), 0);
    assert_int_equal(table_render(&p.table, 0, &b), 0);
    assert_string_equal(buf_str(&b),
                        "PROJECT   NAME       SIZE   PHASE    STARTED   AGE\n"
                        "p1        a          3      <none>   2h        2h\n"
                        "p1        widget/a   3      <none>   2h        2h\n");
    buf_free(&b);
    print_free(&p);
    cJSON_Delete(obj);
    kinds_free(&kinds);
}

static void test_output_formats(void **state)
{
    (void)state;
    enum out_fmt f;
    const char *tmpl = NULL;
    assert_int_equal(print_format("yaml", &f, &tmpl), 0);
    assert_int_equal(f, OUT_YAML);
    assert_int_equal(print_format("name", &f, &tmpl), 0);
    assert_int_equal(f, OUT_NAME);
    assert_int_equal(print_format("xml", &f, &tmpl), -1);
    assert_int_equal(print_format("wide", &f, &tmpl), -2);   /* refused clearly */
    assert_int_equal(print_format("jsonpath={.kind}", &f, &tmpl), 0);
    assert_int_equal(f, OUT_JSONPATH);
    assert_string_equal(tmpl, "{.kind}");
    assert_int_equal(print_format("jsonpath", &f, &tmpl), -1);
}

static void test_durations(void **state)
{
    (void)state;
    double s;
    assert_int_equal(age_parse_duration("90", &s), 0);
    assert_true(s == 90);
    assert_int_equal(age_parse_duration("1h30m", &s), 0);
    assert_true(s == 5400);
    assert_int_equal(age_parse_duration("30d", &s), 0);
    assert_true(s == 30 * 86400);
    assert_int_equal(age_parse_duration("0.5s", &s), 0);
    assert_true(s == 0.5);
    assert_int_equal(age_parse_duration("", &s), -1);
    assert_int_equal(age_parse_duration("5x", &s), -1);
    assert_int_equal(age_parse_duration("1h30", &s), -1);
    assert_int_equal(age_parse_duration("-5s", &s), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_layout),
        cmocka_unit_test(test_age_format),
        cmocka_unit_test(test_time_parse),
        cmocka_unit_test(test_jsonpath),
        cmocka_unit_test(test_kind_rows),
        cmocka_unit_test(test_output_formats),
        cmocka_unit_test(test_durations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
