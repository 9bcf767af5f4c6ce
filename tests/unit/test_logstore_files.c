/* test_logstore_files.c — project files (files/files.h: write, replace,
 * read, delete, list, name checks, traversal and symlink refusal, size cap).
 * Each test works in a fresh temporary data dir (logstore_fixture.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
#include <cjson/cJSON.h>

#include "files/files.h"
#include "logstore_fixture.h"

/* ---- files -------------------------------------------------------- */

static char *fread_ok(struct cube_files *ls, const char *project,
                      const char *path)
{
    size_t len = 99;
    int rc = 99;
    char *s = cube_files_read(ls, project, path, &len, &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_non_null(s);
    assert_int_equal(strlen(s), len);
    return s;
}

static int fread_rc(struct cube_files *ls, const char *project,
                    const char *path)
{
    size_t len;
    int rc = 99;
    char *s = cube_files_read(ls, project, path, &len, &rc);
    assert_null(s);
    return rc;
}

static void test_files_basic(void **state)
{
    struct fixture *fx = *state;
    struct cube_files *ls = fx->files;
    assert_int_equal(cube_files_write(ls, "p1", "train.py", "print(1)\n", 9), CUBE_OK);
    char *s = fread_ok(ls, "p1", "train.py");
    assert_string_equal(s, "print(1)\n");
    free(s);
    assert_int_equal(file_mode(fx, "projects/p1/train.py"), 0640);
    assert_int_equal(file_mode(fx, "projects/p1"), 0750);

    /* replace */
    assert_int_equal(cube_files_write(ls, "p1", "train.py", "v2", 2), CUBE_OK);
    s = fread_ok(ls, "p1", "train.py");
    assert_string_equal(s, "v2");
    free(s);
    /* empty file */
    assert_int_equal(cube_files_write(ls, "p1", "empty", NULL, 0), CUBE_OK);
    s = fread_ok(ls, "p1", "empty");
    assert_string_equal(s, "");
    free(s);
    /* nested: directories made as needed */
    assert_int_equal(cube_files_write(ls, "p1", "data/sets/a.csv", "1,2", 3), CUBE_OK);
    assert_int_equal(cube_files_write(ls, "p1", "data/b.txt", "bb", 2), CUBE_OK);
    assert_int_equal(file_mode(fx, "projects/p1/data/sets"), 0750);
    s = fread_ok(ls, "p1", "data/sets/a.csv");
    assert_string_equal(s, "1,2");
    free(s);

    /* list: sorted, dirs marked, sizes */
    int rc = 99;
    s = cube_files_list(ls, "p1", NULL, &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_string_equal(s, "[{\"name\":\"data\",\"size\":0,\"dir\":true},"
                           "{\"name\":\"empty\",\"size\":0,\"dir\":false},"
                           "{\"name\":\"train.py\",\"size\":2,\"dir\":false}]");
    free(s);
    s = cube_files_list(ls, "p1", "", &rc);
    assert_int_equal(rc, CUBE_OK);
    free(s);
    s = cube_files_list(ls, "p1", "data", &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_string_equal(s, "[{\"name\":\"b.txt\",\"size\":2,\"dir\":false},"
                           "{\"name\":\"sets\",\"size\":0,\"dir\":true}]");
    free(s);
    /* a project without files lists empty; a missing dir is not found */
    s = cube_files_list(ls, "p2", NULL, &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_string_equal(s, "[]");
    free(s);
    assert_null(cube_files_list(ls, "p1", "nope", &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    assert_null(cube_files_list(ls, "p1", "train.py", &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);

    /* delete */
    assert_int_equal(cube_files_delete(ls, "p1", "train.py"), CUBE_OK);
    assert_int_equal(fread_rc(ls, "p1", "train.py"), CUBE_ENOTFOUND);
    assert_int_equal(cube_files_delete(ls, "p1", "train.py"), CUBE_ENOTFOUND);
    assert_int_equal(cube_files_delete(ls, "p2", "x"), CUBE_ENOTFOUND);
    assert_int_equal(cube_files_delete(ls, "p1", "data/sets"), CUBE_ECONFLICT);
    assert_int_equal(cube_files_delete(ls, "p1", "data/sets/a.csv"), CUBE_OK);
    assert_int_equal(cube_files_delete(ls, "p1", "data/sets"), CUBE_OK);
    assert_int_equal(fread_rc(ls, "p1", "nope"), CUBE_ENOTFOUND);
    assert_int_equal(fread_rc(ls, "p2", "nope"), CUBE_ENOTFOUND);
    assert_int_equal(fread_rc(ls, "p1", "nope/x"), CUBE_ENOTFOUND);
    /* a directory is not a file; a file is not a directory */
    assert_int_equal(fread_rc(ls, "p1", "data"), CUBE_EINVAL);
    assert_int_equal(fread_rc(ls, "p1", "data/b.txt/x"), CUBE_ENOTFOUND);
    assert_int_equal(cube_files_write(ls, "p1", "data", "x", 1), CUBE_EEXIST);
    assert_int_equal(cube_files_write(ls, "p1", "data/b.txt/x", "x", 1), CUBE_EEXIST);

    /* no temp files left behind */
    s = cube_files_list(ls, "p1", "data", &rc);
    assert_string_equal(s, "[{\"name\":\"b.txt\",\"size\":2,\"dir\":false}]");
    free(s);
    char *p = pathf(fx, "projects/p1");
    DIR *d = opendir(p);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        assert_false(strncmp(e->d_name, ".tmp", 4) == 0);
    closedir(d);
    free(p);
}

static void test_files_bad_paths(void **state)
{
    struct fixture *fx = *state;
    struct cube_files *ls = fx->files;
    const char *bad[] = {"", "/", "/etc/passwd", "../x", "a/../../x", "a/./b", ".",
                         "..", "a/", "a//b", ".hidden", "a/.hidden", "./a", NULL};
    int rc;
    for (int i = 0; bad[i]; i++) {
        assert_int_equal(cube_files_write(ls, "p1", bad[i], "x", 1), CUBE_EINVAL);
        assert_int_equal(fread_rc(ls, "p1", bad[i]), CUBE_EINVAL);
        assert_int_equal(cube_files_delete(ls, "p1", bad[i]), CUBE_EINVAL);
        if (bad[i][0]) {
            assert_null(cube_files_list(ls, "p1", bad[i], &rc));
            assert_int_equal(rc, CUBE_EINVAL);
        }
    }
    assert_int_equal(cube_files_write(ls, "p1", NULL, "x", 1), CUBE_EINVAL);
    assert_int_equal(cube_files_write(ls, "p1", "a", NULL, 1), CUBE_EINVAL);
    /* project names */
    const char *badp[] = {"", "..", ".p", "a/b", NULL};
    for (int i = 0; badp[i]; i++) {
        assert_int_equal(cube_files_write(ls, badp[i], "a", "x", 1), CUBE_EINVAL);
        assert_int_equal(fread_rc(ls, badp[i], "a"), CUBE_EINVAL);
        assert_null(cube_files_list(ls, badp[i], NULL, &rc));
        assert_int_equal(rc, CUBE_EINVAL);
    }
    assert_int_equal(cube_files_write(ls, NULL, "a", "x", 1), CUBE_EINVAL);
    /* length: 1024 bytes allowed, 1025 not */
    char longp[1100];
    memset(longp, 'a', sizeof longp);
    for (int i = 100; i < 1100; i += 101)
        longp[i] = '/';
    longp[1025] = '\0';
    assert_int_equal(cube_files_write(ls, "p1", longp, "x", 1), CUBE_EINVAL);
    longp[1024] = '\0';
    assert_int_equal(cube_files_write(ls, "p1", longp, "x", 1), CUBE_OK);
    /* nothing written outside the project dir */
    assert_int_equal(file_mode(fx, "projects/x"), -1);
    assert_int_equal(file_mode(fx, "x"), -1);
}

static void test_files_symlinks(void **state)
{
    struct fixture *fx = *state;
    struct cube_files *ls = fx->files;
    /* outside the project: a secret file and a directory */
    char *outside = pathf(fx, "outside");
    assert_int_equal(mkdir(outside, 0700), 0);
    char *secret = pathf(fx, "outside/secret");
    FILE *f = fopen(secret, "w");
    assert_non_null(f);
    fputs("s3cret", f);
    fclose(f);
    assert_int_equal(cube_files_write(ls, "p1", "ok", "x", 1), CUBE_OK);

    /* planted inside the project: links to the dir and to the file */
    char *ldir = pathf(fx, "projects/p1/ldir");
    char *lfile = pathf(fx, "projects/p1/lfile");
    assert_int_equal(symlink(outside, ldir), 0);
    assert_int_equal(symlink(secret, lfile), 0);

    assert_int_equal(fread_rc(ls, "p1", "lfile"), CUBE_EPERM);
    assert_int_equal(fread_rc(ls, "p1", "ldir/secret"), CUBE_EPERM);
    assert_int_equal(cube_files_write(ls, "p1", "ldir/new", "x", 1), CUBE_EPERM);
    assert_int_equal(cube_files_write(ls, "p1", "ldir/secret", "x", 1), CUBE_EPERM);
    assert_int_equal(cube_files_write(ls, "p1", "lfile", "x", 1), CUBE_EPERM);
    assert_int_equal(cube_files_write(ls, "p1", "ldir/a/b", "x", 1), CUBE_EPERM);
    int rc;
    assert_null(cube_files_list(ls, "p1", "ldir", &rc));
    assert_int_equal(rc, CUBE_EPERM);
    assert_int_equal(cube_files_delete(ls, "p1", "ldir/secret"), CUBE_EPERM);
    /* the outside is untouched */
    char *newp = pathf(fx, "outside/new");
    assert_int_equal(access(newp, F_OK), -1);
    f = fopen(secret, "r");
    char sbuf[16] = {0};
    assert_non_null(fgets(sbuf, sizeof sbuf, f));
    fclose(f);
    assert_string_equal(sbuf, "s3cret");
    /* symlinks are not listed */
    char *s = cube_files_list(ls, "p1", NULL, &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_string_equal(s, "[{\"name\":\"ok\",\"size\":1,\"dir\":false}]");
    free(s);
    /* deleting a planted link removes the link, never its target */
    assert_int_equal(cube_files_delete(ls, "p1", "lfile"), CUBE_OK);
    assert_int_equal(access(secret, F_OK), 0);

    /* the project dir itself a symlink to the outside */
    char *p2 = pathf(fx, "projects/p2");
    assert_int_equal(symlink(outside, p2), 0);
    assert_int_equal(fread_rc(ls, "p2", "secret"), CUBE_EPERM);
    assert_int_equal(cube_files_write(ls, "p2", "new", "x", 1), CUBE_EPERM);
    assert_null(cube_files_list(ls, "p2", NULL, &rc));
    assert_int_equal(rc, CUBE_EPERM);
    assert_int_equal(access(newp, F_OK), -1);

    /* a FIFO is not a file */
    char *fifo = pathf(fx, "projects/p1/fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(fread_rc(ls, "p1", "fifo"), CUBE_EPERM);

    free(fifo);
    free(p2);
    free(newp);
    free(ldir);
    free(lfile);
    free(secret);
    free(outside);
}

static void test_files_size_cap(void **state)
{
    struct fixture *fx = *state;
    struct cube_files *ls = fx->files; /* 100 bytes per file */
    char buf[200];
    memset(buf, 'q', sizeof buf);
    assert_int_equal(cube_files_write(ls, "p1", "big", buf, 101), CUBE_ETOOBIG);
    assert_int_equal(fread_rc(ls, "p1", "big"), CUBE_ENOTFOUND);
    assert_int_equal(cube_files_write(ls, "p1", "big", buf, 100), CUBE_OK);
    char *s = fread_ok(ls, "p1", "big");
    assert_int_equal(strlen(s), 100);
    free(s);
    /* a too-big one placed there by other means is refused on read */
    char *p = pathf(fx, "projects/p1/huge");
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fwrite(buf, 1, 150, f);
    fclose(f);
    free(p);
    assert_int_equal(fread_rc(ls, "p1", "huge"), CUBE_ETOOBIG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_files_basic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_files_bad_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_files_symlinks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_files_size_cap, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
