/* test_util_queue.c — the bounded work queue under threads: every item is
 * run exactly once, the bound holds, a stop drains or hands items back. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include <cube/util/queue.h>

#define PRODUCERS 8
#define PER_PRODUCER 5000

struct tally {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    long runs, lefts, sum, twice;
    int gate_open;        /* 0: run() waits until it opens */
    unsigned char *seen;  /* one flag per item: run at most once */
};

static void count(void *ctx, void *item)
{
    struct tally *t = ctx;
    long v = (long)(intptr_t)item;
    pthread_mutex_lock(&t->mu);
    while (!t->gate_open)
        pthread_cond_wait(&t->cv, &t->mu);
    if (t->seen) {   /* no cmocka assert off the test's thread */
        t->twice += t->seen[v];
        t->seen[v] = 1;
    }
    t->runs++;
    t->sum += v;
    pthread_mutex_unlock(&t->mu);
}

static void left_over(void *ctx, void *item)
{
    struct tally *t = ctx;
    (void)item;
    t->lefts++;
}

static void open_gate(struct tally *t)
{
    pthread_mutex_lock(&t->mu);
    t->gate_open = 1;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

struct producer {
    struct cu_queue *q;
    int base;
};

static void *produce(void *arg)
{
    struct producer *p = arg;
    for (int i = 0; i < PER_PRODUCER; i++)
        if (cu_queue_push_wait(p->q, (void *)(intptr_t)(p->base + i)) != 0)
            fail_msg("push_wait refused item %d", p->base + i);
    return NULL;
}

static void many_threads_every_item_once(void **st)
{
    (void)st;
    struct tally t = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
                      .gate_open = 1};
    long n = (long)PRODUCERS * PER_PRODUCER;
    t.seen = calloc((size_t)n, 1);
    struct cu_queue *q = cu_queue_new(16, 4, count, &t);
    assert_non_null(q);
    pthread_t th[PRODUCERS];
    struct producer p[PRODUCERS];
    for (int i = 0; i < PRODUCERS; i++) {
        p[i] = (struct producer){q, i * PER_PRODUCER};
        assert_int_equal(pthread_create(&th[i], NULL, produce, &p[i]), 0);
    }
    for (int i = 0; i < PRODUCERS; i++)
        pthread_join(th[i], NULL);
    cu_queue_stop(q, 1, left_over);
    assert_int_equal(t.runs, n);
    assert_int_equal(t.lefts, 0);
    assert_int_equal(t.sum, n * (n - 1) / 2);
    assert_int_equal(t.twice, 0);
    free(t.seen);
}

static void the_bound_holds_and_full_is_said(void **st)
{
    (void)st;
    struct tally t = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    struct cu_queue *q = cu_queue_new(3, 1, count, &t);
    assert_non_null(q);
    /* the worker takes one and waits at the gate; three more fill the ring */
    int pushed = 0;
    for (int i = 0; i < 100 && pushed < 4; i++)
        if (cu_queue_push(q, (void *)(intptr_t)i) == 0)
            pushed++;
        else
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    assert_int_equal(pushed, 4);
    while (cu_queue_length(q) != 3)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    errno = 0;
    assert_int_equal(cu_queue_push(q, (void *)1), -1);
    assert_int_equal(errno, EAGAIN);
    open_gate(&t);
    cu_queue_stop(q, 1, left_over);
    assert_int_equal(t.runs, 4);
    assert_int_equal(t.lefts, 0);
}

static void *stop_later(void *arg)
{
    nanosleep(&(struct timespec){0, 20000000}, NULL);
    open_gate(arg);
    return NULL;
}

static void a_stop_without_drain_hands_items_back(void **st)
{
    (void)st;
    struct tally t = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    struct cu_queue *q = cu_queue_new(8, 1, count, &t);
    assert_non_null(q);
    for (int i = 0; i < 6; i++)
        while (cu_queue_push(q, (void *)(intptr_t)i) != 0)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    while (cu_queue_length(q) != 5)   /* the worker holds one at the gate */
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    pthread_t opener;
    assert_int_equal(pthread_create(&opener, NULL, stop_later, &t), 0);
    cu_queue_stop(q, 0, left_over);   /* the one being run finishes first */
    pthread_join(opener, NULL);
    assert_int_equal(t.runs, 1);
    assert_int_equal(t.lefts, 5);
}

static void bad_arguments_are_refused(void **st)
{
    (void)st;
    struct tally t = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    errno = 0;
    assert_null(cu_queue_new(0, 1, count, &t));
    assert_int_equal(errno, EINVAL);
    assert_null(cu_queue_new(4, 0, count, &t));
    assert_null(cu_queue_new(4, 65, count, &t));
    assert_null(cu_queue_new(4, 1, NULL, &t));
    cu_queue_stop(NULL, 1, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(many_threads_every_item_once),
        cmocka_unit_test(the_bound_holds_and_full_is_said),
        cmocka_unit_test(a_stop_without_drain_hands_items_back),
        cmocka_unit_test(bad_arguments_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
