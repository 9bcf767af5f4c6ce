/* test_util_yaml.c — the shared YAML reader: scalar resolution, documents,
 * marks, the JSON fast path, refused constructs and bad input with their
 * positions, limits. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <cube/util/yaml.h>

/* Loads text that must fail; checks "t.yaml:L:C: message" starts with want. */
static void assert_fails_flags(const char *text, unsigned flags, const char *want)
{
    struct cu_yaml_doc doc;
    struct cu_yaml_error e;
    char msg[400];
    assert_int_equal(cu_yaml_load(text, strlen(text), flags, &doc, &e), -1);
    assert_null(doc.root);
    assert_null(doc.marks);
    cu_yaml_error_format(&e, "t.yaml", msg, sizeof msg);
    if (strncmp(msg, want, strlen(want)))
        fail_msg("\"%s\" does not start with \"%s\"", msg, want);
}

static void assert_fails(const char *text, const char *want)
{
    assert_fails_flags(text, 0, want);
    assert_fails_flags(text, CU_YAML_MARKS, want);
}

/* The value of "v: <scalar>" as compact JSON (flags: CU_YAML_NONFINITE ...). */
static void assert_scalar(const char *scalar, const char *json)
{
    char text[256];
    snprintf(text, sizeof text, "v: %s\n", scalar);
    char err[300];
    cJSON *root = cu_yaml_parse(text, strlen(text), "t.yaml", err, sizeof err);
    if (!root)
        fail_msg("%s: %s", scalar, err);
    char *got = cJSON_PrintUnformatted(cJSON_GetObjectItem(root, "v"));
    if (strcmp(got, json))
        fail_msg("%s: got %s, want %s", scalar, got, json);
    free(got);
    cJSON_Delete(root);
}

static void scalars_follow_the_core_schema(void **st)
{
    (void)st;
    const char *const cases[][2] = {
        {"", "null"}, {"~", "null"}, {"Null", "null"}, {"nULL", "\"nULL\""},
        {"'null'", "\"null\""}, {"True", "true"}, {"FALSE", "false"}, {"yes", "\"yes\""},
        {"off", "\"off\""}, {"\"true\"", "\"true\""}, {"42", "42"}, {"-7", "-7"},
        {"+3", "3"}, {"0123", "123"}, {"0x1F", "31"}, {"0o17", "15"}, {"0x1G", "\"0x1G\""},
        {"-0x10", "\"-0x10\""}, {"1_000", "\"1_000\""}, {"1.5", "1.5"}, {"-.5", "-0.5"},
        {"1e3", "1000"}, {"1.2.3", "\"1.2.3\""}, {"inf", "\"inf\""}, {"-.nan", "\"-.nan\""},
        {"!!str 42", "\"42\""}, {"! true", "\"true\""}, {"|\n  true\n", "\"true\\n\""},
        {"'it''s'", "\"it's\""}, {"2024-05-01", "\"2024-05-01\""}, {"web-1", "\"web-1\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_scalar(cases[i][0], cases[i][1]);
}

static void nonfinite_numbers_only_when_asked(void **st)
{
    (void)st;
    assert_fails("a: .inf\n", "t.yaml:1:4: .inf cannot be represented in JSON");
    assert_fails("a: [-.Inf]\n", "t.yaml:1:5: -.Inf cannot be represented");
    struct cu_yaml_doc doc;
    struct cu_yaml_error e;
    const char *t = "a: -.inf\nb: .NaN\n";
    assert_int_equal(cu_yaml_load(t, strlen(t), CU_YAML_NONFINITE, &doc, &e), 0);
    assert_true(cJSON_GetObjectItem(doc.root, "a")->valuedouble == -INFINITY);
    assert_true(isnan(cJSON_GetObjectItem(doc.root, "b")->valuedouble));
    cu_yaml_doc_free(&doc);
}

static void marks_name_where_nodes_start(void **st)
{
    (void)st;
    const char *text = "a: 1\nlist:\n  - x\n  - {k: v}\nempty:\n";
    struct cu_yaml_doc doc;
    struct cu_yaml_error e;
    int line = 0, col = 0;
    assert_int_equal(cu_yaml_load(text, strlen(text), CU_YAML_MARKS, &doc, &e), 0);
    assert_int_equal(cu_yaml_mark_of(&doc, doc.root, &line, &col), 0);
    assert_true(line == 1 && col == 1);
    const cJSON *a = cJSON_GetObjectItem(doc.root, "a");
    assert_int_equal(cu_yaml_mark_of(&doc, a, &line, &col), 0);
    assert_true(line == 1 && col == 4);
    assert_int_equal(cu_yaml_key_mark_of(&doc, a, &line, &col), 0);
    assert_true(line == 1 && col == 1);
    const cJSON *list = cJSON_GetObjectItem(doc.root, "list");
    assert_int_equal(cu_yaml_mark_of(&doc, cJSON_GetArrayItem(list, 0), &line, &col), 0);
    assert_true(line == 3 && col == 5);
    const cJSON *k = cJSON_GetObjectItem(cJSON_GetArrayItem(list, 1), "k");
    assert_int_equal(cu_yaml_mark_of(&doc, k, &line, &col), 0);
    assert_true(line == 4 && col == 9);
    assert_int_equal(cu_yaml_key_mark_of(&doc, k, &line, &col), 0);
    assert_true(line == 4 && col == 6);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(doc.root, "empty")));
    cJSON *stranger = cJSON_CreateNull();
    assert_int_equal(cu_yaml_mark_of(&doc, stranger, &line, &col), -1);
    assert_int_equal(cu_yaml_mark_of(&doc, NULL, &line, &col), -1);
    cJSON_Delete(stranger);
    cu_yaml_doc_free(&doc);
    assert_null(doc.root);
    assert_int_equal(doc.n_marks, 0);
    /* without CU_YAML_MARKS nothing is recorded */
    assert_int_equal(cu_yaml_load(text, strlen(text), 0, &doc, &e), 0);
    assert_int_equal(doc.n_marks, 0);
    assert_int_equal(cu_yaml_mark_of(&doc, doc.root, &line, &col), -1);
    cu_yaml_doc_free(&doc);
}

