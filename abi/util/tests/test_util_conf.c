/* test_util_conf.c — config readers (each error names its field, with the
 * plugin's prefix and the path), and the string and JSON helpers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <cube/util/conf.h>
#include <cube/util/json.h>
#include <cube/util/str.h>

static char err[256];
static cJSON *root;

/* A reader over json with prefix "demo" (the caller frees root). */
static struct cu_conf reader(const char *json)
{
    cJSON_Delete(root);
    assert_int_equal(cu_conf_parse(json, "demo", err, sizeof err, &root), CUBE_OK);
    return (struct cu_conf){.obj = root, .prefix = "demo", .err = err, .len = sizeof err};
}

static int teardown(void **st)
{
    (void)st;
    cJSON_Delete(root);
    root = NULL;
    return 0;
}

static void typed_getters_apply_defaults(void **st)
{
    (void)st;
    struct cu_conf c = reader("{\"s\":\"x\",\"b\":true,\"i\":7,\"n\":0.5,\"z\":null}");
    char *s = NULL, buf[8];
    int b, iv;
    long long i;
    double n;
    assert_int_equal(cu_conf_str(&c, "s", "d", &s), CUBE_OK);
    assert_string_equal(s, "x");
    free(s);
    assert_int_equal(cu_conf_str(&c, "absent", "d", &s), CUBE_OK);
    assert_string_equal(s, "d");
    free(s);
    assert_int_equal(cu_conf_str(&c, "z", NULL, &s), CUBE_OK);   /* null: absent */
    assert_null(s);
    assert_int_equal(cu_conf_strbuf(&c, "absent", "dflt", buf, sizeof buf), CUBE_OK);
    assert_string_equal(buf, "dflt");
    assert_int_equal(cu_conf_bool(&c, "b", 0, &b), CUBE_OK);
    assert_true(b);
    assert_int_equal(cu_conf_bool(&c, "absent", 1, &b), CUBE_OK);
    assert_true(b);
    assert_int_equal(cu_conf_int(&c, "i", 0, 1, 10, &i), CUBE_OK);
    assert_int_equal(i, 7);
    assert_int_equal(cu_conf_intv(&c, "absent", 3, 1, 10, &iv), CUBE_OK);
    assert_int_equal(iv, 3);
    assert_int_equal(cu_conf_num(&c, "n", 1, 0, 1, &n), CUBE_OK);
    assert_true(n == 0.5);
    static const char *const known[] = {"s", "b", "i", "n", "z", NULL};
    assert_int_equal(cu_conf_known(&c, known), CUBE_OK);
}

/* The call fails with CUBE_EINVAL and err equal to want. */
#define REFUSED(call, want)                                                    \
    do {                                                                       \
        err[0] = '\0';                                                         \
        assert_int_equal((call), CUBE_EINVAL);                                 \
        assert_string_equal(err, want);                                        \
    } while (0)

static void bad_values_name_the_field(void **st)
{
    (void)st;
    struct cu_conf c = reader("{\"s\":1,\"b\":\"yes\",\"i\":2.5,\"big\":1e30,\"n\":-1,"
                              "\"long\":\"123456789\",\"typo\":1}");
    char *s = NULL, buf[8];
    int b;
    long long i;
    double n;
    REFUSED(cu_conf_str(&c, "s", NULL, &s), "demo: s: must be a string");
    assert_null(s);
    REFUSED(cu_conf_bool(&c, "b", 0, &b), "demo: b: must be true or false");
    REFUSED(cu_conf_int(&c, "i", 0, 0, 9, &i), "demo: i: must be a whole number from 0 to 9");
    REFUSED(cu_conf_int(&c, "big", 0, INT64_MIN, INT64_MAX, &i),
            "demo: big: must be a whole number from -9223372036854775808 to "
            "9223372036854775807");
    REFUSED(cu_conf_num(&c, "n", 0, 0, 1, &n), "demo: n: must be a number from 0 to 1");
    REFUSED(cu_conf_strbuf(&c, "long", NULL, buf, sizeof buf), "demo: long: must be at most 7 bytes");
    static const char *const known[] = {"s", "b", "i", "big", "n", "long", NULL};
    REFUSED(cu_conf_known(&c, known), "demo: typo: unknown setting");
    REFUSED(cu_conf_bad(&c, NULL, "%s", "whole"), "demo: config: whole");
    /* a nested object and an array item carry their path */
    c = reader("{\"pools\":[{\"size\":0}],\"tls\":{\"on\":1}}");
    char p1[64], p2[64];
    struct cu_conf item = cu_conf_item(&c, "pools", 0, p1, sizeof p1);
    REFUSED(cu_conf_intv(&item, "size", 1, 1, 8, &b),
            "demo: pools[0].size: must be a whole number from 1 to 8");
    assert_int_equal(b, 1);
    struct cu_conf sub = cu_conf_sub(&c, "tls", p2, sizeof p2);
    REFUSED(cu_conf_bool(&sub, "on", 0, &b), "demo: tls.on: must be true or false");
    sub.prefix = NULL;
    REFUSED(cu_conf_bad(&sub, NULL, "bad"), "tls: bad");
    /* not a mapping */
    cJSON *r = NULL;
    REFUSED(cu_conf_parse("[1]", "demo", err, sizeof err, &r), "demo: config: must be a mapping");
    REFUSED(cu_conf_parse("{", NULL, err, sizeof err, &r), "config: must be a mapping");
    assert_null(r);
}

