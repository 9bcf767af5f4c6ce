/* test_auth_throttle.c — login throttling: free failures, exponential
 * lockout with a cap, clearing, forgetting idle keys, the bounded table and
 * concurrent use. Time is passed in explicitly, so nothing sleeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth_throttle.h"

static const struct cube_throttle_cfg small = {
    .free_failures = 3, .base_ms = 100, .max_ms = 1000, .forget_ms = 10000, .capacity = 64,
};

/* A table with cfg, checked for NULL. */
static struct cube_throttle *new_table(const struct cube_throttle_cfg *cfg)
{
    struct cube_throttle *t = cube_throttle_new(cfg);
    assert_non_null(t);
    return t;
}

static void free_failures(void **st)
{
    struct cube_throttle *t = new_table(&small);
    assert_int_equal(cube_throttle_wait(t, "user:alice", 0), 0);
    for (int i = 0; i < 3; i++) {
        cube_throttle_fail(t, "user:alice", 0);
        assert_int_equal(cube_throttle_wait(t, "user:alice", 0), 0);
    }
    cube_throttle_fail(t, "user:alice", 10);
    assert_int_equal(cube_throttle_wait(t, "user:alice", 10), 100);
    assert_int_equal(cube_throttle_wait(t, "user:alice", 60), 50);
    assert_int_equal(cube_throttle_wait(t, "user:alice", 109), 1);
    assert_int_equal(cube_throttle_wait(t, "user:alice", 110), 0);
    assert_int_equal(cube_throttle_wait(t, "user:bob", 10), 0);
    assert_int_equal(cube_throttle_wait(t, "addr:10.0.0.7", 10), 0);
    cube_throttle_free(t);
}

static void lockout_doubles_up_to_max(void **st)
{
    struct cube_throttle *t = new_table(&small);
    for (int i = 0; i < 3; i++)
        cube_throttle_fail(t, "k", 0);
    const uint64_t want[] = {100, 200, 400, 800, 1000, 1000, 1000};
    uint64_t now = 0;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        cube_throttle_fail(t, "k", now);
        assert_int_equal(cube_throttle_wait(t, "k", now), want[i]);
        now += want[i];
        assert_int_equal(cube_throttle_wait(t, "k", now), 0);
    }
    for (int i = 0; i < 200; i++) /* shifts far past 64 bits stay capped */
        cube_throttle_fail(t, "k", now);
    assert_int_equal(cube_throttle_wait(t, "k", now), 1000);
    cube_throttle_free(t);
}

static void defaults(void **st)
{
    struct cube_throttle *t = new_table(NULL);
    for (int i = 0; i < 5; i++)
        cube_throttle_fail(t, "user:a", 1000);
    assert_int_equal(cube_throttle_wait(t, "user:a", 1000), 0);
    cube_throttle_fail(t, "user:a", 1000);
    assert_int_equal(cube_throttle_wait(t, "user:a", 1000), 1000);
    cube_throttle_fail(t, "user:a", 1000);
    assert_int_equal(cube_throttle_wait(t, "user:a", 1000), 2000);
    for (int i = 0; i < 30; i++)
        cube_throttle_fail(t, "user:a", 1000);
    assert_int_equal(cube_throttle_wait(t, "user:a", 1000), 15u * 60u * 1000u);
    cube_throttle_free(t);
}

static void clear_forgets_failures(void **st)
{
    struct cube_throttle *t = new_table(&small);
    for (int i = 0; i < 5; i++) {
        cube_throttle_fail(t, "user:alice", 0);
        cube_throttle_fail(t, "addr:10.0.0.7", 0);
    }
    assert_int_equal(cube_throttle_wait(t, "user:alice", 0), 200);
    cube_throttle_clear(t, "user:alice");
    assert_int_equal(cube_throttle_wait(t, "user:alice", 0), 0);
    assert_int_equal(cube_throttle_wait(t, "addr:10.0.0.7", 0), 200);
    for (int i = 0; i < 3; i++) /* counting starts over */
        cube_throttle_fail(t, "user:alice", 0);
    assert_int_equal(cube_throttle_wait(t, "user:alice", 0), 0);
    cube_throttle_clear(t, "user:nobody");
    cube_throttle_clear(t, NULL);
    cube_throttle_free(t);
}

