/* test_yaml.c — YAML to cJSON: scalar resolution, marks, refused features,
 * error positions. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/errs.h"
#include "base/yamldoc.h"


static int load(const char *text, struct cube_yaml_doc *doc,
                struct cube_errs *errs)
{
    return cube_yaml_load_string(text, strlen(text), "t.yaml", doc, errs);
}

/* Loads text that must fail and checks the one message it gives. */
static void assert_fails(const char *text, const char *message)
{
    struct cube_yaml_doc doc;
    struct cube_errs errs = {0};
    assert_int_equal(load(text, &doc, &errs), -1);
    assert_int_equal(cube_errs_count(&errs), 1);
    assert_string_equal(errs.msgs[0], message);
    assert_null(doc.root);
    assert_null(doc.marks);
    assert_null(doc.file);
    cube_errs_clear(&errs);
}

/* Loads text that must fail with a message starting with prefix. */
static void assert_fails_at(const char *text, const char *prefix)
{
    struct cube_yaml_doc doc;
    struct cube_errs errs = {0};
    assert_int_equal(load(text, &doc, &errs), -1);
    assert_int_equal(cube_errs_count(&errs), 1);
    if (strncmp(errs.msgs[0], prefix, strlen(prefix)))
        fail_msg("\"%s\" does not start with \"%s\"", errs.msgs[0], prefix);
    cube_errs_clear(&errs);
}

/* Parses "v: <text>" and returns a copy of the value. */
static cJSON *value_of(const char *scalar)
{
    char text[256];
    struct cube_yaml_doc doc;
    struct cube_errs errs = {0};
    snprintf(text, sizeof text, "v: %s\n", scalar);
    assert_int_equal(load(text, &doc, &errs), 0);
    assert_int_equal(cube_errs_count(&errs), 0);
    cJSON *v = cJSON_Duplicate(cJSON_GetObjectItem(doc.root, "v"), 1);
    assert_non_null(v);
    cube_yaml_doc_free(&doc);
    return v;
}

static void assert_null_scalar(const char *s)
{
    cJSON *v = value_of(s);
    if (!cJSON_IsNull(v))
        fail_msg("%s should be null", s);
    cJSON_Delete(v);
}

static void assert_bool_scalar(const char *s, int want)
{
    cJSON *v = value_of(s);
    if (!cJSON_IsBool(v) || cJSON_IsTrue(v) != want)
        fail_msg("%s should be %s", s, want ? "true" : "false");
    cJSON_Delete(v);
}

static void assert_number_scalar(const char *s, double want)
{
    cJSON *v = value_of(s);
    if (!cJSON_IsNumber(v))
        fail_msg("%s should be a number", s);
    if (isnan(want))
        assert_true(isnan(v->valuedouble));
    else
        assert_true(v->valuedouble == want);
    cJSON_Delete(v);
}

static void assert_string_scalar(const char *s, const char *want)
{
    cJSON *v = value_of(s);
    if (!cJSON_IsString(v))
        fail_msg("%s should be a string", s);
    assert_string_equal(v->valuestring, want);
    cJSON_Delete(v);
}

static void test_null_scalars(void **state)
{
    (void)state;
    assert_null_scalar("");
    assert_null_scalar("~");
    assert_null_scalar("null");
    assert_null_scalar("Null");
    assert_null_scalar("NULL");
    assert_string_scalar("nULL", "nULL");
    assert_string_scalar("'null'", "null");
}

static void test_bool_scalars(void **state)
{
    (void)state;
    assert_bool_scalar("true", 1);
    assert_bool_scalar("True", 1);
    assert_bool_scalar("TRUE", 1);
    assert_bool_scalar("false", 0);
    assert_bool_scalar("False", 0);
    assert_bool_scalar("FALSE", 0);
    /* YAML 1.1 booleans are plain strings in 1.2. */
    assert_string_scalar("yes", "yes");
    assert_string_scalar("no", "no");
    assert_string_scalar("on", "on");
    assert_string_scalar("off", "off");
    assert_string_scalar("Yes", "Yes");
    assert_string_scalar("\"true\"", "true");
}

