/* test_logstore_empty.c — streams finished without a byte
 * (logstore_empty.c): no file and no object directory, yet reading gives
 * "", a follower (even one that wants to follow) ends at once, before and
 * after a restart of the store; an append afterwards makes the file as
 * usual; removing the object's logs forgets them; the list file is
 * rewritten when mostly stale; names the list cannot hold get an empty
 * file as before. */
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

#include "logstore/logstore.h"
#include "logstore_fixture.h"
#include "logstore/logstore_priv.h"

/* What a follower reads before it ends (asserts it ends). */
static void follow_to_end(struct cube_logstore *ls, const char *name, const char *stream,
                          int follow, const char *want)
{
    struct cube_stream_desc d;
    char buf[64], got[64] = "";
    size_t n = 0;
    assert_int_equal(cube_ls_follower_open(ls, "Job", "p1", name, stream, 0, follow, &d),
                     CUBE_OK);
    for (int i = 0; i < 8; i++) {
        long k = d.read(d.cls, buf, sizeof buf);
        if (k == CUBE_STREAM_END)
            break;
        if (k <= 0)
            fail_msg("the follower of %s/%s did not end (read %ld)", name, stream, k);
        memcpy(got + n, buf, (size_t)k);
        n += (size_t)k;
    }
    got[n] = '\0';
    assert_string_equal(got, want);
    d.close(d.cls);
}

static char *read_stream(struct cube_logstore *ls, const char *name, const char *stream,
                         int *rc)
{
    size_t len = 0;
    return cube_logstore_read(ls, "Job", "p1", name, stream, 0, SIZE_MAX, &len, rc);
}

