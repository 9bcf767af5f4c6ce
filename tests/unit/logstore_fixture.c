/* logstore_fixture.c — see logstore_fixture.h. */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "logstore_fixture.h"

static int rm_entry(const char *path, const struct stat *sb, int flag,
                    struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    chmod(path, 0700);
    remove(path);
    return 0;
}

int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);
    assert_non_null(fx);
    strcpy(fx->dir, "/tmp/cube-logstore-XXXXXX");
    assert_non_null(mkdtemp(fx->dir));
    fx->ls = cube_logstore_new(fx->dir, 1000);
    assert_non_null(fx->ls);
    fx->files = cube_files_new(fx->dir, 100);
    assert_non_null(fx->files);
    *state = fx;
    return 0;
}

int teardown(void **state)
{
    struct fixture *fx = *state;
    cube_logstore_free(fx->ls);
    cube_files_free(fx->files);
    nftw(fx->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(fx);
    return 0;
}

char *pathf(struct fixture *fx, const char *rel)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", fx->dir, rel) > 0);
    return p;
}

int file_mode(struct fixture *fx, const char *rel)
{
    char *p = pathf(fx, rel);
    struct stat sb;
    int rc = stat(p, &sb);
    free(p);
    return rc < 0 ? -1 : (int)(sb.st_mode & 0777);
}