static void test_int_scalars(void **state)
{
    (void)state;
    assert_number_scalar("0", 0);
    assert_number_scalar("42", 42);
    assert_number_scalar("-7", -7);
    assert_number_scalar("+3", 3);
    assert_number_scalar("0123", 123);
    assert_number_scalar("0x1F", 31);
    assert_number_scalar("0xff", 255);
    assert_number_scalar("0o17", 15);
    assert_number_scalar("9007199254740992", 9007199254740992.0);
    assert_string_scalar("0x", "0x");
    assert_string_scalar("0x1G", "0x1G");
    assert_string_scalar("0o8", "0o8");
    assert_string_scalar("-0x10", "-0x10");
    assert_string_scalar("1_000", "1_000");
    assert_string_scalar("'42'", "42");
    assert_string_scalar("\"0x10\"", "0x10");
}

static void test_float_scalars(void **state)
{
    (void)state;
    assert_number_scalar("1.5", 1.5);
    assert_number_scalar("-.5", -0.5);
    assert_number_scalar("2.", 2);
    assert_number_scalar("1e3", 1000);
    assert_number_scalar("1.5E-2", 0.015);
    assert_number_scalar("+2.5e+1", 25);
    assert_number_scalar(".inf", INFINITY);
    assert_number_scalar("-.Inf", -INFINITY);
    assert_number_scalar("+.INF", INFINITY);
    assert_number_scalar(".nan", NAN);
    assert_number_scalar(".NaN", NAN);
    assert_number_scalar(".NAN", NAN);
    assert_string_scalar("1.2.3", "1.2.3");
    assert_string_scalar(".", ".");
    assert_string_scalar("1e", "1e");
    assert_string_scalar("inf", "inf");
    assert_string_scalar("nan", "nan");
    assert_string_scalar("-.nan", "-.nan");
    assert_string_scalar("'1.5'", "1.5");
}

static void test_string_scalars(void **state)
{
    (void)state;
    assert_string_scalar("hello world", "hello world");
    assert_string_scalar("\"a\\tb\"", "a\tb");
    assert_string_scalar("'it''s'", "it's");
    assert_string_scalar("!!str 42", "42");
    assert_string_scalar("! true", "true");
    assert_string_scalar("|\n  true\n", "true\n");
    assert_string_scalar(">-\n  a\n  b\n", "a b");
}

static void test_structure_and_marks(void **state)
{
    (void)state;
    const char *text = "a: 1\n"
                       "list:\n"
                       "  - x\n"
                       "  - {k: v}\n"
                       "empty:\n";
    struct cube_yaml_doc doc;
    struct cube_errs errs = {0};
    int line = 0, col = 0;
    assert_int_equal(load(text, &doc, &errs), 0);
    assert_string_equal(doc.file, "t.yaml");
    assert_true(cJSON_IsObject(doc.root));
    assert_int_equal(cJSON_GetArraySize(doc.root), 3);

    assert_int_equal(cube_yaml_mark_of(&doc, doc.root, &line, &col), 0);
    assert_int_equal(line, 1);
    assert_int_equal(col, 1);

    const cJSON *a = cJSON_GetObjectItem(doc.root, "a");
    assert_int_equal(cube_yaml_mark_of(&doc, a, &line, &col), 0);
    assert_int_equal(line, 1);
    assert_int_equal(col, 4);
    assert_int_equal(cube_yaml_key_mark_of(&doc, a, &line, &col), 0);
    assert_int_equal(line, 1);
    assert_int_equal(col, 1);

    const cJSON *list = cJSON_GetObjectItem(doc.root, "list");
    assert_int_equal(cJSON_GetArraySize(list), 2);
    assert_int_equal(cube_yaml_key_mark_of(&doc, list, &line, &col), 0);
    assert_int_equal(line, 2);
    assert_int_equal(col, 1);
    const cJSON *x = cJSON_GetArrayItem(list, 0);
    assert_string_equal(x->valuestring, "x");
    assert_int_equal(cube_yaml_mark_of(&doc, x, &line, &col), 0);
    assert_int_equal(line, 3);
    assert_int_equal(col, 5);

    const cJSON *k = cJSON_GetObjectItem(cJSON_GetArrayItem(list, 1), "k");
    assert_string_equal(k->valuestring, "v");
    assert_int_equal(cube_yaml_mark_of(&doc, k, &line, &col), 0);
    assert_int_equal(line, 4);
    assert_int_equal(col, 9);
    assert_int_equal(cube_yaml_key_mark_of(&doc, k, &line, &col), 0);
    assert_int_equal(line, 4);
    assert_int_equal(col, 6);

    assert_true(cJSON_IsNull(cJSON_GetObjectItem(doc.root, "empty")));

    cJSON *stranger = cJSON_CreateNull();
    assert_int_equal(cube_yaml_mark_of(&doc, stranger, &line, &col), -1);
    assert_int_equal(cube_yaml_mark_of(&doc, NULL, &line, &col), -1);
    cJSON_Delete(stranger);

    cube_yaml_doc_free(&doc);
    assert_null(doc.root);
    assert_int_equal(doc.n_marks, 0);
    assert_int_equal(cube_errs_count(&errs), 0);
}

