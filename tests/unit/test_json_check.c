/* test_json_check.c — the checks every JSON request body passes before a
 * handler reads it: duplicate names, NUL (escaped or raw) and UTF-8, each
 * named by its path; and what is left alone (not JSON, text after the
 * document, escaped backslashes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/json_check.h"

/* The field named for a body (len: strlen unless given), or NULL when the
 * body passes. */
static const char *fault_of(const char *body, size_t len, struct cube_json_fault *f)
{
    memset(f, 0, sizeof *f);
    return cube_json_body_check(body, len ? len : strlen(body), f) ? f->field : NULL;
}

static void test_clean_and_not_json(void **state)
{
    static const char *const pass[] = {
        "{}", "[]", "{\"a\":1,\"b\":[1,2,{\"c\":\"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\"}]}",
        "{\"a\":\"\\\\u0000\"}",            /* an escaped backslash, then text */
        "{\"a\":\"\\ud83d\\ude00\",\"b\":\"\\u00e9\"}",
        "{\"a\":\"tab\there\",\"n\":-1.5e+3,\"t\":true,\"f\":false,\"z\":null}",
        "{\"a\":{\"a\":{\"a\":1}}}",      /* one name per object, at every depth */
        "[{\"k\":1},{\"k\":2}]",          /* the same name in sibling objects */
        "hello", "\"a\\u0000b\"", "42", "{\"a\":", "{\"a\":1,\"a\":2",   /* not JSON objects */
        "{\"a\":1} \"\xff\" {\"b\":1,\"b\":2}",  /* cJSON stops after the document */
    };
    struct cube_json_fault f;
    for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++)
        if (fault_of(pass[i], 0, &f))
            fail_msg("%s: refused at %s: %s", pass[i], f.field, f.message);
}

static void test_duplicates(void **state)
{
    static const struct {
        const char *body, *field;
    } cases[] = {
        {"{\"a\":1,\"a\":2}", "a"},
        {"{\"metadata\":{\"name\":\"x\",\"owner\":\"o\",\"name\":\"y\"}}", "metadata.name"},
        {"{\"spec\":{\"tasks\":[{\"n\":1},{\"n\":1,\"m\":0,\"n\":2}]}}", "spec.tasks[1].n"},
        {"\xef\xbb\xbf \n{\"status\":{\"phase\":\"Failed\",\"phase\":\"Succeeded\"}}",
         "status.phase"},
        {"{\"a\":{\"b\":1},\"a\":{\"c\":1}} trailing", "a"},
    };
    struct cube_json_fault f;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = fault_of(cases[i].body, 0, &f);
        if (!got || strcmp(got, cases[i].field) != 0)
            fail_msg("%s: got %s, want %s", cases[i].body, got ? got : "no fault",
                     cases[i].field);
        assert_non_null(strstr(f.message, "duplicate key"));
    }
}

/* An object too big for the pairwise check is sorted; the name is found. */
static void test_duplicates_many_members(void **state)
{
    char *body = malloc(64 * 1024);
    assert_non_null(body);
    size_t o = (size_t)sprintf(body, "{\"labels\":{");
    for (int i = 0; i < 2000; i++)
        o += (size_t)sprintf(body + o, "\"k%d\":%d,", i, i);
    size_t last = o;
    o += (size_t)sprintf(body + o, "\"k1234\":0}}");
    struct cube_json_fault f;
    assert_string_equal(fault_of(body, o, &f), "labels.k1234");
    body[last + 1] = 'x';   /* the last name becomes "x1234" */
    assert_null(fault_of(body, o, &f));
    free(body);
}

static void test_nul(void **state)
{
    static const struct {
        const char *body, *field, *message;
    } cases[] = {
        {"{\"metadata\":{\"name\":\"tg5\\u0000evil\"}}", "metadata.name",
         "metadata.name: the string contains a NUL character (\\u0000)"},
        {"{\"metadata\":{\"labels\":{\"a\\u0000b\":\"x\"}}}", "metadata.labels",
         "metadata.labels: a member name contains a NUL character (\\u0000)"},
        {"{\"spec\":{\"command\":[\"echo\",\"\\u0000\"]}}", "spec.command[1]",
         "spec.command[1]: the string contains a NUL character (\\u0000)"},
        {"{\"\\u0000\":1}", "", "a member name contains a NUL character (\\u0000)"},
    };
    struct cube_json_fault f;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = fault_of(cases[i].body, 0, &f);
        if (!got || strcmp(got, cases[i].field) != 0)
            fail_msg("%s: got %s, want %s", cases[i].body, got ? got : "no fault",
                     cases[i].field);
        assert_string_equal(f.message, cases[i].message);
    }
    /* a raw NUL: the length covers it */
    static const char raw[] = "{\"name\":\"tg5\0evil\"}";
    assert_string_equal(fault_of(raw, sizeof raw - 1, &f), "");
    assert_string_equal(f.message, "the body contains a NUL byte");
}

static void test_utf8(void **state)
{
    static const struct {
        const char *body, *field;
    } cases[] = {
        {"{\"a\":\"\xff\"}", "a"},
        {"{\"a\":\"\xc0\x80\"}", "a"},                 /* overlong NUL */
        {"{\"a\":\"\xe0\x80\xaf\"}", "a"},             /* overlong '/' */
        {"{\"a\":\"\xed\xa0\x80\"}", "a"},             /* a surrogate */
        {"{\"a\":\"\xf4\x90\x80\x80\"}", "a"},         /* past U+10FFFF */
        {"{\"a\":\"\xe4\xb8\"}", "a"},                 /* cut short */
        {"{\"a\":\"\x80\"}", "a"},                     /* a lone continuation */
        {"{\"m\":{\"labels\":{\"k\xfe\":\"v\"}}}", "m.labels"},
        {"{\"x\":[1,\"ok\",\"\xc3\"]}", "x[2]"},
    };
    struct cube_json_fault f;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = fault_of(cases[i].body, 0, &f);
        if (!got || strcmp(got, cases[i].field) != 0)
            fail_msg("case %zu: got %s, want %s", i, got ? got : "no fault", cases[i].field);
        assert_non_null(strstr(f.message, "not valid UTF-8"));
    }
}

/* Nesting as deep as cJSON reads is walked without trouble. */
static void test_deep(void **state)
{
    enum { DEPTH = 900 };
    char *body = malloc(DEPTH * 6 + 64);
    size_t o = 0;
    assert_non_null(body);
    for (int i = 0; i < DEPTH; i++)
        o += (size_t)sprintf(body + o, "{\"a\":");
    o += (size_t)sprintf(body + o, "\"\xff\"");
    for (int i = 0; i < DEPTH; i++)
        body[o++] = '}';
    body[o] = '\0';
    struct cube_json_fault f;
    const char *field = fault_of(body, o, &f);
    assert_non_null(field);
    assert_int_equal(strncmp(field, "a.a.a.a", 7), 0);   /* cut at the cap */
    assert_true(strlen(field) < CUBE_JSON_FIELD_MAX);
    free(body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_and_not_json),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_duplicates_many_members),
        cmocka_unit_test(test_nul),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_deep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
