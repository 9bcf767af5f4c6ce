/* test_tasks.c — worker pool and timers: ordering, timing, no self-overlap,
 * cancellation from outside and inside callbacks, shutdown. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "base/tasks.h"

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Polls until *v reaches want or timeout_ms passes; returns the last value. */
static int wait_for(atomic_int *v, int want, unsigned timeout_ms)
{
    uint64_t end = now_ms() + timeout_ms;
    while (atomic_load(v) < want && now_ms() < end)
        sleep_ms(1);
    return atomic_load(v);
}

static void count_fn(void *a, void *b)
{
    (void)b;
    atomic_fetch_add((atomic_int *)a, 1);
}

static void test_submit_runs(void **state)
{
    (void)state;
    atomic_int n = 0;
    struct cube_tasks *t = cube_tasks_new(4);
    assert_non_null(t);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(cube_tasks_submit(t, count_fn, &n, NULL), 0);
    assert_int_equal(wait_for(&n, 1000, 2000), 1000);
    assert_int_equal(cube_tasks_submit(t, NULL, NULL, NULL), -1);
    cube_tasks_free(t);
}

struct order {
    int seen[16];
    atomic_int n;    /* slots claimed */
    atomic_int done; /* slots written: wait on this one */
};

static void order_fn(void *a, void *b)
{
    struct order *o = a;
    o->seen[atomic_fetch_add(&o->n, 1)] = (int)(intptr_t)b;
    atomic_fetch_add(&o->done, 1);
}

/* One worker runs jobs in submission order; 0 workers means 1. */
static void test_submit_fifo(void **state)
{
    (void)state;
    struct order o = {.n = 0, .done = 0};
    struct cube_tasks *t = cube_tasks_new(0);
    for (int i = 0; i < 16; i++)
        cube_tasks_submit(t, order_fn, &o, (void *)(intptr_t)i);
    cube_tasks_shutdown(t);
    assert_int_equal(atomic_load(&o.n), 16);
    for (int i = 0; i < 16; i++)
        assert_int_equal(o.seen[i], i);
    cube_tasks_free(t);
}

static void test_timer_once(void **state)
{
    (void)state;
    atomic_int n = 0;
    struct cube_tasks *t = cube_tasks_new(2);
    uint64_t start = now_ms();
    assert_non_null(cube_tasks_timer_add(t, 30, 0, count_fn, &n, NULL, NULL));
    assert_int_equal(wait_for(&n, 1, 2000), 1);
    assert_true(now_ms() - start >= 30);
    sleep_ms(40);
    assert_int_equal(atomic_load(&n), 1);
    cube_tasks_free(t);
}