static void test_keys_stay_strings(void **state)
{
    (void)state;
    struct cube_yaml_doc doc;
    struct cube_errs errs = {0};
    assert_int_equal(load("1: a\ntrue: b\nnull: c\n\"q\": d\n", &doc, &errs), 0);
    assert_string_equal(cJSON_GetObjectItem(doc.root, "1")->valuestring, "a");
    assert_string_equal(cJSON_GetObjectItem(doc.root, "true")->valuestring, "b");
    assert_string_equal(cJSON_GetObjectItem(doc.root, "null")->valuestring, "c");
    assert_string_equal(cJSON_GetObjectItem(doc.root, "q")->valuestring, "d");
    cube_yaml_doc_free(&doc);
}

static void test_empty_documents(void **state)
{
    (void)state;
    const char *texts[] = {"", "\n", "# only a comment\n", "---\n", "~\n",
                           "--- \n...\n"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        struct cube_yaml_doc doc;
        struct cube_errs errs = {0};
        assert_int_equal(load(texts[i], &doc, &errs), 0);
        assert_null(doc.root);
        assert_string_equal(doc.file, "t.yaml");
        cube_yaml_doc_free(&doc);
    }
}

static void test_root_scalar_and_list(void **state)
{
    (void)state;
    struct cube_yaml_doc doc;
    struct cube_errs errs = {0};
    assert_int_equal(load("- 1\n- two\n", &doc, &errs), 0);
    assert_true(cJSON_IsArray(doc.root));
    assert_int_equal(cJSON_GetArraySize(doc.root), 2);
    cube_yaml_doc_free(&doc);
    assert_int_equal(load("hello\n", &doc, &errs), 0);
    assert_string_equal(doc.root->valuestring, "hello");
    cube_yaml_doc_free(&doc);
}

static void test_duplicate_key(void **state)
{
    (void)state;
    assert_fails("a: 1\nb: 2\na: 3\n", "t.yaml:3:1: duplicate key \"a\"");
    assert_fails("x:\n  k: 1\n  k: 2\n", "t.yaml:3:3: duplicate key \"k\"");
    assert_fails("{a: 1, a: 2}", "t.yaml:1:8: duplicate key \"a\"");
    assert_fails("\"a\\\"b\": 1\n'a\"b': 2\n",
                 "t.yaml:2:1: duplicate key \"a\\\"b\"");
}

static void test_anchors_and_aliases_refused(void **state)
{
    (void)state;
    assert_fails("a: &x 1\n", "t.yaml:1:4: anchors and aliases are not "
                 "supported (&x); write the value out");
    assert_fails("a: 1\nb: *x\n", "t.yaml:2:4: anchors and aliases are not "
                 "supported (*x); write the value out");
    assert_fails("base: &b {k: 1}\n", "t.yaml:1:7: anchors and aliases are "
                 "not supported (&b); write the value out");
}

static void test_syntax_errors(void **state)
{
    (void)state;
    assert_fails("a: [1, 2\nb: 3\n", "t.yaml:2:2: did not find expected ',' "
                 "or ']' (while parsing a flow sequence)");
    assert_fails_at("a: 1\n\tb: 2\n", "t.yaml:2:1: ");
    assert_fails_at("a:\n\t- 2\n", "t.yaml:2:1: ");
    assert_fails_at("a: 1\n b: 2\n", "t.yaml:2:3: ");
    assert_fails_at("a: \"open\n", "t.yaml:");
    assert_fails_at("- a\nb: 1\n", "t.yaml:2:1: ");
}

static void test_tab_hint(void **state)
{
    (void)state;
    struct cube_yaml_doc doc;
    struct cube_errs errs = {0};
    assert_int_equal(load("a:\n\t- 2\n", &doc, &errs), -1);
    assert_non_null(strstr(errs.msgs[0], "tab"));
    cube_errs_clear(&errs);
}

