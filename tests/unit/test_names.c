/* test_names.c — DNS-label names, label and annotation maps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/names.h"

static char err[256];

static char *repeat(char c, size_t n)
{
    char *s = malloc(n + 1);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

static void valid_names(void **st)
{
    const char *ok[] = {"a", "0", "my-job", "a1-b2-c3", "123", "x-0"};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        assert_int_equal(cube_name_check(ok[i], err, sizeof err), 0);
    char *max = repeat('a', 63);
    assert_int_equal(cube_name_check(max, err, sizeof err), 0);
    free(max);
}

static void invalid_names(void **st)
{
    const char *bad[] = {"-a", "a-", "A", "my_job", "a.b", "a b", "é", "a/b"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        assert_int_equal(cube_name_check(bad[i], err, sizeof err), -1);
        assert_non_null(strstr(err, "alphanumeric"));
    }
    assert_int_equal(cube_name_check("", err, sizeof err), -1);
    assert_non_null(strstr(err, "1..63"));
    char *long_name = repeat('a', 64);
    assert_int_equal(cube_name_check(long_name, err, sizeof err), -1);
    assert_non_null(strstr(err, "1..63"));
    free(long_name);
    assert_int_equal(cube_name_check(NULL, err, sizeof err), -1);
    assert_int_equal(cube_name_check("-", NULL, 0), -1);
}

/* Checks labels JSON: returns the rc; *bad gets a copy of the bad key. */
static int labels(const char *json, char *bad, size_t badlen)
{
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    const char *bk = (const char *)1;
    err[0] = '\0';
    int rc = cube_labels_check(j, &bk, err, sizeof err);
    if (rc == 0)
        assert_null(bk);
    else
        assert_true(err[0] != '\0');
    snprintf(bad, badlen, "%s", bk ? bk : "(null)");
    cJSON_Delete(j);
    return rc;
}

static void valid_labels(void **st)
{
    char bad[300];
    assert_int_equal(labels("{}", bad, sizeof bad), 0);
    assert_int_equal(labels("{\"app\":\"web\",\"tier\":\"\"}", bad, sizeof bad), 0);
    assert_int_equal(labels("{\"cube.dev/team\":\"ML_Ops.v-2\"}", bad, sizeof bad), 0);
    assert_int_equal(labels("{\"A.b_c-D\":\"Z9\"}", bad, sizeof bad), 0);
    assert_int_equal(labels("{\"a-b.c-d/x\":\"y\"}", bad, sizeof bad), 0);
}

static void invalid_label_keys(void **st)
{
    char bad[300];
    const char *keys[] = {"-a", "a_", "", "/a", "a/", "a/b/c", "A.com/x",
                          "a..b/x", "-a.com/x", "a b", "a:b"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        char json[64];
        snprintf(json, sizeof json, "{\"ok\":\"v\",\"%s\":\"v\"}", keys[i]);
        assert_int_equal(labels(json, bad, sizeof bad), -1);
        assert_string_equal(bad, keys[i]);
        assert_non_null(strstr(err, "key"));
    }
}

static void label_key_lengths(void **st)
{
    char bad[400], json[800];
    char *n63 = repeat('n', 63), *n64 = repeat('n', 64);
    char *p253 = repeat('p', 253), *p254 = repeat('p', 254);
    /* a 253-char prefix must still be DNS labels of <= 63 chars each */
    for (int i = 63; i < 253; i += 64)
        p253[i] = '.', p254[i] = '.';
    snprintf(json, sizeof json, "{\"%s\":\"%s\"}", n63, n63);
    assert_int_equal(labels(json, bad, sizeof bad), 0);
    snprintf(json, sizeof json, "{\"%s\":\"v\"}", n64);
    assert_int_equal(labels(json, bad, sizeof bad), -1);
    assert_non_null(strstr(err, "1..63"));
    snprintf(json, sizeof json, "{\"%s/%s\":\"v\"}", p253, n63);
    assert_int_equal(labels(json, bad, sizeof bad), 0);
    snprintf(json, sizeof json, "{\"%s/x\":\"v\"}", p254);
    assert_int_equal(labels(json, bad, sizeof bad), -1);
    assert_non_null(strstr(err, "253"));
    free(n63);
    free(n64);
    free(p253);
    free(p254);
}

static void invalid_label_values(void **st)
{
    char bad[300], json[160];
    const char *values[] = {"-v", "v-", "a b", "a/b", "é"};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        snprintf(json, sizeof json, "{\"k\":\"%s\"}", values[i]);
        assert_int_equal(labels(json, bad, sizeof bad), -1);
        assert_string_equal(bad, "k");
        assert_non_null(strstr(err, "value"));
    }
    char *v64 = repeat('v', 64);
    snprintf(json, sizeof json, "{\"k\":\"%s\"}", v64);
    assert_int_equal(labels(json, bad, sizeof bad), -1);
    free(v64);
    assert_int_equal(labels("{\"k\":1}", bad, sizeof bad), -1);
    assert_string_equal(bad, "k");
    assert_non_null(strstr(err, "string"));
    assert_int_equal(labels("{\"k\":null}", bad, sizeof bad), -1);
}