static void documents_one_or_many(void **st)
{
    (void)st;
    struct cu_yaml_doc doc;
    struct cu_yaml_error e;
    const char *s = "---\nkind: A\n---\n# only a comment\n---\nkind: B\nlist: [1, {x: y}]\n...\n";
    assert_int_equal(cu_yaml_load(s, strlen(s), CU_YAML_MULTI, &doc, &e), 0);
    assert_int_equal(cJSON_GetArraySize(doc.root), 2);
    char *b = cJSON_PrintUnformatted(cJSON_GetArrayItem(doc.root, 1));
    assert_string_equal(b, "{\"kind\":\"B\",\"list\":[1,{\"x\":\"y\"}]}");
    free(b);
    cu_yaml_doc_free(&doc);
    assert_int_equal(cu_yaml_load("", 0, CU_YAML_MULTI, &doc, &e), 0);
    assert_int_equal(cJSON_GetArraySize(doc.root), 0);
    cu_yaml_doc_free(&doc);
    assert_fails("a: 1\n---\nb: 2\n", "t.yaml:2:1: multiple documents are not supported");
    const char *empty[] = {"", "\n", "# only a comment\n", "---\n", "~\n", "--- \n...\n"};
    for (size_t i = 0; i < sizeof empty / sizeof *empty; i++) {
        assert_int_equal(cu_yaml_load(empty[i], strlen(empty[i]), 0, &doc, &e), 0);
        assert_null(doc.root);
        char err[100];
        assert_null(cu_yaml_parse(empty[i], strlen(empty[i]), "t.yaml", err, sizeof err));
        assert_string_equal(err, "t.yaml: an empty document");
    }
}

static void json_input_and_its_faults(void **st)
{
    (void)st;
    char err[300];
    const char *j = " {\"a\":1,\t\"b\":[true,null,\"\\u00e9\"]}\n";
    cJSON *v = cu_yaml_parse(j, strlen(j), "t.json", err, sizeof err);
    assert_non_null(v);
    char *s = cJSON_PrintUnformatted(v);
    assert_string_equal(s, "{\"a\":1,\"b\":[true,null,\"\xc3\xa9\"]}");
    free(s);
    cJSON_Delete(v);
    /* what cJSON accepts and YAML refuses goes the YAML way, with a place */
    assert_fails("{\"m\":{\"a\":1,\"a\":2}}", "t.yaml:1:13: duplicate key \"a\"");
    assert_fails("{\"a\":\"x\\u0000y\"}", "t.yaml:1:6: a string contains \\u0000 (NUL)");
    assert_fails("{\"a\":\"\xff\"}", "t.yaml:1:7: not valid UTF-8");
    /* a flow mapping followed by more YAML is not JSON: read as YAML */
    struct cu_yaml_doc doc;
    struct cu_yaml_error e;
    assert_int_equal(cu_yaml_load("{a: 1}\n---\n{b: 2}\n", 18, CU_YAML_MULTI, &doc, &e), 0);
    assert_int_equal(cJSON_GetArraySize(doc.root), 2);
    cu_yaml_doc_free(&doc);
    /* len bounds the input: what follows is not read */
    v = cu_yaml_parse("[1, 2]garbage", 6, "t", err, sizeof err);
    assert_int_equal(cJSON_GetArraySize(v), 2);
    cJSON_Delete(v);
}