/* Timers fire in deadline order, not insertion order. */
static void test_timer_order(void **state)
{
    (void)state;
    struct order o = {.n = 0, .done = 0};
    struct cube_tasks *t = cube_tasks_new(1);
    static const unsigned delays[] = {40, 10, 30, 0, 20};
    for (int i = 0; i < 5; i++)
        cube_tasks_timer_add(t, delays[i], 0, order_fn, &o,
                             (void *)(intptr_t)delays[i], NULL);
    assert_int_equal(wait_for(&o.done, 5, 2000), 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(o.seen[i], i * 10);
    cube_tasks_free(t);
}

static void test_timer_repeat(void **state)
{
    (void)state;
    atomic_int n = 0;
    struct cube_tasks *t = cube_tasks_new(2);
    struct cube_timer *tm = cube_tasks_timer_add(t, 0, 10, count_fn, &n, NULL, NULL);
    assert_non_null(tm);
    sleep_ms(205);
    cube_tasks_timer_cancel(t, tm);
    int got = atomic_load(&n);
    /* 21 runs nominally; loose bounds absorb a loaded machine. */
    assert_in_range(got, 8, 22);
    sleep_ms(30);
    assert_int_equal(atomic_load(&n), got);
    cube_tasks_free(t);
}

struct overlap {
    atomic_int inside;
    atomic_int max_inside;
    atomic_int runs;
};

static void slow_fn(void *a, void *b)
{
    (void)b;
    struct overlap *o = a;
    int in = atomic_fetch_add(&o->inside, 1) + 1;
    if (in > atomic_load(&o->max_inside))
        atomic_store(&o->max_inside, in);
    sleep_ms(20);
    atomic_fetch_add(&o->runs, 1);
    atomic_fetch_sub(&o->inside, 1);
}

/* A 20 ms callback on a 1 ms interval with idle workers never overlaps. */
static void test_no_self_overlap(void **state)
{
    (void)state;
    struct overlap o = {0};
    struct cube_tasks *t = cube_tasks_new(4);
    struct cube_timer *tm = cube_tasks_timer_add(t, 0, 1, slow_fn, &o, NULL, NULL);
    sleep_ms(150);
    cube_tasks_timer_cancel(t, tm);
    assert_int_equal(atomic_load(&o.max_inside), 1);
    assert_int_equal(atomic_load(&o.inside), 0); /* cancel waited */
    assert_in_range(atomic_load(&o.runs), 3, 8);
    cube_tasks_free(t);
}

struct late {
    uint64_t at[8];
    atomic_int n;
};

static void late_fn(void *a, void *b)
{
    (void)b;
    struct late *l = a;
    int i = atomic_load(&l->n);
    if (i < 8)
        l->at[i] = now_ms();
    if (i == 0)
        sleep_ms(70);
    atomic_fetch_add(&l->n, 1);
}

/* After a run that overshot several intervals the timer does not burst to
 * catch up: the next run is at max(deadline + interval, now). */
static void test_no_catch_up_burst(void **state)
{
    (void)state;
    struct late l = {.n = 0};
    struct cube_tasks *t = cube_tasks_new(2);
    struct cube_timer *tm = cube_tasks_timer_add(t, 0, 20, late_fn, &l, NULL, NULL);
    wait_for(&l.n, 3, 2000);
    cube_tasks_timer_cancel(t, tm);
    assert_true(atomic_load(&l.n) >= 3);
    assert_true(l.at[1] - l.at[0] >= 70);
    /* The late run re-anchors the schedule at its end (~at[0] + 70), so the
     * next run is due an interval later; a burst would run it at ~+70 ms.
     * Timers never fire early, so load cannot make this flaky. */
    assert_true(l.at[2] - l.at[0] >= 85);
    cube_tasks_free(t);
}

struct blocker {
    atomic_int started;
    atomic_int finished;
    atomic_int runs;
};

static void block_fn(void *a, void *b)
{
    (void)b;
    struct blocker *bl = a;
    atomic_fetch_add(&bl->runs, 1);
    atomic_store(&bl->started, 1);
    sleep_ms(80);
    atomic_store(&bl->finished, 1);
}

/* Cancelling from another thread waits for the running callback. */
static void test_cancel_waits(void **state)
{
    (void)state;
    struct blocker bl = {0};
    struct cube_tasks *t = cube_tasks_new(2);
    struct cube_timer *tm = cube_tasks_timer_add(t, 0, 1, block_fn, &bl, NULL, NULL);
    assert_int_equal(wait_for(&bl.started, 1, 2000), 1);
    cube_tasks_timer_cancel(t, tm);
    assert_int_equal(atomic_load(&bl.finished), 1);
    int runs = atomic_load(&bl.runs);
    sleep_ms(20);
    assert_int_equal(atomic_load(&bl.runs), runs);
    cube_tasks_free(t);
}

/* Cancelling a timer that is not due yet: it never runs. */
static void test_cancel_pending(void **state)
{
    (void)state;
    atomic_int n = 0;
    struct cube_tasks *t = cube_tasks_new(1);
    struct cube_timer *a = cube_tasks_timer_add(t, 10000, 0, count_fn, &n, NULL, NULL);
    struct cube_timer *b = cube_tasks_timer_add(t, 15, 5, count_fn, &n, NULL, NULL);
    uint64_t start = now_ms();
    cube_tasks_timer_cancel(t, a);
    cube_tasks_timer_cancel(t, b);
    assert_true(now_ms() - start < 1000);
    sleep_ms(30);
    assert_int_equal(atomic_load(&n), 0);
    cube_tasks_free(t);
}

struct selfcancel {
    struct cube_tasks *t;
    _Atomic(struct cube_timer *) tm;
    atomic_int runs;
    int stop_at;
};

static void selfcancel_fn(void *a, void *b)
{
    (void)b;
    struct selfcancel *s = a;
    while (!atomic_load(&s->tm)) /* the handle is stored after timer_add */
        sleep_ms(1);
    if (atomic_fetch_add(&s->runs, 1) + 1 == s->stop_at)
        cube_tasks_timer_cancel(s->t, atomic_load(&s->tm)); /* returns at once */
}

static void test_cancel_from_callback(void **state)
{
    (void)state;
    struct cube_tasks *t = cube_tasks_new(2);
    struct selfcancel rep = {.t = t, .stop_at = 3};
    struct selfcancel once = {.t = t, .stop_at = 1};
    atomic_store(&rep.tm, cube_tasks_timer_add(t, 0, 1, selfcancel_fn, &rep, NULL, NULL));
    atomic_store(&once.tm, cube_tasks_timer_add(t, 0, 0, selfcancel_fn, &once, NULL, NULL));
    assert_int_equal(wait_for(&rep.runs, 3, 2000), 3);
    assert_int_equal(wait_for(&once.runs, 1, 2000), 1);
    sleep_ms(20);
    assert_int_equal(atomic_load(&rep.runs), 3);
    assert_int_equal(atomic_load(&once.runs), 1);
    cube_tasks_free(t);
}

static void test_cancel_owner(void **state)
{
    (void)state;
    static const char owner_a = 'a', owner_b = 'b';
    atomic_int na = 0, nb = 0;
    struct cube_tasks *t = cube_tasks_new(2);
    struct cube_timer *first = NULL;
    for (int i = 0; i < 3; i++) {
        struct cube_timer *tm = cube_tasks_timer_add(t, 0, 2, count_fn, &na,
                                                     NULL, &owner_a);
        first = first ? first : tm;
    }
    cube_tasks_timer_add(t, 5000, 0, count_fn, &na, NULL, &owner_a);
    cube_tasks_timer_add(t, 0, 2, count_fn, &nb, NULL, &owner_b);
    wait_for(&na, 3, 2000);
    cube_tasks_cancel_owner(t, &owner_a);
    int a = atomic_load(&na), b = atomic_load(&nb);
    sleep_ms(30);
    assert_int_equal(atomic_load(&na), a);
    assert_true(atomic_load(&nb) > b);
    /* The owner may still cancel its own handle afterwards: harmless. */
    cube_tasks_timer_cancel(t, first);
    cube_tasks_cancel_owner(t, &owner_b);
    b = atomic_load(&nb);
    sleep_ms(20);
    assert_int_equal(atomic_load(&nb), b);
    cube_tasks_free(t);
}

struct drain {
    struct cube_tasks *t;
    atomic_int runs;
    atomic_int late_rc;
};

static void drain_slow_fn(void *a, void *b)
{
    (void)b;
    struct drain *d = a;
    sleep_ms(50);
    atomic_fetch_add(&d->runs, 1);
}

static void drain_fn(void *a, void *b)
{
    (void)b;
    struct drain *d = a;
    atomic_fetch_add(&d->runs, 1);
    /* Queued work still runs during shutdown, but may not add more. */
    atomic_store(&d->late_rc, cube_tasks_submit(d->t, count_fn, &d->runs, NULL));
}

static void test_shutdown_drains(void **state)
{
    (void)state;
    atomic_int tn = 0;
    struct cube_tasks *t = cube_tasks_new(1);
    struct drain d = {.t = t, .runs = 0, .late_rc = 0};
    struct cube_timer *tm = cube_tasks_timer_add(t, 0, 1, count_fn, &tn, NULL, NULL);
    wait_for(&tn, 1, 2000);
    cube_tasks_submit(t, drain_slow_fn, &d, NULL);
    for (int i = 0; i < 10; i++)
        cube_tasks_submit(t, drain_fn, &d, NULL);
    cube_tasks_shutdown(t);
    assert_int_equal(atomic_load(&d.runs), 11);
    assert_int_equal(atomic_load(&d.late_rc), -1);
    assert_int_equal(cube_tasks_submit(t, count_fn, &tn, NULL), -1);
    assert_null(cube_tasks_timer_add(t, 0, 0, count_fn, &tn, NULL, NULL));
    int ticks = atomic_load(&tn);
    sleep_ms(10);
    assert_int_equal(atomic_load(&tn), ticks);
    cube_tasks_timer_cancel(t, tm); /* handle still valid until free */
    cube_tasks_shutdown(t);        /* idempotent */
    cube_tasks_free(t);
}

struct nested {
    struct cube_tasks *t;
    atomic_int n;
};

static void nested_fn(void *a, void *b)
{
    (void)b;
    struct nested *ns = a;
    cube_tasks_submit(ns->t, count_fn, &ns->n, NULL);
    cube_tasks_timer_add(ns->t, 1, 0, count_fn, &ns->n, NULL, NULL);
}

/* Callbacks may submit work and add timers. */
static void test_nested_work(void **state)
{
    (void)state;
    struct cube_tasks *t = cube_tasks_new(1);
    struct nested ns = {.t = t, .n = 0};
    cube_tasks_timer_add(t, 0, 0, nested_fn, &ns, NULL, NULL);
    assert_int_equal(wait_for(&ns.n, 2, 2000), 2);
    cube_tasks_free(t);
    cube_tasks_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_submit_runs),
        cmocka_unit_test(test_submit_fifo),
        cmocka_unit_test(test_timer_once),
        cmocka_unit_test(test_timer_order),
        cmocka_unit_test(test_timer_repeat),
        cmocka_unit_test(test_no_self_overlap),
        cmocka_unit_test(test_no_catch_up_burst),
        cmocka_unit_test(test_cancel_waits),
        cmocka_unit_test(test_cancel_pending),
        cmocka_unit_test(test_cancel_from_callback),
        cmocka_unit_test(test_cancel_owner),
        cmocka_unit_test(test_shutdown_drains),
        cmocka_unit_test(test_nested_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
