/* test_logstore_resume.c — a stream's size and state, and appending from a
 * known offset without duplicating bytes (logstore_resume.c; the
 * log_stat and log_append_at slots), also across a reopened store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "logstore_fixture.h"

static void stat_counts_bytes_and_state(void **state)
{
    struct fixture *fx = *state;
    uint64_t size = 7;
    int closed = 7;
    assert_int_equal(cube_logstore_stat(fx->ls, "Job", "p", "j", "out", &size, &closed),
                     CUBE_ENOTFOUND);
    assert_int_equal(size, 0);
    assert_int_equal(cube_logstore_append(fx->ls, "Job", "p", "j", "out", "abc", 3), CUBE_OK);
    assert_int_equal(cube_logstore_stat(fx->ls, "Job", "p", "j", "out", &size, &closed),
                     CUBE_OK);
    assert_int_equal(size, 3);
    assert_int_equal(closed, 0);
    assert_int_equal(cube_logstore_close(fx->ls, "Job", "p", "j", "out"), CUBE_OK);
    assert_int_equal(cube_logstore_stat(fx->ls, "Job", "p", "j", "out", NULL, &closed),
                     CUBE_OK);
    assert_int_equal(closed, 1);
    /* closed without a byte */
    assert_int_equal(cube_logstore_close(fx->ls, "Job", "p", "e", "out"), CUBE_OK);
    assert_int_equal(cube_logstore_stat(fx->ls, "Job", "p", "e", "out", &size, &closed),
                     CUBE_OK);
    assert_int_equal(size, 0);
    assert_int_equal(closed, 1);
    assert_int_equal(cube_logstore_stat(fx->ls, "Job", "p", "bad/name", "out", &size, NULL),
                     CUBE_EINVAL);
}

static void append_at_is_idempotent(void **state)
{
    struct fixture *fx = *state;
    struct cube_logstore *ls = fx->ls;
    assert_int_equal(cube_logstore_append_at(ls, "Job", "p", "j", "out", 0, "hello ", 6),
                     CUBE_OK);
    assert_int_equal(cube_logstore_append_at(ls, "Job", "p", "j", "out", 0, "hello ", 6),
                     CUBE_OK);
    assert_int_equal(cube_logstore_append_at(ls, "Job", "p", "j", "out", 2, "llo world", 9),
                     CUBE_OK);
    assert_int_equal(cube_logstore_append_at(ls, "Job", "p", "j", "out", 12, "x", 1),
                     CUBE_ECONFLICT);
    size_t len = 0;
    int rc;
    char *text = cube_logstore_read(ls, "Job", "p", "j", "out", 0, 100, &len, &rc);
    assert_string_equal(text, "hello world");
    free(text);
    /* the size and state survive a new store over the same data dir */
    cube_logstore_free(fx->ls);
    fx->ls = ls = cube_logstore_new(fx->dir, 0);
    assert_non_null(ls);
    uint64_t size = 0;
    assert_int_equal(cube_logstore_stat(ls, "Job", "p", "j", "out", &size, NULL), CUBE_OK);
    assert_int_equal(size, 11);
    assert_int_equal(cube_logstore_append_at(ls, "Job", "p", "j", "out", 11, "!", 1), CUBE_OK);
    assert_int_equal(cube_logstore_close(ls, "Job", "p", "j", "out"), CUBE_OK);
    assert_int_equal(cube_logstore_append_at(ls, "Job", "p", "j", "out", 6, "world!", 6),
                     CUBE_OK);
    assert_int_equal(cube_logstore_append_at(ls, "Job", "p", "j", "out", 12, "?", 1),
                     CUBE_ESTATE);
    int closed = 0;
    assert_int_equal(cube_logstore_stat(ls, "Job", "p", "j", "out", &size, &closed), CUBE_OK);
    assert_int_equal(size, 12);
    assert_int_equal(closed, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(stat_counts_bytes_and_state, setup, teardown),
        cmocka_unit_test_setup_teardown(append_at_is_idempotent, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