static void refused_constructs_name_their_place(void **st)
{
    (void)st;
    assert_fails("a: 1\nb: 2\na: 3\n", "t.yaml:3:1: duplicate key \"a\"");
    assert_fails("x:\n  k: 1\n  k: 2\n", "t.yaml:3:3: duplicate key \"k\"");
    assert_fails("{a: 1, a: 2}", "t.yaml:1:8: duplicate key \"a\"");
    assert_fails("a: &x 1\n", "t.yaml:1:4: anchors and aliases are not supported (&x)");
    assert_fails("a: 1\nb: *x\n", "t.yaml:2:4: anchors and aliases are not supported (*x)");
    assert_fails("base: &b {k: 1}\n", "t.yaml:1:7: anchors and aliases");
    assert_fails("? [a]\n: 1\n", "t.yaml:1:3: mapping keys must be scalars");
    assert_fails("a: \"x\\0y\"\n", "t.yaml:1:4: a string contains \\u0000 (NUL)");
    assert_fails("\"k\\u0000\": v\n", "t.yaml:1:1: a string contains \\u0000 (NUL)");
    assert_fails("a: !!int 3\n", "t.yaml:1:4: unsupported tag \"tag:yaml.org,2002:int\"");
    assert_fails("a: !custom {}\n", "t.yaml:1:4: unsupported tag \"!custom\"");
}

static void bad_input_names_line_and_column(void **st)
{
    (void)st;
    assert_fails("a: [1, 2\nb: 3\n", "t.yaml:2:2: did not find expected ',' or ']'");
    assert_fails("a: 1\n\tb: 2\n", "t.yaml:2:1: ");
    assert_fails("a:\n\t- 2\n", "t.yaml:2:1: ");
    assert_fails("a: 1\n b: 2\n", "t.yaml:2:3: ");
    assert_fails("- a\nb: 1\n", "t.yaml:2:1: ");
    assert_fails("a: 1\nb: \xff\n", "t.yaml:2:4: not valid UTF-8");
    assert_fails("m:\n  k: \xc0\xaf\n", "t.yaml:2:6: not valid UTF-8");
    /* without a name: the "line N: " form */
    struct cu_yaml_doc doc;
    struct cu_yaml_error e;
    char msg[300];
    const char *t = "a:\n  b: 1\n  b: 2\n";
    assert_int_equal(cu_yaml_load(t, strlen(t), 0, &doc, &e), -1);
    cu_yaml_error_format(&e, NULL, msg, sizeof msg);
    assert_string_equal(msg, "line 3: duplicate key \"b\"");
}

static void limits_hold(void **st)
{
    (void)st;
    char deep[200], ok[200];
    memset(deep, '[', 100);
    deep[100] = '\0';
    assert_fails(deep, "t.yaml:1:65: nesting is too deep");
    memset(ok, '[', CU_YAML_MAX_DEPTH);
    memset(ok + CU_YAML_MAX_DEPTH, ']', CU_YAML_MAX_DEPTH);
    ok[2 * CU_YAML_MAX_DEPTH] = '\0';
    struct cu_yaml_doc doc;
    struct cu_yaml_error e;
    assert_int_equal(cu_yaml_load(ok, strlen(ok), 0, &doc, &e), 0);
    cu_yaml_doc_free(&doc);
    /* many keys: found, with marks, in a mapping of 4000 */
    size_t cap = 4000 * 16, n = 0;
    char *text = malloc(cap);
    int line, col;
    assert_non_null(text);
    for (int i = 0; i < 4000; i++)
        n += (size_t)snprintf(text + n, cap - n, "k%d: %d\n", i, i);
    assert_int_equal(cu_yaml_load(text, n, CU_YAML_MARKS, &doc, &e), 0);
    assert_int_equal(cJSON_GetArraySize(doc.root), 4000);
    assert_int_equal(cu_yaml_mark_of(&doc, cJSON_GetObjectItem(doc.root, "k2999"), &line,
                                     &col), 0);
    assert_true(line == 3000 && col == 8);
    cu_yaml_doc_free(&doc);
    free(text);
    /* a long key is cut in the message, not overflowing it */
    char big[2000], key[901];
    memset(key, 'k', 900);
    key[900] = '\0';
    snprintf(big, sizeof big, "%s: 1\n%s: 2\n", key, key);
    assert_int_equal(cu_yaml_load(big, strlen(big), 0, &doc, &e), -1);
    assert_non_null(strstr(e.msg, "duplicate key \"kkk"));
}

static void plain_strings_a_writer_may_leave_unquoted(void **st)
{
    (void)st;
    const char *plain[] = {"web-1", "plain text", "3h", "caf\xc3\xa9", "-x"};
    const char *quoted[] = {"true", "42", "", "yes", "null", "2024-05-01T00:00:00Z",
                            "1:30", "1_000", ".inf", "-.Inf", "0x10", "~", "Off"};
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        assert_true(cu_yaml_plain_is_string(plain[i]));
    for (size_t i = 0; i < sizeof quoted / sizeof *quoted; i++)
        if (cu_yaml_plain_is_string(quoted[i]))
            fail_msg("%s reads back as another type", quoted[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scalars_follow_the_core_schema),
        cmocka_unit_test(nonfinite_numbers_only_when_asked),
        cmocka_unit_test(marks_name_where_nodes_start),
        cmocka_unit_test(documents_one_or_many),
        cmocka_unit_test(json_input_and_its_faults),
        cmocka_unit_test(refused_constructs_name_their_place),
        cmocka_unit_test(bad_input_names_line_and_column),
        cmocka_unit_test(limits_hold),
        cmocka_unit_test(plain_strings_a_writer_may_leave_unquoted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
