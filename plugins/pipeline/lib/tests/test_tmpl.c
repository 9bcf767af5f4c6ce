/* test_tmpl.c — the template language: variables, every filter, literals
 * and escaping, and the errors (each names what is wrong). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tmpl.h"

static const char *vars_json =
    "{\"execution_date\":\"2024-02-28T13:05:09+08:00\",\"ds\":\"2024-02-28\","
    "\"run_id\":\"run-42\",\"creator\":\"alice\",\"pipeline_name\":\"Daily ETL\","
    "\"count\":3,\"ratio\":0.25,\"on\":true,\"nothing\":null,\"empty\":\"\","
    "\"list\":[1,\"a\"],\"tricky\":\"{{ creator }}\","
    "\"tasks\":{\"split-data\":{\"outputs\":{\"rows\":\"1000\",\"path\":\"/mnt/x\"}}}}";

static const struct {
    const char *src, *want;
} renders[] = {
    {"plain text", "plain text"},
    {"", ""},
    {"{{execution_date}}", "2024-02-28T13:05:09+08:00"},
    {"{{ run_id }}/{{ creator }}/{{pipeline_name}}", "run-42/alice/Daily ETL"},
    {"rows={{ tasks.split-data.outputs.rows }}", "rows=1000"},
    {"{{\n  tasks.split-data.outputs.path\t}}", "/mnt/x"},
    {"{{ count }} {{ ratio }} {{ on }} [{{ nothing }}] {{ list }}", "3 0.25 true [] [1,\"a\"]"},
    {"{{ tricky }}", "{{ creator }}"},  /* values are not rendered again */
    {"{{ '{{' }} creator }}", "{{ creator }}"},
    {"{{ \"}}\" }}", "}}"},
    {"{{ 'it\\'s' }}", "it's"},
    {"a }} b", "a }} b"},
    {"{{ 42 }}", "42"},
    {"{{ creator | upper }}", "ALICE"},
    {"{{ pipeline_name|lower }}", "daily etl"},
    {"{{ pipeline_name | upper | lower }}", "daily etl"},
    {"{{ missing | default('x') }}", "x"},
    {"{{ missing.deeper | default(\"y\") | upper }}", "Y"},
    {"{{ empty | default('e') }}", "e"},
    {"{{ nothing | default('n') }}", "n"},
    {"{{ creator | default('x') }}", "alice"},
    {"{{ ds | ds_add(1) }}", "2024-02-29"},
    {"{{ ds | ds_add(2) }}", "2024-03-01"},
    {"{{ ds | ds_add(-59) }}", "2023-12-31"},
    {"{{ '2023-02-28' | ds_add(1) }}", "2023-03-01"},
    {"{{ execution_date | ds_add(-1) }}", "2024-02-27T13:05:09+08:00"},
    {"{{ ds | ds_format('%Y-%m-%d', '%Y%m%d') }}", "20240228"},
    {"{{ '28/02/24' | ds_format('%d/%m/%y', '%F') }}", "2024-02-28"},
    {"{{ '2024-060' | ds_format('%Y-%j', '%b %e %Y') }}", "Feb 29 2024"},
    {"{{ 'March 3 2024' | ds_format('%B %d %Y', '%A %a %u %w') }}", "Sunday Sun 7 0"},
    {"{{ execution_date | format('%Y/%m/%d %H:%M:%S') }}", "2024/02/28 13:05:09"},
    {"{{ ds | format('%T %j %%') }}", "00:00:00 059 %"},
    {"{{ '1970-01-02' | format('%s') }}", "86400"},
    {"{{ ds | ds_add(1) | format('%d.%m.%Y') }}", "29.02.2024"},
};

static const struct {
    const char *src, *error;
} failures[] = {
    {"{{ nope }}", "unknown variable \"nope\" (at offset 0)"},
    {"x {{ tasks.other.outputs.rows }}", "unknown variable \"tasks.other.outputs.rows\" (at offset 2)"},
    {"{{ nope | upper }}", "unknown variable \"nope\" (at offset 0)"},
    {"{{ tasks.split-data }}", "variable \"tasks.split-data\" is an object; name one of its fields (at offset 0)"},
    {"{{ creator", "unclosed \"{{\" (at offset 0)"},
    {"{{ creator | upper", "unclosed \"{{\" (at offset 0)"},
    {"{{ 'abc }}", "unclosed \"{{\" (at offset 0)"},
    {"{{ }}", "empty \"{{ }}\" (at offset 0)"},
    {"{{ creator creator }}", "expected '|' or \"}}\", got \"creator\" (at offset 0)"},
    {"{{ creator | shout }}", "unknown filter \"shout\" (known: ds_add, ds_format, format, upper, lower, default) (at offset 0)"},
    {"{{ creator | }}", "expected a filter name after '|', got \"}\" (at offset 0)"},
    {"{{ creator | upper(1) }}", "filter upper takes 0 arguments, got 1 (at offset 0)"},
    {"{{ creator | default }}", "filter default takes 1 argument, got 0 (at offset 0)"},
    {"{{ ds | ds_add('1') }}", "filter ds_add: argument 1 must be a number (at offset 0)"},
    {"{{ ds | ds_add(1.5) }}", "filter ds_add: \"1.5\" is not a whole number of days (at offset 0)"},
    {"{{ creator | ds_add(1) }}", "filter ds_add: \"alice\" is not a date (YYYY-MM-DD or ISO date-time) (at offset 0)"},
    {"{{ '2023-02-29' | ds_add(1) }}", "filter ds_add: \"2023-02-29\" is not a date (YYYY-MM-DD or ISO date-time) (at offset 0)"},
    {"{{ ds | ds_format('%d/%m/%Y', '%F') }}", "filter ds_format: \"2024-02-28\" does not match the format \"%d/%m/%Y\" (at offset 0)"},
    {"{{ ds | format('%Q') }}", "filter format: bad or too long format \"%Q\" (supported: %Y %y %m %d %e %H %M %S %j %b %B %a %A %u %w %F %T %s %%) (at offset 0)"},
    {"{{ ds | format(5) }}", "filter format: argument 1 must be a quoted string (at offset 0)"},
    {"{{ ds | format('%Y' '%m') }}", "filter format: expected ',' or ')' (at offset 0)"},
    {"{{ ds | format(ds) }}", "filter format: arguments must be quoted strings or numbers (at most 4, 255 bytes each) (at offset 0)"},
    {"{{ import os }}", "expected '|' or \"}}\", got \"os\" (at offset 0)"},
    {"{{ creator.__class__ }}", "unknown variable \"creator.__class__\" (at offset 0)"},
    {"{{ x() }}", "expected '|' or \"}}\", got \"(\" (at offset 0)"},
    {"{{ 1 + 1 }}", "expected '|' or \"}}\", got \"+\" (at offset 0)"},
};