static void finished_empty_has_no_file(void **state)
{
    struct fixture *fx = *state;
    struct cube_logstore *ls = fx->ls;
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j1", "replica-0"), CUBE_OK);
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j1", "replica-0"), CUBE_OK);
    assert_int_equal(file_mode(fx, "logs/p1/Job/j1"), -1);   /* no directory either */
    int rc;
    char *s = read_stream(ls, "j1", "replica-0", &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_string_equal(s, "");
    free(s);
    follow_to_end(ls, "j1", "replica-0", 1, "");
    follow_to_end(ls, "j1", "replica-0", 0, "");
    /* a stream never closed is still not found (a follower would wait) */
    assert_null(read_stream(ls, "j1", "other", &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    /* the same after a restart */
    cube_logstore_free(ls);
    fx->ls = ls = cube_logstore_new(fx->dir, 1000);
    s = read_stream(ls, "j1", "replica-0", &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_string_equal(s, "");
    free(s);
    follow_to_end(ls, "j1", "replica-0", 1, "");
    assert_null(read_stream(ls, "j1", "other", &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
}

/* A follower waiting on a stream that then finishes empty ends. */
static void a_waiting_follower_ends_when_it_finishes_empty(void **state)
{
    struct fixture *fx = *state;
    struct cube_logstore *ls = fx->ls;
    struct cube_stream_desc d;
    char buf[16];
    assert_int_equal(cube_ls_follower_open(ls, "Job", "p1", "j2", "replica-0", 0, 1, &d),
                     CUBE_OK);
    assert_int_equal(d.read(d.cls, buf, sizeof buf), 0);   /* parked */
    unsigned before = cube_ls_follower_wakes(d.cls);
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j2", "replica-0"), CUBE_OK);
    assert_true(cube_ls_follower_wakes(d.cls) > before);
    assert_int_equal(d.read(d.cls, buf, sizeof buf), CUBE_STREAM_END);
    d.close(d.cls);
    assert_int_equal(file_mode(fx, "logs/p1/Job/j2"), -1);
}

/* An append after it finished empty (a retry of the same replica) makes
 * the file, open again; closing finishes it as any stream. */
static void an_append_after_makes_the_file(void **state)
{
    struct fixture *fx = *state;
    struct cube_logstore *ls = fx->ls;
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j3", "replica-0"), CUBE_OK);
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j3", "replica-0", "again\n", 6),
                     CUBE_OK);
    assert_int_equal(file_mode(fx, "logs/p1/Job/j3/replica-0.log"), 0640);
    int rc;
    char *s = read_stream(ls, "j3", "replica-0", &rc);
    assert_string_equal(s, "again\n");
    free(s);
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j3", "replica-0"), CUBE_OK);
    assert_int_equal(file_mode(fx, "logs/p1/Job/j3/replica-0.log"), 0440);
    cube_logstore_free(ls);
    fx->ls = ls = cube_logstore_new(fx->dir, 1000);
    follow_to_end(ls, "j3", "replica-0", 1, "again\n");   /* the file wins */
}

/* Removing the object's logs forgets its empty streams, across restarts;
 * a later object of that name starts afresh. */
static void removal_forgets_them(void **state)
{
    struct fixture *fx = *state;
    struct cube_logstore *ls = fx->ls;
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j4", "a"), CUBE_OK);
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j4", "b"), CUBE_OK);
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j40", "a"), CUBE_OK);
    assert_int_equal(cube_logstore_remove_object(ls, "Job", "p1", "j4"), CUBE_OK);
    int rc;
    for (int restart = 0; restart < 2; restart++) {
        assert_null(read_stream(ls, "j4", "a", &rc));
        assert_int_equal(rc, CUBE_ENOTFOUND);
        assert_null(read_stream(ls, "j4", "b", &rc));
        assert_int_equal(rc, CUBE_ENOTFOUND);
        char *s = read_stream(ls, "j40", "a", &rc);   /* a name with j4 as prefix stays */
        assert_int_equal(rc, CUBE_OK);
        free(s);
        cube_logstore_free(ls);
        fx->ls = ls = cube_logstore_new(fx->dir, 1000);
    }
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j4", "a"), CUBE_OK);
    char *s = read_stream(ls, "j4", "a", &rc);
    assert_int_equal(rc, CUBE_OK);
    free(s);
}

/* Lines of the list file. */
static int list_lines(struct fixture *fx)
{
    char *path = pathf(fx, "logs/.finished-empty");
    FILE *f = fopen(path, "r");
    free(path);
    int n = 0, c;
    while (f && (c = fgetc(f)) != EOF)
        n += c == '\n';
    if (f)
        fclose(f);
    return n;
}

/* A list that is mostly stale is rewritten, as removals go on and when
 * loaded. */
static void a_stale_list_is_rewritten(void **state)
{
    struct fixture *fx = *state;
    struct cube_logstore *ls = fx->ls;
    char name[32];
    for (int i = 0; i < 1500; i++) {
        snprintf(name, sizeof name, "j-%d", i);
        assert_int_equal(cube_logstore_close(ls, "Job", "p1", name, "replica-0"), CUBE_OK);
        if (i >= 10)
            assert_int_equal(cube_logstore_remove_object(ls, "Job", "p1", name), CUBE_OK);
    }
    /* rewritten once the lines passed 2 * entries + 1024, at 1034 */
    int lines = list_lines(fx);
    if (lines >= 1500 + 1490 || lines < 10)
        fail_msg("the list has %d lines: it was not rewritten as removals went on", lines);
    cube_logstore_free(ls);
    fx->ls = ls = cube_logstore_new(fx->dir, 1000);
    int rc;
    char *s = read_stream(ls, "j-3", "replica-0", &rc);   /* loads it */
    assert_int_equal(rc, CUBE_OK);
    free(s);
    assert_null(read_stream(ls, "j-10", "replica-0", &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    assert_null(read_stream(ls, "j-1499", "replica-0", &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    /* a list left long by a crash is rewritten at load */
    char *path = pathf(fx, "logs/.finished-empty");
    FILE *f = fopen(path, "a");
    for (int i = 0; i < 2000; i++)
        fprintf(f, "+p1/Job/x-%d\treplica-0\n-p1/Job/x-%d\n", i, i);
    fclose(f);
    free(path);
    cube_logstore_free(ls);
    fx->ls = ls = cube_logstore_new(fx->dir, 1000);
    s = read_stream(ls, "j-3", "replica-0", &rc);
    assert_int_equal(rc, CUBE_OK);
    free(s);
    assert_int_equal(list_lines(fx), 10);
}

/* A name the list cannot hold (a tab) gets an empty 0440 file instead. */
static void unlistable_names_get_a_file(void **state)
{
    struct fixture *fx = *state;
    struct cube_logstore *ls = fx->ls;
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j\t5", "replica-0"), CUBE_OK);
    assert_int_equal(file_mode(fx, "logs/p1/Job/j\t5/replica-0.log"), 0440);
    assert_int_equal(list_lines(fx), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(finished_empty_has_no_file, setup, teardown),
        cmocka_unit_test_setup_teardown(a_waiting_follower_ends_when_it_finishes_empty, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(an_append_after_makes_the_file, setup, teardown),
        cmocka_unit_test_setup_teardown(removal_forgets_them, setup, teardown),
        cmocka_unit_test_setup_teardown(a_stale_list_is_rewritten, setup, teardown),
        cmocka_unit_test_setup_teardown(unlistable_names_get_a_file, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
