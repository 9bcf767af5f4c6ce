/* test_yaml_conv.c — YAML/JSON in (scalar types, documents, errors with
 * positions) and YAML out (block style, order, quoting, round trips). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <cube/util/yaml.h>

#include "buf.h"
#include "yaml_conv.h"

static cJSON *parse(const char *text)
{
    char err[256];
    cJSON *docs = cu_yaml_parse_all(text, strlen(text), "t.yaml", err, sizeof err);
    if (!docs)
        fail_msg("unexpected error: %s", err);
    return docs;
}

static void assert_error(const char *text, const char *want)
{
    char err[256];
    cJSON *docs = cu_yaml_parse_all(text, strlen(text), "t.yaml", err, sizeof err);
    assert_null(docs);
    if (strncmp(err, want, strlen(want)))
        fail_msg("error \"%s\" does not start with \"%s\"", err, want);
}

/* Parses "v: <scalar>" and compares the value's compact JSON. */
static void assert_scalar(const char *scalar, const char *json)
{
    char text[128];
    snprintf(text, sizeof text, "v: %s\n", scalar);
    cJSON *docs = parse(text);
    char *got = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetArrayItem(docs, 0), "v"));
    if (strcmp(got, json))
        fail_msg("%s: got %s, want %s", scalar, got, json);
    free(got);
    cJSON_Delete(docs);
}

static void test_scalars_follow_core_schema(void **state)
{
    (void)state;
    assert_scalar("42", "42");
    assert_scalar("-7", "-7");
    assert_scalar("0x1f", "31");
    assert_scalar("0o17", "15");
    assert_scalar("2.5", "2.5");
    assert_scalar("1e3", "1000");
    assert_scalar("true", "true");
    assert_scalar("False", "false");
    assert_scalar("~", "null");
    assert_scalar("null", "null");
    assert_scalar("", "null");
    assert_scalar("yes", "\"yes\"");        /* 1.2: a string */
    assert_scalar("\"42\"", "\"42\"");      /* quoted stays a string */
    assert_scalar("'true'", "\"true\"");
    assert_scalar("!!str 12", "\"12\"");
    assert_scalar("1_000", "\"1_000\"");
    assert_scalar("web-1", "\"web-1\"");
    assert_scalar("2024-05-01T10:00:00Z", "\"2024-05-01T10:00:00Z\"");
}

static void test_documents(void **state)
{
    (void)state;
    cJSON *docs = parse("---\nkind: A\n---\n# only a comment\n---\nkind: B\n"
                        "list: [1, {x: y}]\n...\n");
    assert_int_equal(cJSON_GetArraySize(docs), 2);
    char *b = cJSON_PrintUnformatted(cJSON_GetArrayItem(docs, 1));
    assert_string_equal(b, "{\"kind\":\"B\",\"list\":[1,{\"x\":\"y\"}]}");
    free(b);
    cJSON_Delete(docs);
    docs = parse("");
    assert_int_equal(cJSON_GetArraySize(docs), 0);
    cJSON_Delete(docs);
}

static void test_json_input(void **state)
{
    (void)state;
    cJSON *docs = parse(" {\"a\":1,\t\"b\":[true,null,\"\\u00e9\"]}\n");
    assert_int_equal(cJSON_GetArraySize(docs), 1);
    char *s = cJSON_PrintUnformatted(cJSON_GetArrayItem(docs, 0));
    assert_string_equal(s, "{\"a\":1,\"b\":[true,null,\"\xc3\xa9\"]}");
    free(s);
    cJSON_Delete(docs);
    /* a flow mapping followed by more YAML is not JSON: read as YAML */
    docs = parse("{a: 1}\n---\n{b: 2}\n");
    assert_int_equal(cJSON_GetArraySize(docs), 2);
    cJSON_Delete(docs);
}

static void test_errors_name_position(void **state)
{
    (void)state;
    assert_error("a: 1\na: 2\n", "t.yaml:2:1: duplicate key \"a\"");
    assert_error("a: &x 1\nb: *x\n", "t.yaml:1:4: anchors and aliases");   /* at the anchor */
    assert_error("a: 1\nb: *x\n", "t.yaml:2:4: anchors and aliases");
    assert_error("? [a]\n: 1\n", "t.yaml:1:3: mapping keys must be scalars");
    assert_error("a: .inf\n", "t.yaml:1:4: .inf cannot be represented");
    assert_error("a: [1, 2\n", "t.yaml:");
    assert_error("a:\n\tb: 1\n", "t.yaml:2:");
}