static void messages_fit_small_buffers(void **st)
{
    (void)st;
    char small[12];
    struct cu_conf c = {.obj = NULL, .prefix = "a-long-prefix", .err = small, .len = sizeof small};
    assert_int_equal(cu_conf_bad(&c, "key", "reason %d", 1), CUBE_EINVAL);
    assert_int_equal(strlen(small), sizeof small - 1);
    c.err = NULL;
    c.len = 0;
    assert_int_equal(cu_conf_bad(&c, "key", "x"), CUBE_EINVAL);
    /* an absent object reads as empty: every default */
    int b;
    c.err = small;
    c.len = sizeof small;
    assert_int_equal(cu_conf_bool(&c, "k", 1, &b), CUBE_OK);
    assert_true(b);
}

static void string_helpers(void **st)
{
    (void)st;
    char buf[4];
    assert_int_equal(cu_copy(buf, sizeof buf, "abc"), 0);
    assert_int_equal(cu_copy(buf, sizeof buf, "abcd"), -1);
    assert_string_equal(buf, "abc");
    assert_int_equal(cu_copy(buf, 0, "x"), -1);
    char *s = cu_strdupf("%s-%d", "a", 7);
    assert_string_equal(s, "a-7");
    free(s);
    assert_true(cu_starts_with("cube.dev/x", "cube.dev/"));
    assert_false(cu_starts_with(NULL, "x"));
    assert_true(cu_utf8_valid("caf\xc3\xa9", 5));
    assert_false(cu_utf8_valid("\xc0\xaf", 2));        /* overlong */
    assert_false(cu_utf8_valid("\xed\xa0\x80", 3));    /* a surrogate */
    assert_false(cu_utf8_valid("\xf4\x90\x80\x80", 4));/* past U+10FFFF */
    assert_false(cu_utf8_valid("\xc3", 1));            /* cut short */
    assert_false(cu_utf8_valid("a\0b", 3));
    assert_true(cu_dns_label("lab-1"));
    assert_false(cu_dns_label("-lab"));
    assert_false(cu_dns_label("Lab"));
    assert_false(cu_dns_label(""));
    assert_false(cu_dns_label(NULL));
    char label[80];
    memset(label, 'a', 64);
    label[64] = '\0';
    assert_false(cu_dns_label(label));
    assert_true(cu_env_name("_X1"));
    assert_false(cu_env_name("1X"));
    assert_false(cu_env_name("A-B"));
    const char *bytes_ok[] = {"0", "16Gi", "1.5Ti", "1e9", "500k"};
    const char *bytes_bad[] = {"", "Gi", "16GiB", "1.Gi", "-1", "1e", "16gi"};
    for (size_t i = 0; i < sizeof bytes_ok / sizeof *bytes_ok; i++)
        assert_true(cu_qty_bytes(bytes_ok[i]));
    for (size_t i = 0; i < sizeof bytes_bad / sizeof *bytes_bad; i++)
        assert_false(cu_qty_bytes(bytes_bad[i]));
    assert_true(cu_qty_cpu("500m"));
    assert_true(cu_qty_cpu("2.5"));
    assert_false(cu_qty_cpu("2Gi"));
    assert_false(cu_qty_cpu(NULL));
}

static void reading_files_has_a_limit(void **st)
{
    (void)st;
    char path[] = "/tmp/cube-util-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "0123456789", 10), 10);
    close(fd);
    size_t len = 0;
    char *s = cu_file_read(path, 10, &len);
    assert_non_null(s);
    assert_int_equal(len, 10);
    assert_string_equal(s, "0123456789");
    free(s);
    errno = 0;
    assert_null(cu_file_read(path, 9, &len));
    assert_int_equal(errno, EFBIG);
    unlink(path);
    assert_null(cu_file_read(path, 100, &len));
    assert_int_equal(errno, ENOENT);
}

static void json_helpers(void **st)
{
    (void)st;
    cJSON *o = cJSON_Parse("{\"metadata\":{\"name\":\"a\"},\"n\":2,\"t\":true,\"s\":\"x\"}");
    assert_string_equal(cu_str(o, "s"), "x");
    assert_null(cu_str(o, "n"));
    assert_null(cu_str(NULL, "s"));
    assert_string_equal(cu_str_or(o, "n", "-"), "-");
    assert_string_equal(cu_str_or(o, "s", "-"), "x");
    assert_true(cu_num(o, "n", 0) == 2);
    assert_true(cu_num(o, "s", -1) == -1);
    assert_int_equal(cu_bool(o, "t", 0), 1);
    assert_int_equal(cu_bool(o, "n", 7), 7);
    assert_string_equal(cu_meta(o, "name"), "a");
    cu_set_str(o, "s", "y");
    cu_set_str(o, "new", NULL);
    cu_set_num(o, "n", 3);
    assert_string_equal(cu_str(o, "s"), "y");
    assert_string_equal(cu_str(o, "new"), "");
    assert_true(cu_num(o, "n", 0) == 3);
    assert_int_equal(cJSON_GetArraySize(o), 5);
    int oom;
    assert_null(cu_json_dup_key(o, &oom));
    cJSON_Delete(o);
    o = cJSON_Parse("[{\"x\":{\"b\":1,\"a\":2,\"b\":3}}]");
    assert_string_equal(cu_json_dup_key(o, &oom), "b");
    assert_false(oom);
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(typed_getters_apply_defaults, teardown),
        cmocka_unit_test_teardown(bad_values_name_the_field, teardown),
        cmocka_unit_test(messages_fit_small_buffers),
        cmocka_unit_test(string_helpers),
        cmocka_unit_test(reading_files_has_a_limit),
        cmocka_unit_test(json_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
