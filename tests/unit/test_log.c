/* test_log.c — the logger: level filtering, text and JSON lines, escaping,
 * truncation, raw lines. stderr is redirected to a temporary file. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "base/log.h"

static int saved_fd = -1;
static FILE *capture;

static void capture_begin(void)
{
    capture = tmpfile();
    assert_non_null(capture);
    saved_fd = dup(STDERR_FILENO);
    assert_true(saved_fd >= 0);
    assert_true(dup2(fileno(capture), STDERR_FILENO) >= 0);
}

/* Puts stderr back if a failed assertion left it redirected. */
static int restore_stderr(void **state)
{
    (void)state;
    if (saved_fd >= 0) {
        dup2(saved_fd, STDERR_FILENO);
        close(saved_fd);
        saved_fd = -1;
        fclose(capture);
    }
    return 0;
}

/* Restores stderr and returns everything written meanwhile (malloc'd). */
static char *capture_end(void)
{
    dup2(saved_fd, STDERR_FILENO);
    close(saved_fd);
    saved_fd = -1;
    fseek(capture, 0, SEEK_END);
    long n = ftell(capture);
    rewind(capture);
    char *out = calloc(1, (size_t)n + 1);
    assert_non_null(out);
    assert_int_equal(fread(out, 1, (size_t)n, capture), (size_t)n);
    fclose(capture);
    return out;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* `YYYY-MM-DDTHH:MM:SS.mmmZ ` then the rest. */
static const char *skip_ts(const char *line)
{
    assert_true(strlen(line) > 25);
    assert_true(line[4] == '-' && line[7] == '-' && line[10] == 'T');
    assert_true(line[13] == ':' && line[16] == ':' && line[19] == '.');
    assert_true(line[23] == 'Z' && line[24] == ' ');
    return line + 25;
}

static void test_level_parse(void **state)
{
    (void)state;
    assert_int_equal(cube_log_level_parse("debug"), CUBE_LOG_DEBUG);
    assert_int_equal(cube_log_level_parse("info"), CUBE_LOG_INFO);
    assert_int_equal(cube_log_level_parse("WARN"), CUBE_LOG_WARN);
    assert_int_equal(cube_log_level_parse("error"), CUBE_LOG_ERROR);
    assert_int_equal(cube_log_level_parse("verbose"), -1);
    assert_int_equal(cube_log_level_parse(""), -1);
    assert_int_equal(cube_log_level_parse(NULL), -1);
}

static void test_text_lines(void **state)
{
    (void)state;
    cube_log_setup(CUBE_LOG_INFO, CUBE_LOGFMT_TEXT);
    assert_int_equal(cube_log_format_get(), CUBE_LOGFMT_TEXT);
    assert_false(cube_log_enabled(CUBE_LOG_DEBUG));
    assert_true(cube_log_enabled(CUBE_LOG_WARN));
    capture_begin();
    cube_log(CUBE_LOG_DEBUG, "core", "hidden");
    errno = ENOENT;
    cube_log(CUBE_LOG_INFO, "core", "listening on %s:%d", "::", 8080);
    assert_int_equal(errno, ENOENT); /* preserved for the caller */
    cube_log(CUBE_LOG_ERROR, "plugin:hello", "two\nlines\tand \x01");
    cube_log(CUBE_LOG_WARN, NULL, "w");
    char *out = capture_end();
    assert_int_equal(count_lines(out), 3);
    char *l2 = strchr(out, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
    assert_memory_equal(skip_ts(out), "INFO  [core] listening on :::8080\n", 34);
    assert_memory_equal(skip_ts(l2),
                        "ERROR [plugin:hello] two\\nlines\tand \\x01\n", 41);
    assert_memory_equal(skip_ts(l3), "WARN  [-] w\n", 12);
    free(out);
}

static void test_json_lines(void **state)
{
    (void)state;
    cube_log_setup(CUBE_LOG_DEBUG, CUBE_LOGFMT_JSON);
    capture_begin();
    cube_log(CUBE_LOG_DEBUG, "core", "q\"b\\s\n\x1f \xc3\xa9 bad\xff end");
    char *out = capture_end();
    assert_int_equal(count_lines(out), 1);
    assert_non_null(strstr(out, "\"msg\":\"q\\\"b\\\\s\\n\\u001f \xc3\xa9 bad\\ufffd end\"}\n"));
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "level")->valuestring, "debug");
    assert_string_equal(cJSON_GetObjectItem(j, "component")->valuestring, "core");
    const char *ts = cJSON_GetObjectItem(j, "ts")->valuestring;
    assert_int_equal(strlen(ts), 24);
    assert_int_equal(ts[23], 'Z');
    assert_string_equal(cJSON_GetObjectItem(j, "msg")->valuestring,
                        "q\"b\\s\n\x1f \xc3\xa9 bad\xef\xbf\xbd end");
    cJSON_Delete(j);
    free(out);
    cube_log_setup(CUBE_LOG_INFO, CUBE_LOGFMT_TEXT);
}

/* A message past the cap is cut on a character boundary with a marker;
 * JSON lines stay parseable even when escaping expands them. */
static void test_truncation(void **state)
{
    (void)state;
    size_t n = 40000;
    char *big = malloc(n + 1);
    for (size_t i = 0; i < n; i += 2)
        memcpy(big + i, "\xc3\xa9", 2); /* é: a cut could split it */
    big[n] = '\0';
    cube_log_setup(CUBE_LOG_INFO, CUBE_LOGFMT_TEXT);
    capture_begin();
    cube_log(CUBE_LOG_INFO, "core", "%s", big);
    char *out = capture_end();
    assert_int_equal(count_lines(out), 1);
    size_t len = strlen(out);
    assert_true(len < 17000);
    assert_memory_equal(out + len - 6, "\xc3\xa9\xe2\x80\xa6\n", 6);
    free(out);
    memset(big, '\n', n); /* each byte escapes to two */
    cube_log_setup(CUBE_LOG_INFO, CUBE_LOGFMT_JSON);
    capture_begin();
    cube_log(CUBE_LOG_INFO, "core", "%s", big);
    out = capture_end();
    assert_int_equal(count_lines(out), 1);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    const char *msg = cJSON_GetObjectItem(j, "msg")->valuestring;
    assert_string_equal(msg + strlen(msg) - 3, "\xe2\x80\xa6");
    cJSON_Delete(j);
    free(out);
    free(big);
    cube_log_setup(CUBE_LOG_INFO, CUBE_LOGFMT_TEXT);
}

static void test_raw(void **state)
{
    (void)state;
    capture_begin();
    cube_log_raw("GET / 200");
    cube_log_raw("POST /x 201\n");
    cube_log_raw("");
    cube_log_raw(NULL);
    char *out = capture_end();
    assert_string_equal(out, "GET / 200\nPOST /x 201\n\n");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_level_parse, restore_stderr),
        cmocka_unit_test_teardown(test_text_lines, restore_stderr),
        cmocka_unit_test_teardown(test_json_lines, restore_stderr),
        cmocka_unit_test_teardown(test_truncation, restore_stderr),
        cmocka_unit_test_teardown(test_raw, restore_stderr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
