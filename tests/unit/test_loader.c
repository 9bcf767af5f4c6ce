/* test_loader.c — the loader's checks on real plugin files: the
 * cube-bad-*.so modules built from tests/abi/bad_plugin.c, each with one
 * defect. Every refusal must name the file and say what was expected and
 * what was found, word for word: operators act on these messages.
 *
 * CUBE_TEST_PLUGIN_DIR (set by tests/abi/meson.build) is where the modules
 * are. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "plugins/loader.h"

static const char *plugin_dir(void)
{
    const char *dir = getenv("CUBE_TEST_PLUGIN_DIR");
    assert_non_null(dir);
    return dir;
}

/* The path of cube-<name>.so in the test plugin directory. */
static const char *plugin_file(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/cube-%s.so", plugin_dir(), name);
    return path;
}

/* Opens cube-<name>.so as the loader would and expects the error
 * "<file>: <tail>"; tail is a printf format. */
static void expect_refused(const char *name, const char *tail_fmt, ...)
{
    char err[512] = "", tail[400], want[1500];
    void *handle = NULL;
    struct cube_plugin_desc desc;
    va_list ap;
    va_start(ap, tail_fmt);
    vsnprintf(tail, sizeof tail, tail_fmt, ap);
    va_end(ap);
    const char *file = plugin_file(name);
    snprintf(want, sizeof want, "%s: %s", file, tail);
    assert_int_equal(cube_loader_open(file, name, &handle, &desc, err, sizeof err), -1);
    assert_null(handle);
    assert_string_equal(err, want);
}

/* Opens cube-<name>.so and expects success; returns the dlopen handle. */
static void *expect_loaded(const char *name, struct cube_plugin_desc *desc)
{
    char err[512] = "";
    void *handle = NULL;
    int rc = cube_loader_open(plugin_file(name), name, &handle, desc, err, sizeof err);
    if (rc != 0)
        fail_msg("%s", err);
    assert_non_null(handle);
    return handle;
}

static void good_plugin_loads(void **state)
{
    struct cube_plugin_desc d;
    void *h = expect_loaded("bad-good", &d);
    assert_int_equal(d.magic, CUBE_PLUGIN_MAGIC);
    assert_int_equal(d.abi_major, CUBE_ABI_MAJOR);
    assert_int_equal(d.size, sizeof(struct cube_plugin_desc));
    assert_string_equal(d.name, "bad-good");
    assert_non_null(d.init);
    assert_null(d.start);
    dlclose(h);
}

/* Without cube_plugin_<name>, the loader falls back to cube_plugin_entry. */
static void generic_entry_loads(void **state)
{
    struct cube_plugin_desc d;
    void *h = expect_loaded("bad-generic-entry", &d);
    assert_string_equal(d.name, "bad-generic-entry");
    dlclose(h);
}

static void wrong_major_refused(void **state)
{
    expect_refused("bad-wrong-major", "ABI major version: expected %d, found 2 "
                   "(rebuild the plugin against this Cube)", CUBE_ABI_MAJOR);
}

static void newer_minor_refused(void **state)
{
    expect_refused("bad-newer-minor", "ABI minor version: expected <= %d, found 99 "
                   "(the plugin needs a newer Cube)", CUBE_ABI_MINOR);
}

static void bad_magic_refused(void **state)
{
    expect_refused("bad-bad-magic", "bad magic: expected 0x%08x, found 0x0badcafe",
                   CUBE_PLUGIN_MAGIC);
}

static void short_descriptor_refused(void **state)
{
    expect_refused("bad-short-descriptor",
                   "descriptor size: expected at least %zu, found 16",
                   (size_t)CUBE_DESC_MIN_SIZE);
}

static void missing_init_refused(void **state)
{
    expect_refused("bad-missing-init", "init: required callback is NULL");
}

static void name_mismatch_refused(void **state)
{
    expect_refused("bad-name-mismatch",
                   "name: expected \"bad-name-mismatch\", found \"bad-other-name\"");
}

static void flags_refused(void **state)
{
    expect_refused("bad-bad-flags", "flags: expected 0, found 0x1");
}

static void null_descriptor_refused(void **state)
{
    expect_refused("bad-null-desc", "entry function returned NULL");
}

/* The message names the symbols actually looked up ('-' written as '_'). */
static void missing_entry_refused(void **state)
{
    expect_refused("bad-no-entry", "entry symbol: expected cube_plugin_bad_no_entry "
                   "or cube_plugin_entry, found neither");
}

/* A plugin built against the frozen 1.0 headers passes today's checks. */
static void abi_1_0_plugin_loads(void **state)
{
    struct cube_plugin_desc d;
    void *h = expect_loaded("abi-old", &d);
    assert_int_equal(d.abi_major, 1);
    assert_int_equal(d.abi_minor, 0);
    assert_non_null(d.config_schema);
    dlclose(h);
}

static char last_error[256];

