/* config_fixture.h — what the configuration loader's unit tests share:
 * each case runs inside a fresh temporary directory (the working directory
 * while it runs) with no CUBE_* override in the environment. Test-only. */
#ifndef CUBE_CONFIG_FIXTURE_H
#define CUBE_CONFIG_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

/* SHA-256 of "secret", in hex. */
extern const char SECRET_SHA256[];

struct fixture {
    char dir[512];
    char cwd[4096];
};

/* cmocka set-up (a fresh directory, entered, CUBE_* unset) and tear-down
 * (back to the old directory, the fresh one removed, CUBE_* unset). */
int setup(void **state);
int teardown(void **state);
/* Unsets every CUBE_* variable the loader reads. */
void clear_env(void);
/* Writes a file relative to the test directory, creating conf.d/ or sub/. */
void put(const char *path, const char *text);
/* Prints each message of errs (what a failing case shows). */
void dump_errs(const struct cube_errs *errs);
/* Loads path; it must succeed without errors. */
void load_ok(const char *path, struct cube_config *cfg);
/* What an absolute path under the test directory is relative to it (the
 * loader makes relative paths absolute); fails the case when path is not
 * under it. */
const char *rel(const char *path);
/* msg with the test directory's prefix taken out wherever it occurs (a
 * static buffer, one of two used in turn). */
const char *unprefixed(const char *msg);
/* Loads path; it must fail with exactly the one message `want`, once the
 * test directory's prefix is taken out of it (paths read relative). */
void load_fails(const char *path, const char *want);
/* cube.yaml holding `text` must fail with exactly `want`. */
void yaml_fails(const char *text, const char *want);
/* Writes the n bytes of b as 2n lowercase hex digits and a NUL to out. */
void hex(const uint8_t *b, size_t n, char *out);

#endif
