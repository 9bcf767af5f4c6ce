/* test_plugin_deps.c — the pieces under the ABI 1.5 plugin state slots:
 * versions and requirements of plugins (plugins/loader_deps.c) and values
 * sealed with the platform key (base/secretbox.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/secretbox.h"
#include "plugins/loader.h"

static void versions_compare_by_number(void **st)
{
    (void)st;
    assert_true(cube_version_cmp("1.10", "1.9") > 0);
    assert_true(cube_version_cmp("1.2", "1.2.0") == 0);
    assert_true(cube_version_cmp("1.2.1", "1.2") > 0);
    assert_true(cube_version_cmp("2.0.0-rc1", "2.0") == 0);
    assert_true(cube_version_cmp(NULL, "0.1") < 0);
    assert_true(cube_version_cmp("0.9", "1") < 0);
}

static void requires_form(void **st)
{
    (void)st;
    char err[256];
    const char *const good[] = {"a", "serving>=1.2", "x-y>=3", NULL};
    struct cube_plugin_desc d = {.name = "me", .dependencies = good};
    assert_int_equal(cube_deps_check_desc(&d, "f.so", err, sizeof err), 0);
    assert_int_equal(cube_deps_names(&d, "serving"), 1);
    assert_int_equal(cube_deps_names(&d, "serv"), 0);
    const char *bad[] = {"Serving", "a>1", "a>=", "a>=1..2", "a>=1.", "", "a >=1", "me"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *const one[] = {bad[i], NULL};
        d.dependencies = one;
        assert_int_equal(cube_deps_check_desc(&d, "f.so", err, sizeof err), -1);
        assert_non_null(strstr(err, "f.so: dependencies[0]"));
    }
    const char *many[CUBE_DEPENDENCIES_MAX + 2];
    for (size_t i = 0; i <= CUBE_DEPENDENCIES_MAX; i++)
        many[i] = "a";
    many[CUBE_DEPENDENCIES_MAX + 1] = NULL;
    d.dependencies = many;
    assert_int_equal(cube_deps_check_desc(&d, "f.so", err, sizeof err), -1);
}

static void readiness_and_cycles(void **st)
{
    (void)st;
    char err[256];
    const char *const a_req[] = {"b>=1.1", NULL};
    const char *const b_req[] = {"c", NULL};
    const char *const c_req[] = {"a", NULL};
    struct cube_dep_node n[] = {{"a", "1.0", a_req, 0, 0}, {"b", "1.1.0", NULL, 0, 0}};
    assert_int_equal(cube_deps_ready(n, 2, 0, err, sizeof err), 1);   /* b not done yet */
    n[1].done = 1;
    assert_int_equal(cube_deps_ready(n, 2, 0, err, sizeof err), 0);
    n[1].version = "1.0.9";
    assert_int_equal(cube_deps_ready(n, 2, 0, err, sizeof err), -1);
    assert_string_equal(err, "plugin a requires b>=1.1, found b 1.0.9 (too old)");
    n[1].failed = 1;
    assert_int_equal(cube_deps_ready(n, 2, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "which failed to load"));
    assert_int_equal(cube_deps_ready(n, 1, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "requires plugin b, which is not enabled"));
    struct cube_dep_node cyc[] = {{"a", "1", (const char *const[]){"b", NULL}, 0, 0},
                                  {"b", "1", b_req, 0, 0}, {"c", "1", c_req, 0, 0}};
    cyc[0].dependencies = (const char *const[]){"b", NULL};
    cube_deps_cycle(cyc, 3, 0, err, sizeof err);
    assert_string_equal(err, "plugin a: the requirements form a cycle: a -> b -> c -> a");
}

static char *tmp_path(const char *name)
{
    static char dir[] = "/tmp/cube-secretbox-XXXXXX";
    static int made;
    if (!made++)
        assert_non_null(mkdtemp(dir));
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
    return p;
}

