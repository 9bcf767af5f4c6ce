/* test_schema_pattern.c — the validator's "pattern" keyword: the ECMA
 * pattern translation (semantics, code points, locale independence,
 * refused features), the limits schema_check puts on patterns and the
 * compiled-pattern cache. */
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

#include "schema/schema.h"
#include "schema_fixture.h"
#include "schema/schema_format.h" /* the pattern cache */

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

int main(void)
{
    const struct CMUnitTest tests[] = {
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
