/* config_fixture.c — see config_fixture.h. */
#include <ftw.h>
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

#include "config_fixture.h"

const char SECRET_SHA256[] =
    "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b";

/* The test directory as getcwd() names it (symlinks resolved), with a
 * trailing slash: what the loader puts before relative paths. */
static char test_dir[4096];

static const char *const ENV_VARS[] = {
    "CUBE_LISTEN",    "CUBE_DATA_DIR",  "CUBE_DATABASE_URL",
    "CUBE_PLUGIN_DIR", "CUBE_LOG_LEVEL", "CUBE_ADMIN_TOKEN", NULL};

void clear_env(void)
{
    for (int i = 0; ENV_VARS[i]; i++)
        unsetenv(ENV_VARS[i]);
}

int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    const char *tmp = getenv("TMPDIR");
    if (!f)
        return -1;
    snprintf(f->dir, sizeof f->dir, "%s/cube-config-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(f->dir) || !getcwd(f->cwd, sizeof f->cwd) || chdir(f->dir) ||
        !getcwd(test_dir, sizeof test_dir - 1))
        return -1;
    strcat(test_dir, "/");
    clear_env();
    *state = f;
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int teardown(void **state)
{
    struct fixture *f = *state;
    int rc = chdir(f->cwd);
    nftw(f->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    clear_env();
    free(f);
    return rc;
}

void put(const char *path, const char *text)
{
    char dir[256];
    const char *slash = strrchr(path, '/');
    if (slash) {
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
        mkdir(dir, 0755);
    }
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

void dump_errs(const struct cube_errs *errs)
{
    for (size_t i = 0; i < errs->n; i++)
        print_message("  error: %s\n", errs->msgs[i]);
}

void load_ok(const char *path, struct cube_config *cfg)
{
    struct cube_errs errs = {0};
    int rc = cube_config_load(path, cfg, &errs);
    if (rc || cube_errs_count(&errs)) {
        dump_errs(&errs);
        fail_msg("config load failed");
    }
    cube_errs_clear(&errs);
}

const char *rel(const char *path)
{
    size_t n = strlen(test_dir);
    assert_non_null(path);
    if (strncmp(path, test_dir, n) != 0)
        fail_msg("%s is not an absolute path in %s", path, test_dir);
    return path + n;
}

const char *unprefixed(const char *msg)
{
    static char bufs[2][2048];
    static int next;
    char *out = bufs[next++ % 2];
    size_t n = strlen(test_dir), w = 0;
    while (*msg && w + 1 < sizeof bufs[0]) {
        if (!strncmp(msg, test_dir, n))
            msg += n;
        else
            out[w++] = *msg++;
    }
    out[w] = '\0';
    return out;
}

void load_fails(const char *path, const char *want)
{
    struct cube_config cfg;
    struct cube_errs errs = {0};
    assert_int_equal(cube_config_load(path, &cfg, &errs), -1);
    if (errs.n != 1 || strcmp(unprefixed(errs.msgs[0]), want)) {
        dump_errs(&errs);
        fail_msg("wanted the one error: %s", want);
    }
    cube_config_free(&cfg);
    cube_errs_clear(&errs);
}

void yaml_fails(const char *text, const char *want)
{
    put("cube.yaml", text);
    load_fails("cube.yaml", want);
}

void hex(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}
