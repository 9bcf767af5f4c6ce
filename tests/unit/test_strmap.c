/* test_strmap.c — the string map: put/get/replace/delete, growth past
 * many keys, iteration and early stop, and freeing values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/strmap.h"

static void put_get_replace_delete(void **state)
{
    (void)state;
    struct cube_strmap *m = cube_strmap_new();
    void *old = (void *)1;
    int a = 1, b = 2;
    assert_int_equal(cube_strmap_put(m, "alpha", &a, &old), 0);
    assert_null(old);
    assert_ptr_equal(cube_strmap_get(m, "alpha"), &a);
    assert_null(cube_strmap_get(m, "beta"));
    assert_int_equal(cube_strmap_put(m, "alpha", &b, &old), 0);
    assert_ptr_equal(old, &a);
    assert_int_equal(cube_strmap_size(m), 1);
    assert_ptr_equal(cube_strmap_del(m, "alpha"), &b);
    assert_null(cube_strmap_del(m, "alpha"));
    assert_int_equal(cube_strmap_size(m), 0);
    cube_strmap_free(m, NULL);
}

static void many_keys(void **state)
{
    (void)state;
    struct cube_strmap *m = cube_strmap_new();
    char key[32];
    for (intptr_t i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "k%ld", (long)i);
        assert_int_equal(cube_strmap_put(m, key, (void *)(i + 1), NULL), 0);
    }
    assert_int_equal(cube_strmap_size(m), 5000);
    for (intptr_t i = 0; i < 5000; i += 7) {
        snprintf(key, sizeof key, "k%ld", (long)i);
        assert_ptr_equal(cube_strmap_get(m, key), (void *)(i + 1));
    }
    cube_strmap_free(m, NULL);
}

static int count(void *cls, const char *key, void *value)
{
    (void)key;
    (void)value;
    return ++*(int *)cls == 3;   /* stop at the third */
}

static void each_stops_early_and_free_values(void **state)
{
    (void)state;
    struct cube_strmap *m = cube_strmap_new();
    for (int i = 0; i < 10; i++) {
        char key[8];
        snprintf(key, sizeof key, "%d", i);
        cube_strmap_put(m, key, strdup(key), NULL);
    }
    int n = 0;
    assert_int_equal(cube_strmap_each(m, count, &n), 1);
    assert_int_equal(n, 3);
    cube_strmap_free(m, free);   /* ASan reports a leak if a value is missed */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(put_get_replace_delete),
        cmocka_unit_test(many_keys),
        cmocka_unit_test(each_stops_early_and_free_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