static void idle_keys_are_forgotten(void **st)
{
    struct cube_throttle *t = new_table(&small);
    for (int i = 0; i < 4; i++) {
        cube_throttle_fail(t, "a", 1000);
        cube_throttle_fail(t, "b", 1000);
    }
    /* Not idle yet: the next failure continues the count. */
    cube_throttle_fail(t, "a", 10999);
    assert_int_equal(cube_throttle_wait(t, "a", 10999), 200);
    /* Idle for forget_ms: dropped on lookup, or reset on the next failure. */
    assert_int_equal(cube_throttle_wait(t, "b", 11000), 0);
    cube_throttle_fail(t, "b", 11000);
    assert_int_equal(cube_throttle_wait(t, "b", 11000), 0);
    cube_throttle_fail(t, "a", 10999 + 10000);
    assert_int_equal(cube_throttle_wait(t, "a", 10999 + 10000), 0);
    cube_throttle_free(t);
}

static void full_table_evicts_oldest(void **st)
{
    struct cube_throttle_cfg cfg = small;
    cfg.free_failures = 1;
    cfg.capacity = 4;
    struct cube_throttle *t = new_table(&cfg);
    char key[16];
    for (int k = 0; k < 4; k++) {
        snprintf(key, sizeof key, "k%d", k);
        cube_throttle_fail(t, key, (uint64_t)k);
        cube_throttle_fail(t, key, (uint64_t)k);
    }
    cube_throttle_fail(t, "k0", 5); /* k0 is now the most recent */
    cube_throttle_fail(t, "k4", 6);
    cube_throttle_fail(t, "k4", 6);
    assert_int_equal(cube_throttle_wait(t, "k1", 6), 0); /* evicted */
    const char *kept[] = {"k0", "k2", "k3", "k4"};
    for (size_t i = 0; i < 4; i++)
        assert_true(cube_throttle_wait(t, kept[i], 6) > 0);
    cube_throttle_fail(t, "k5", 7);
    assert_int_equal(cube_throttle_wait(t, "k2", 7), 0);
    assert_true(cube_throttle_wait(t, "k3", 7) > 0);
    cube_throttle_free(t);
}

static void null_arguments(void **st)
{
    struct cube_throttle *t = new_table(&small);
    assert_int_equal(cube_throttle_wait(t, NULL, 0), 0);
    assert_int_equal(cube_throttle_wait(NULL, "k", 0), 0);
    cube_throttle_fail(t, NULL, 0);
    cube_throttle_fail(NULL, "k", 0);
    cube_throttle_clear(NULL, "k");
    cube_throttle_free(t);
    cube_throttle_free(NULL);
}

struct worker {
    struct cube_throttle *t;
    unsigned seed;
    unsigned long waited; /* lookups that found a lock */
};

/* Hammers the table with mixed operations on overlapping keys. */
static void *hammer(void *arg)
{
    struct worker *w = arg;
    char key[32];
    for (uint64_t i = 0; i < 50000; i++) {
        unsigned r = rand_r(&w->seed);
        snprintf(key, sizeof key, "user:%u", r % 100);
        uint64_t now = i * 3;
        if (r % 7 == 0)
            cube_throttle_clear(w->t, key);
        else if (r % 3 == 0)
            cube_throttle_fail(w->t, key, now);
        else
            w->waited += cube_throttle_wait(w->t, key, now) > 0;
    }
    return NULL;
}

static void concurrent_use(void **st)
{
    struct cube_throttle_cfg cfg = small;
    cfg.capacity = 32;
    cfg.forget_ms = 500;
    struct cube_throttle *t = new_table(&cfg);
    pthread_t th[4];
    struct worker w[4];
    for (unsigned i = 0; i < 4; i++) {
        w[i] = (struct worker){t, i + 1, 0};
        assert_int_equal(pthread_create(&th[i], NULL, hammer, &w[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        void *ret = (void *)1;
        assert_int_equal(pthread_join(th[i], &ret), 0);
        assert_null(ret);
        assert_true(w[i].waited > 0);
    }
    char key[32];
    for (unsigned k = 0; k < 100; k++) { /* every lock has run out by now */
        snprintf(key, sizeof key, "user:%u", k);
        assert_int_equal(cube_throttle_wait(t, key, 1000000), 0);
    }
    cube_throttle_fail(t, "user:0", 1000000);
    cube_throttle_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(free_failures),
        cmocka_unit_test(lockout_doubles_up_to_max),
        cmocka_unit_test(defaults),
        cmocka_unit_test(clear_forgets_failures),
        cmocka_unit_test(idle_keys_are_forgotten),
        cmocka_unit_test(full_table_evicts_oldest),
        cmocka_unit_test(null_arguments),
        cmocka_unit_test(concurrent_use),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