static void stub_set_error(cube_plugin *self, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

/* The loader accepts it; only init fails, with the plugin's message. */
static void init_failure_reported(void **state)
{
    struct cube_plugin_desc d;
    void *h = expect_loaded("bad-init-fails", &d);
    struct cube_host host = {.size = sizeof host, .abi_major = CUBE_ABI_MAJOR,
                             .abi_minor = CUBE_ABI_MINOR, .set_error = stub_set_error};
    void *plugin_state = &host;
    last_error[0] = '\0';
    assert_int_equal(d.init(&host, NULL, &plugin_state), CUBE_EINVAL);
    assert_string_equal(last_error, "boom: database unreachable");
    dlclose(h);
}

/* A scratch directory under TMPDIR, removed by the caller. */
static char *scratch_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    char *dir;
    assert_true(asprintf(&dir, "%s/cube-loader-XXXXXX", tmp ? tmp : "/tmp") > 0);
    assert_non_null(mkdtemp(dir));
    return dir;
}

static void not_a_library_refused(void **state)
{
    char *dir = scratch_dir(), *file, err[512], want[1100];
    void *handle = NULL;
    struct cube_plugin_desc d;
    assert_true(asprintf(&file, "%s/cube-junk.so", dir) > 0);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("this is not an ELF file\n", f);
    fclose(f);
    assert_int_equal(cube_loader_open(file, "junk", &handle, &d, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: cannot load: ", file);
    assert_memory_equal(err, want, strlen(want));
    assert_non_null(strstr(err + strlen(want), file)); /* dlerror names it too */
    unlink(file);
    rmdir(dir);
    free(file);
    free(dir);
}

static void find_flat_and_nested(void **state)
{
    char err[512] = "", want[1100];
    char *path = cube_loader_find(plugin_dir(), "bad-good", err, sizeof err);
    assert_non_null(path);
    assert_string_equal(path, plugin_file("bad-good"));
    free(path);

    /* plugin_dir/<name>/cube-<name>.so: the layout of a plugin's own folder. */
    char *dir = scratch_dir(), *sub, *link;
    assert_true(asprintf(&sub, "%s/bad-good", dir) > 0);
    assert_true(asprintf(&link, "%s/cube-bad-good.so", sub) > 0);
    assert_int_equal(mkdir(sub, 0700), 0);
    assert_int_equal(symlink(plugin_file("bad-good"), link), 0);
    path = cube_loader_find(dir, "bad-good", err, sizeof err);
    assert_non_null(path);
    assert_string_equal(path, link);
    free(path);

    assert_null(cube_loader_find(dir, "absent", err, sizeof err));
    snprintf(want, sizeof want, "plugin file not found: looked for %s/cube-absent.so "
             "and %s/absent/cube-absent.so", dir, dir);
    assert_string_equal(err, want);
    unlink(link);
    rmdir(sub);
    rmdir(dir);
    free(link);
    free(sub);
    free(dir);
}

static int dummy_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    return CUBE_OK;
}

/* Checks that need no .so: a NULL expected name, an empty name, the copy. */
static void check_desc_in_memory(void **state)
{
    struct cube_plugin_desc d = {
        .magic = CUBE_PLUGIN_MAGIC, .abi_major = CUBE_ABI_MAJOR,
        .abi_minor = CUBE_ABI_MINOR, .size = sizeof d, .name = "mem",
        .init = dummy_init,
    }, out;
    char err[256] = "";
    memset(&out, 0xa5, sizeof out);
    assert_int_equal(cube_loader_check_desc(&d, "mem.so", NULL, &out, err, sizeof err), 0);
    assert_memory_equal(&out, &d, sizeof d);

    d.name = "";
    assert_int_equal(cube_loader_check_desc(&d, "mem.so", NULL, &out, err, sizeof err), -1);
    assert_string_equal(err, "mem.so: name: expected a name, found none");
    d.name = NULL;
    assert_int_equal(cube_loader_check_desc(&d, "mem.so", "mem", &out, err, sizeof err), -1);
    assert_string_equal(err, "mem.so: name: expected a name, found none");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_plugin_loads),
        cmocka_unit_test(generic_entry_loads),
        cmocka_unit_test(abi_1_0_plugin_loads),
        cmocka_unit_test(wrong_major_refused),
        cmocka_unit_test(newer_minor_refused),
        cmocka_unit_test(bad_magic_refused),
        cmocka_unit_test(short_descriptor_refused),
        cmocka_unit_test(missing_init_refused),
        cmocka_unit_test(name_mismatch_refused),
        cmocka_unit_test(flags_refused),
        cmocka_unit_test(null_descriptor_refused),
        cmocka_unit_test(missing_entry_refused),
        cmocka_unit_test(init_failure_reported),
        cmocka_unit_test(not_a_library_refused),
        cmocka_unit_test(find_flat_and_nested),
        cmocka_unit_test(check_desc_in_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