static char *emit(const char *json)
{
    struct buf b = {0};
    cJSON *v = cJSON_Parse(json);
    assert_non_null(v);
    assert_int_equal(yaml_emit(v, 0, &b), 0);
    cJSON_Delete(v);
    return buf_take(&b);
}

static void test_emit_block_style_in_order(void **state)
{
    (void)state;
    char *y = emit("{\"kind\":\"Widget\",\"metadata\":{\"name\":\"a\",\"labels\":{}},"
                   "\"spec\":{\"size\":3,\"ratio\":0.5,\"on\":true,\"x\":null,"
                   "\"tasks\":[{\"name\":\"t\",\"retries\":2}],\"none\":[]}}");
    assert_string_equal(y,
        "kind: Widget\n"
        "metadata:\n"
        "  name: a\n"
        "  labels: {}\n"
        "spec:\n"
        "  size: 3\n"
        "  ratio: 0.5\n"
        "  \"on\": true\n"
        "  x: null\n"
        "  tasks:\n"
        "  - name: t\n"
        "    retries: 2\n"
        "  none: []\n");
    free(y);
}

static void test_emit_quotes_only_when_needed(void **state)
{
    (void)state;
    char *y = emit("{\"a\":\"true\",\"b\":\"42\",\"c\":\"\",\"d\":\"yes\",\"e\":\"null\","
                   "\"f\":\"2024-05-01T00:00:00Z\",\"g\":\"plain text\",\"h\":\"a: b\","
                   "\"i\":\"- x\",\"j\":\"3h\",\"k\":\"1:30\",\"l\":\"caf\xc3\xa9\"}");
    assert_string_equal(y,
        "a: \"true\"\n"
        "b: \"42\"\n"
        "c: \"\"\n"
        "d: \"yes\"\n"
        "e: \"null\"\n"
        "f: \"2024-05-01T00:00:00Z\"\n"
        "g: plain text\n"
        "h: 'a: b'\n"
        "i: '- x'\n"
        "j: 3h\n"
        "k: \"1:30\"\n"
        "l: caf\xc3\xa9\n");
    free(y);
}

static void test_emit_multiline_and_documents(void **state)
{
    (void)state;
    char *y = emit("{\"script\":\"echo hi\\nexit 0\\n\"}");
    assert_string_equal(y, "script: |\n  echo hi\n  exit 0\n");
    free(y);
    struct buf b = {0};
    cJSON *v = cJSON_Parse("{\"type\":\"ADDED\"}");
    assert_int_equal(yaml_emit(v, 1, &b), 0);
    assert_int_equal(yaml_emit(v, 1, &b), 0);
    assert_string_equal(buf_str(&b), "---\ntype: ADDED\n---\ntype: ADDED\n");
    cJSON_Delete(v);
    buf_free(&b);
}

/* Whatever goes out as YAML comes back as the same JSON. */
static void test_round_trip(void **state)
{
    (void)state;
    static const char *const docs[] = {
        "{\"a\":[\"true\",\"1.0\",\"0x10\",\"~\",\"\",\" lead\",\"trail \",\"#x\",\"x #y\"]}",
        "{\"n\":[0,-1,1.5,1e+20,12345678901],\"b\":[true,false,null]}",
        "{\"s\":\"line1\\nline2\",\"t\":\"tab\\there\",\"q\":\"'\\\"\",\"u\":\"\\u0001\"}",
        "{\"nested\":{\"deep\":{\"list\":[[1,2],[],{}]}},\"k:colon\":\"v\",\"\":1}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        char *y = emit(docs[i]);
        cJSON *back = parse(y);
        cJSON *want = cJSON_Parse(docs[i]);
        if (!cJSON_Compare(cJSON_GetArrayItem(back, 0), want, 1))
            fail_msg("round trip changed %s into:\n%s", docs[i], y);
        cJSON_Delete(back);
        cJSON_Delete(want);
        free(y);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars_follow_core_schema),
        cmocka_unit_test(test_documents),
        cmocka_unit_test(test_json_input),
        cmocka_unit_test(test_errors_name_position),
        cmocka_unit_test(test_emit_block_style_in_order),
        cmocka_unit_test(test_emit_quotes_only_when_needed),
        cmocka_unit_test(test_emit_multiline_and_documents),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