static void test_refused_constructs(void **state)
{
    (void)state;
    assert_fails("a: 1\n---\nb: 2\n",
                 "t.yaml:2:1: multiple documents are not supported");
    assert_fails("? [a]\n: 1\n", "t.yaml:1:3: mapping keys must be scalars");
    assert_fails("? {a: 1}\n: 1\n", "t.yaml:1:3: mapping keys must be scalars");
    assert_fails("a: \"x\\0y\"\n", "t.yaml:1:4: a string contains \\u0000 (NUL), which is not supported");
    assert_fails("a: !!int 3\n",
                 "t.yaml:1:4: unsupported tag \"tag:yaml.org,2002:int\"");
    assert_fails("a: !custom {}\n", "t.yaml:1:4: unsupported tag \"!custom\"");
}

static void test_bad_encoding(void **state)
{
    (void)state;
    assert_fails("a: 1\nb: \xff\n", "t.yaml:2:4: not valid UTF-8 (invalid leading UTF-8 octet)");
}

static void test_nesting_limit(void **state)
{
    (void)state;
    char deep[200], ok[200];
    memset(deep, '[', 100);
    deep[100] = '\0';
    assert_fails_at(deep, "t.yaml:1:65: nesting is too deep");
    memset(ok, '[', 64);
    memset(ok + 64, ']', 64);
    ok[128] = '\0';
    struct cube_yaml_doc doc;
    struct cube_errs errs = {0};
    assert_int_equal(load(ok, &doc, &errs), 0);
    cube_yaml_doc_free(&doc);
}

static void test_many_keys(void **state)
{
    (void)state;
    size_t cap = 4000 * 16, n = 0;
    char *text = malloc(cap);
    struct cube_yaml_doc doc;
    struct cube_errs errs = {0};
    int line, col;
    assert_non_null(text);
    for (int i = 0; i < 4000; i++)
        n += (size_t)snprintf(text + n, cap - n, "k%d: %d\n", i, i);
    assert_int_equal(cube_yaml_load_string(text, n, "big.yaml", &doc, &errs), 0);
    assert_int_equal(cJSON_GetArraySize(doc.root), 4000);
    const cJSON *v = cJSON_GetObjectItem(doc.root, "k2999");
    assert_int_equal(cube_yaml_mark_of(&doc, v, &line, &col), 0);
    assert_int_equal(line, 3000);
    assert_int_equal(col, 8);
    cube_yaml_doc_free(&doc);
    free(text);
}

static void test_load_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/cube-yaml-XXXXXX", path[64];
    struct cube_yaml_doc doc;
    struct cube_errs errs = {0};
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/x.yaml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("name: demo\nport: 8080\nport: 1\n", f);
    fclose(f);

    assert_int_equal(cube_yaml_load_file(path, &doc, &errs), -1);
    char want[128];
    snprintf(want, sizeof want, "%s:3:1: duplicate key \"port\"", path);
    assert_string_equal(errs.msgs[0], want);
    cube_errs_clear(&errs);

    f = fopen(path, "w");
    assert_non_null(f);
    fputs("name: demo\n", f);
    fclose(f);
    assert_int_equal(cube_yaml_load_file(path, &doc, &errs), 0);
    assert_string_equal(doc.file, path);
    assert_string_equal(cJSON_GetObjectItem(doc.root, "name")->valuestring,
                        "demo");
    cube_yaml_doc_free(&doc);

    unlink(path);
    assert_int_equal(cube_yaml_load_file(path, &doc, &errs), -1);
    snprintf(want, sizeof want, "%s: cannot read: No such file or directory",
             path);
    assert_string_equal(errs.msgs[0], want);
    cube_errs_clear(&errs);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_scalars),
        cmocka_unit_test(test_bool_scalars),
        cmocka_unit_test(test_int_scalars),
        cmocka_unit_test(test_float_scalars),
        cmocka_unit_test(test_string_scalars),
        cmocka_unit_test(test_structure_and_marks),
        cmocka_unit_test(test_keys_stay_strings),
        cmocka_unit_test(test_empty_documents),
        cmocka_unit_test(test_root_scalar_and_list),
        cmocka_unit_test(test_duplicate_key),
        cmocka_unit_test(test_anchors_and_aliases_refused),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_tab_hint),
        cmocka_unit_test(test_refused_constructs),
        cmocka_unit_test(test_bad_encoding),
        cmocka_unit_test(test_nesting_limit),
        cmocka_unit_test(test_many_keys),
        cmocka_unit_test(test_load_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