static void test_renders(void **state)
{
    cJSON *vars = cJSON_Parse(vars_json);
    char err[512];
    assert_non_null(vars);
    for (size_t i = 0; i < sizeof renders / sizeof renders[0]; i++) {
        char *got = pl_tmpl_render(renders[i].src, vars, err, sizeof err);
        if (!got)
            fail_msg("%s: error %s", renders[i].src, err);
        if (strcmp(got, renders[i].want) != 0)
            fail_msg("%s: got \"%s\", want \"%s\"", renders[i].src, got, renders[i].want);
        free(got);
    }
    cJSON_Delete(vars);
}

static void test_failures(void **state)
{
    cJSON *vars = cJSON_Parse(vars_json);
    char err[512];
    for (size_t i = 0; i < sizeof failures / sizeof failures[0]; i++) {
        err[0] = '\0';
        char *got = pl_tmpl_render(failures[i].src, vars, err, sizeof err);
        if (got)
            fail_msg("%s: rendered \"%s\", want an error", failures[i].src, got);
        if (strcmp(err, failures[i].error) != 0)
            fail_msg("%s: got error \"%s\", want \"%s\"", failures[i].src, err, failures[i].error);
    }
    cJSON_Delete(vars);
}

/* Output is bounded: a template that would grow past the cap fails. */
static void test_output_cap(void **state)
{
    cJSON *vars = cJSON_CreateObject();
    char *big = malloc(600 * 1024);
    char err[256];
    memset(big, 'x', 600 * 1024 - 1);
    big[600 * 1024 - 1] = '\0';
    cJSON_AddStringToObject(vars, "big", big);
    char *one = pl_tmpl_render("{{ big }}", vars, err, sizeof err);
    assert_non_null(one);
    assert_int_equal(strlen(one), 600 * 1024 - 1);
    free(one);
    assert_null(pl_tmpl_render("{{ big }}{{ big }}", vars, err, sizeof err));
    assert_string_equal(err, "template output exceeds 1048576 bytes");
    assert_null(pl_tmpl_render(NULL, vars, err, sizeof err));
    free(big);
    cJSON_Delete(vars);
}

/* "{{ " + prefix + n times c + suffix + " }}" (static buffer). */
static const char *long_template(const char *prefix, char c, size_t n, const char *suffix)
{
    static char buf[1024];
    int o = snprintf(buf, sizeof buf, "{{ %s", prefix);
    memset(buf + o, c, n);
    snprintf(buf + o + n, sizeof buf - (size_t)o - n, "%s }}", suffix);
    return buf;
}

/* Literals, paths and filter names of 256 bytes or more are refused, by
 * name, rather than cut to 255 (which rendered a different string, or
 * looked up a different variable). 255 bytes still render. */
static void test_long_literals(void **state)
{
    static const struct {
        const char *prefix, *suffix;
        char c;
        const char *error;
    } cases[] = {
        {"'", "'", 'x', "a string literal is longer than 255 bytes (at offset 0)"},
        {"\"", "\"", 'y', "a string literal is longer than 255 bytes (at offset 0)"},
        {"", "", '7', "a number is longer than 255 bytes (at offset 0)"},
        {"", "", 'v', "a variable path is longer than 255 bytes (at offset 0)"},
        {"creator | ", "", 'f', "a filter name is longer than 255 bytes (at offset 0)"},
    };
    cJSON *vars = cJSON_Parse(vars_json);
    char err[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *src = long_template(cases[i].prefix, cases[i].c, 256, cases[i].suffix);
        err[0] = '\0';
        char *got = pl_tmpl_render(src, vars, err, sizeof err);
        if (got)
            fail_msg("case %zu: rendered %zu bytes, want an error", i, strlen(got));
        assert_string_equal(err, cases[i].error);
    }
    char *got = pl_tmpl_render(long_template("'", 'x', 255, "'"), vars, err, sizeof err);
    assert_non_null(got);
    assert_int_equal(strlen(got), 255);
    free(got);
    cJSON_Delete(vars);
}

/* Every prefix of every case renders or fails cleanly (no crash, no leak). */
static void test_prefixes(void **state)
{
    cJSON *vars = cJSON_Parse(vars_json);
    char err[512], buf[256];
    for (size_t i = 0; i < sizeof failures / sizeof failures[0]; i++)
        for (size_t n = 0; n <= strlen(failures[i].src) && n < sizeof buf; n++) {
            memcpy(buf, failures[i].src, n);
            buf[n] = '\0';
            free(pl_tmpl_render(buf, vars, err, sizeof err));
        }
    cJSON_Delete(vars);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_renders),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_output_cap),
        cmocka_unit_test(test_long_literals),
        cmocka_unit_test(test_prefixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