static void secretbox_seals_and_refuses(void **st)
{
    (void)st;
    char err[256];
    char *path = tmp_path("k1");
    struct cube_secretbox *box = NULL, *again = NULL, *other = NULL;
    assert_int_equal(cube_secretbox_open(path, &box, err, sizeof err), 0);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    char *sealed = NULL, *pt = NULL;
    size_t len = 0;
    assert_int_equal(cube_secretbox_seal(box, "p\0n", 3, "hunter2", 7, &sealed), CUBE_OK);
    assert_null(strstr(sealed, "hunter2"));
    assert_int_equal(strlen(sealed), cube_secretbox_sealed_len(7));
    /* the same key from the file opens it; other associated data does not */
    assert_int_equal(cube_secretbox_open(path, &again, err, sizeof err), 0);
    assert_int_equal(cube_secretbox_open_value(again, "p\0n", 3, sealed, &pt, &len), CUBE_OK);
    assert_int_equal(len, 7);
    assert_memory_equal(pt, "hunter2", 7);
    free(pt);
    assert_int_equal(cube_secretbox_open_value(again, "p\0m", 3, sealed, &pt, &len), CUBE_EIO);
    assert_null(pt);
    /* two seals of one value differ (a fresh nonce) */
    char *sealed2 = NULL;
    assert_int_equal(cube_secretbox_seal(box, "p\0n", 3, "hunter2", 7, &sealed2), CUBE_OK);
    assert_string_not_equal(sealed, sealed2);
    /* tampering and another key */
    sealed[10] = sealed[10] == 'A' ? 'B' : 'A';
    assert_int_equal(cube_secretbox_open_value(again, "p\0n", 3, sealed, &pt, &len), CUBE_EIO);
    char *path2 = tmp_path("k2");
    assert_int_equal(cube_secretbox_open(path2, &other, err, sizeof err), 0);
    assert_int_equal(cube_secretbox_open_value(other, "p\0n", 3, sealed2, &pt, &len), CUBE_EIO);
    assert_int_equal(cube_secretbox_open_value(other, "p\0n", 3, "v1:!!", &pt, &len), CUBE_EIO);
    assert_int_equal(cube_secretbox_open_value(other, "p\0n", 3, "plain", &pt, &len), CUBE_EIO);
    free(sealed);
    free(sealed2);
    cube_secretbox_free(box);
    cube_secretbox_free(again);
    cube_secretbox_free(other);
    unlink(path);
    unlink(path2);
    free(path);
    free(path2);
}

static void secretbox_key_file_rules(void **st)
{
    (void)st;
    char err[256];
    struct cube_secretbox *box = NULL;
    char *path = tmp_path("k3");
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "00112233", 8), 8);
    close(fd);
    assert_int_equal(cube_secretbox_open(path, &box, err, sizeof err), -1);
    assert_non_null(strstr(err, "chmod 600"));
    chmod(path, 0600);
    assert_int_equal(cube_secretbox_open(path, &box, err, sizeof err), -1);
    assert_non_null(strstr(err, "expected 64 hex digits"));
    assert_null(strstr(err, "00112233"));   /* no key material in messages */
    unlink(path);
    free(path);
}

static void base64_round_trip(void **st)
{
    (void)st;
    const char data[] = {0, 1, 2, (char)0xfe, (char)0xff};
    for (size_t n = 0; n <= sizeof data; n++) {
        char *b = cube_base64_encode(data, n);
        size_t len = 99;
        char *back = cube_base64_decode(b, &len);
        assert_non_null(back);
        assert_int_equal(len, n);
        assert_memory_equal(back, data, n);
        free(b);
        free(back);
    }
    size_t len;
    assert_null(cube_base64_decode("abc", &len));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(versions_compare_by_number),
        cmocka_unit_test(requires_form),
        cmocka_unit_test(readiness_and_cycles),
        cmocka_unit_test(secretbox_seals_and_refuses),
        cmocka_unit_test(secretbox_key_file_rules),
        cmocka_unit_test(base64_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