static void labels_must_be_an_object(void **st)
{
    char bad[300];
    assert_int_equal(labels("[]", bad, sizeof bad), -1);
    assert_string_equal(bad, "(null)");
    assert_non_null(strstr(err, "object"));
    assert_int_equal(labels("\"a=b\"", bad, sizeof bad), -1);
    const char *bk = "x";
    assert_int_equal(cube_labels_check(NULL, &bk, err, sizeof err), -1);
    assert_null(bk);
}

static void at_most_64_labels(void **st)
{
    char bad[300];
    cJSON *j = cJSON_CreateObject();
    for (int i = 0; i < 65; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", i);
        cJSON_AddStringToObject(j, key, "v");
        char *s = cJSON_PrintUnformatted(j);
        assert_int_equal(labels(s, bad, sizeof bad), i < 64 ? 0 : -1);
        free(s);
    }
    assert_non_null(strstr(err, "64"));
    assert_string_equal(bad, "(null)");
    cJSON_Delete(j);
}

static void duplicate_label_keys(void **st)
{
    char bad[300];
    assert_int_equal(labels("{\"a\":\"1\",\"b\":\"2\",\"a\":\"3\"}", bad, sizeof bad), -1);
    assert_string_equal(bad, "a");
    assert_non_null(strstr(err, "more than once"));
}

static void bad_key_and_err_are_optional(void **st)
{
    cJSON *j = cJSON_Parse("{\"-\":\"v\"}");
    assert_int_equal(cube_labels_check(j, NULL, NULL, 0), -1);
    assert_int_equal(cube_annotations_check(j, NULL, NULL, 0), -1);
    cJSON_Delete(j);
}

/* Checks annotations JSON: returns the rc; *bad gets a copy of the bad key. */
static int annotations(const char *json, char *bad, size_t badlen)
{
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    const char *bk = (const char *)1;
    int rc = cube_annotations_check(j, &bk, err, sizeof err);
    snprintf(bad, badlen, "%s", bk ? bk : "(null)");
    cJSON_Delete(j);
    return rc;
}

static void annotation_values_are_free_form(void **st)
{
    char bad[300];
    assert_int_equal(annotations("{\"cube.dev/note\":\"any text: / \u00e9 \\n {}\",\"e\":\"\"}", bad, sizeof bad), 0);
    assert_string_equal(bad, "(null)");
    assert_int_equal(annotations("{\"ok\":\"\",\"bad key\":\"v\"}", bad, sizeof bad), -1);
    assert_string_equal(bad, "bad key");
    assert_int_equal(annotations("{\"k\":{}}", bad, sizeof bad), -1);
    assert_string_equal(bad, "k");
    assert_non_null(strstr(err, "string"));
    assert_int_equal(annotations("[]", bad, sizeof bad), -1);
    assert_string_equal(bad, "(null)");
    assert_int_equal(annotations("{\"k\":\"1\",\"k\":\"2\"}", bad, sizeof bad), -1);
    assert_string_equal(bad, "k");
}

static void annotation_total_size(void **st)
{
    const char *bad = "x";
    cJSON *j = cJSON_CreateObject();
    char *big = repeat('v', 256 * 1024 - 5);
    cJSON_AddStringToObject(j, "k1", big);
    assert_int_equal(cube_annotations_check(j, &bad, err, sizeof err), 0);
    cJSON_AddStringToObject(j, "abc", ""); /* exactly 256 KiB in all */
    assert_int_equal(cube_annotations_check(j, &bad, err, sizeof err), 0);
    cJSON_AddStringToObject(j, "x", "");
    assert_int_equal(cube_annotations_check(j, &bad, err, sizeof err), -1);
    assert_null(bad);
    assert_non_null(strstr(err, "256 KiB"));
    free(big);
    cJSON_Delete(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_names),
        cmocka_unit_test(invalid_names),
        cmocka_unit_test(valid_labels),
        cmocka_unit_test(invalid_label_keys),
        cmocka_unit_test(label_key_lengths),
        cmocka_unit_test(invalid_label_values),
        cmocka_unit_test(labels_must_be_an_object),
        cmocka_unit_test(at_most_64_labels),
        cmocka_unit_test(duplicate_label_keys),
        cmocka_unit_test(bad_key_and_err_are_optional),
        cmocka_unit_test(annotation_values_are_free_form),
        cmocka_unit_test(annotation_total_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
