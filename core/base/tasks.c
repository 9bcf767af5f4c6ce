/* tasks.c — see tasks.h.
 *
 * One mutex guards everything: the FIFO job queue, the timer min-heap and the
 * list of all timers. Workers pop jobs; the timer thread sleeps until the
 * earliest deadline and then queues that timer's embedded job, so firing a
 * timer allocates nothing. A repeating timer goes back into the heap only
 * after its callback returned, which is what keeps it from overlapping
 * itself.
 *
 * Timer handles cancelled by cube_tasks_cancel_owner or by shutdown are not
 * freed until cube_tasks_free: the owner (a plugin) may still hold the handle
 * and cancel it again in its stop/fini, and that must stay harmless. */
#include "tasks.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#define MAX_WORKERS 256

struct job {
    struct job *next;
    cube_tasks_fn fn;
    void *a;
    void *b;
    struct cube_timer *timer; /* set for a timer's embedded job */
};

enum timer_state {
    T_SCHEDULED, /* in the heap */
    T_QUEUED,    /* its job is in the queue */
    T_RUNNING,   /* its callback runs on `runner` */
    T_DEAD,      /* cancelled or done; waits for its last reference */
};

struct cube_timer {
    struct cube_timer *prev, *next; /* list of all allocated timers */
    struct job job;
    uint64_t deadline; /* CLOCK_MONOTONIC ns */
    uint64_t seq;      /* tie-break: equal deadlines fire in add order */
    uint64_t interval; /* ns; 0 for one-shot */
    const void *owner;
    size_t heap_idx;
    enum timer_state state;
    pthread_t runner;
    bool cancelled; /* never runs again */
    bool keep;      /* revoked by owner/shutdown: freed by cube_tasks_free */
    unsigned waiters; /* cancellers blocked on this timer's callback */
};

struct cube_tasks {
    pthread_mutex_t mu;
    pthread_cond_t work_cv;  /* queue non-empty, or workers must stop */
    pthread_cond_t timer_cv; /* heap top changed, or timer thread must stop */
    pthread_cond_t done_cv;  /* a timer callback returned; shutdown done */
    struct job *qhead, *qtail;
    struct cube_timer **heap;
    size_t nheap, heap_cap;
    struct cube_timer *timers; /* every allocated timer */
    size_t ntimers;
    uint64_t seq;
    bool shutting;   /* no new work accepted */
    bool stop;       /* threads exit once the queue is drained */
    bool joined;     /* shutdown finished */
    pthread_t timer_thread;
    bool timer_started;
    pthread_t *workers;
    unsigned nworkers; /* threads actually started */
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ms to ns, saturating so a huge delay means "never" rather than wrapping. */
static uint64_t ms_to_ns(uint64_t ms)
{
    return ms > UINT64_MAX / 1000000u ? UINT64_MAX : ms * 1000000u;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- job queue (t->mu held) ---- */

static void queue_push(struct cube_tasks *t, struct job *j)
{
    j->next = NULL;
    if (t->qtail)
        t->qtail->next = j;
    else
        t->qhead = j;
    t->qtail = j;
    pthread_cond_signal(&t->work_cv);
}

static struct job *queue_pop(struct cube_tasks *t)
{
    struct job *j = t->qhead;
    if (j) {
        t->qhead = j->next;
        if (!t->qhead)
            t->qtail = NULL;
    }
    return j;
}

/* ---- timer min-heap (t->mu held) ---- */

static bool earlier(const struct cube_timer *a, const struct cube_timer *b)
{
    return a->deadline < b->deadline ||
           (a->deadline == b->deadline && a->seq < b->seq);
}

static void heap_set(struct cube_tasks *t, size_t i, struct cube_timer *tm)
{
    t->heap[i] = tm;
    tm->heap_idx = i;
}

static void heap_up(struct cube_tasks *t, size_t i)
{
    struct cube_timer *tm = t->heap[i];
    while (i > 0 && earlier(tm, t->heap[(i - 1) / 2])) {
        heap_set(t, i, t->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(t, i, tm);
}

static void heap_down(struct cube_tasks *t, size_t i)
{
    struct cube_timer *tm = t->heap[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= t->nheap)
            break;
        if (c + 1 < t->nheap && earlier(t->heap[c + 1], t->heap[c]))
            c++;
        if (!earlier(t->heap[c], tm))
            break;
        heap_set(t, i, t->heap[c]);
        i = c;
    }
    heap_set(t, i, tm);
}

/* timer_add reserves a heap slot for every allocated timer, so putting a
 * repeating timer back after its run can never fail. */
static int heap_reserve(struct cube_tasks *t, size_t n)
{
    if (n <= t->heap_cap)
        return 0;
    size_t cap = t->heap_cap ? t->heap_cap * 2 : 16;
    struct cube_timer **h = realloc(t->heap, cap * sizeof *h);
    if (!h)
        return -1;
    t->heap = h;
    t->heap_cap = cap;
    return 0;
}

static void heap_push(struct cube_tasks *t, struct cube_timer *tm)
{
    tm->seq = t->seq++;
    tm->state = T_SCHEDULED;
    heap_set(t, t->nheap++, tm);
    heap_up(t, tm->heap_idx);
    if (tm->heap_idx == 0)
        pthread_cond_signal(&t->timer_cv);
}

static void heap_remove(struct cube_tasks *t, struct cube_timer *tm)
{
    size_t i = tm->heap_idx;
    struct cube_timer *last = t->heap[--t->nheap];
    if (i == t->nheap)
        return;
    heap_set(t, i, last);
    heap_up(t, i);
    heap_down(t, last->heap_idx);
}

/* ---- timer lifetime (t->mu held) ---- */

static void timer_destroy(struct cube_tasks *t, struct cube_timer *tm)
{
    if (tm->prev)
        tm->prev->next = tm->next;
    else
        t->timers = tm->next;
    if (tm->next)
        tm->next->prev = tm->prev;
    t->ntimers--;
    free(tm);
}

/* A timer that will never run again: freed now, unless a canceller still
 * waits on it (the last waiter frees it) or its handle must outlive it. */
static void timer_retire(struct cube_tasks *t, struct cube_timer *tm)
{
    tm->state = T_DEAD;
    tm->cancelled = true;
    if (!tm->keep && tm->waiters == 0)
        timer_destroy(t, tm);
}

static bool running_elsewhere(const struct cube_timer *tm)
{
    return tm->state == T_RUNNING && !pthread_equal(tm->runner, pthread_self());
}

/* Blocks until tm's callback returned, unless the caller is that callback
 * (waiting would deadlock). */
static void wait_not_running(struct cube_tasks *t, struct cube_timer *tm)
{
    tm->waiters++;
    while (running_elsewhere(tm))
        pthread_cond_wait(&t->done_cv, &t->mu);
    tm->waiters--;
    if (tm->state == T_DEAD && !tm->keep && tm->waiters == 0)
        timer_destroy(t, tm);
}

/* Stops tm from running again. keep: leave the handle allocated until
 * cube_tasks_free. wait: block until a running callback returned. */
static void timer_revoke(struct cube_tasks *t, struct cube_timer *tm,
                         bool keep, bool wait)
{
    tm->cancelled = true;
    tm->keep = keep;
    if (tm->state == T_SCHEDULED) {
        heap_remove(t, tm);
        timer_retire(t, tm);
    } else if (tm->state == T_RUNNING && wait) {
        wait_not_running(t, tm);
    }
    /* T_QUEUED: the worker that pops its job retires it unrun. */
}

/* ---- threads ---- */

/* Runs a timer job: the callback without the lock, then either back into
 * the heap (repeating, not cancelled) or retired. */
static void run_timer(struct cube_tasks *t, struct cube_timer *tm)
{
    if (tm->cancelled) {
        timer_retire(t, tm);
        return;
    }
    tm->state = T_RUNNING;
    tm->runner = pthread_self();
    uint64_t due = tm->deadline;
    pthread_mutex_unlock(&t->mu);
    tm->job.fn(tm->job.a, tm->job.b);
    pthread_mutex_lock(&t->mu);
    if (!tm->cancelled && tm->interval) {
        /* A late run does not cause a burst of catch-up runs. */
        uint64_t next = add_sat(due, tm->interval), now = mono_ns();
        tm->deadline = next > now ? next : now;
        heap_push(t, tm);
    } else {
        timer_retire(t, tm);
    }
    pthread_cond_broadcast(&t->done_cv);
}

static void *worker_main(void *arg)
{
    struct cube_tasks *t = arg;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (!t->qhead && !t->stop)
            pthread_cond_wait(&t->work_cv, &t->mu);
        struct job *j = queue_pop(t);
        if (!j)
            break; /* stopping and drained */
        if (j->timer) {
            run_timer(t, j->timer);
            continue;
        }
        pthread_mutex_unlock(&t->mu);
        j->fn(j->a, j->b);
        free(j);
        pthread_mutex_lock(&t->mu);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

static void wait_until(struct cube_tasks *t, uint64_t deadline)
{
    /* Cap the sleep so a far deadline cannot overflow time_t arithmetic. */
    uint64_t now = mono_ns(), cap = add_sat(now, 3600ull * 1000000000u);
    uint64_t d = deadline < cap ? deadline : cap;
    struct timespec ts = {.tv_sec = (time_t)(d / 1000000000u),
                          .tv_nsec = (long)(d % 1000000000u)};
    pthread_cond_timedwait(&t->timer_cv, &t->mu, &ts);
}

static void *timer_main(void *arg)
{
    struct cube_tasks *t = arg;
    pthread_mutex_lock(&t->mu);
    while (!t->stop) {
        if (!t->nheap) {
            pthread_cond_wait(&t->timer_cv, &t->mu);
            continue;
        }
        struct cube_timer *tm = t->heap[0];
        if (tm->deadline > mono_ns()) {
            wait_until(t, tm->deadline);
            continue;
        }
        heap_remove(t, tm);
        tm->state = T_QUEUED;
        queue_push(t, &tm->job);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

/* ---- public API ---- */

static int init_sync(struct cube_tasks *t)
{
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        return -1;
    /* Deadlines are monotonic so wall-clock jumps do not fire or stall
     * timers. */
    int rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(&t->timer_cv, &ca);
    pthread_condattr_destroy(&ca);
    if (rc != 0)
        return -1;
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->work_cv, NULL);
    pthread_cond_init(&t->done_cv, NULL);
    return 0;
}

/* Starts the pool and timer thread; NULL when memory or threads run out. */
struct cube_tasks *cube_tasks_new(unsigned workers)
{
    if (workers < 1)
        workers = 1;
    if (workers > MAX_WORKERS)
        workers = MAX_WORKERS;
    struct cube_tasks *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->workers = calloc(workers, sizeof *t->workers);
    if (!t->workers || init_sync(t) < 0) {
        free(t->workers);
        free(t);
        return NULL;
    }
    if (pthread_create(&t->timer_thread, NULL, timer_main, t) != 0)
        goto fail;
    t->timer_started = true;
    for (; t->nworkers < workers; t->nworkers++) {
        if (pthread_create(&t->workers[t->nworkers], NULL, worker_main, t) != 0)
            goto fail;
    }
    return t;
fail:
    cube_tasks_free(t); /* joins whatever started */
    return NULL;
}

/* Queues fn(a, b) for a worker; -1 after shutdown began or on OOM. */
int cube_tasks_submit(struct cube_tasks *t, cube_tasks_fn fn, void *a, void *b)
{
    if (!t || !fn)
        return -1;
    struct job *j = malloc(sizeof *j);
    if (!j)
        return -1;
    *j = (struct job){.fn = fn, .a = a, .b = b};
    pthread_mutex_lock(&t->mu);
    if (t->shutting) {
        pthread_mutex_unlock(&t->mu);
        free(j);
        return -1;
    }
    queue_push(t, j);
    pthread_mutex_unlock(&t->mu);
    return 0;
}

/* Schedules fn(a, b) after delay_ms, then every interval_ms; NULL on
 * OOM/shutdown. */
struct cube_timer *cube_tasks_timer_add(struct cube_tasks *t, uint64_t delay_ms,
                                        uint64_t interval_ms, cube_tasks_fn fn,
                                        void *a, void *b, const void *owner)
{
    if (!t || !fn)
        return NULL;
    struct cube_timer *tm = calloc(1, sizeof *tm);
    if (!tm)
        return NULL;
    tm->job = (struct job){.fn = fn, .a = a, .b = b, .timer = tm};
    tm->interval = ms_to_ns(interval_ms);
    tm->owner = owner;
    pthread_mutex_lock(&t->mu);
    if (t->shutting || heap_reserve(t, t->ntimers + 1) < 0) {
        pthread_mutex_unlock(&t->mu);
        free(tm);
        return NULL;
    }
    tm->deadline = add_sat(mono_ns(), ms_to_ns(delay_ms));
    tm->next = t->timers;
    if (t->timers)
        t->timers->prev = tm;
    t->timers = tm;
    t->ntimers++;
    heap_push(t, tm);
    pthread_mutex_unlock(&t->mu);
    return tm;
}

/* Cancels tm, waiting for its running callback unless called from it. */
void cube_tasks_timer_cancel(struct cube_tasks *t, struct cube_timer *timer)
{
    if (!t || !timer)
        return;
    pthread_mutex_lock(&t->mu);
    if (!timer->cancelled)
        timer_revoke(t, timer, false, true);
    else if (timer->keep)
        wait_not_running(t, timer); /* already revoked by owner/shutdown */
    pthread_mutex_unlock(&t->mu);
}

/* Cancels every live timer of owner, waiting for running callbacks. */
void cube_tasks_cancel_owner(struct cube_tasks *t, const void *owner)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        struct cube_timer *tm = t->timers;
        while (tm && (tm->cancelled || tm->owner != owner))
            tm = tm->next;
        if (!tm)
            break;
        /* May drop the lock while waiting, so rescan from the head. */
        timer_revoke(t, tm, true, true);
    }
    pthread_mutex_unlock(&t->mu);
}

static void join_all(struct cube_tasks *t)
{
    if (t->timer_started)
        pthread_join(t->timer_thread, NULL);
    for (unsigned i = 0; i < t->nworkers; i++)
        pthread_join(t->workers[i], NULL);
}

/* Refuses new work, cancels timers, drains the queue and joins the threads.
 * Must not be called from a task or timer callback (it joins that thread). */
void cube_tasks_shutdown(struct cube_tasks *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    if (t->shutting) {
        while (!t->joined) /* a concurrent first call is still joining */
            pthread_cond_wait(&t->done_cv, &t->mu);
        pthread_mutex_unlock(&t->mu);
        return;
    }
    t->shutting = true;
    /* keep: revoked handles are never freed here, so the walk is safe. */
    for (struct cube_timer *tm = t->timers; tm; tm = tm->next) {
        if (!tm->cancelled)
            timer_revoke(t, tm, true, false);
    }
    t->stop = true;
    pthread_cond_broadcast(&t->work_cv);
    pthread_cond_signal(&t->timer_cv);
    pthread_mutex_unlock(&t->mu);
    join_all(t);
    pthread_mutex_lock(&t->mu);
    t->joined = true;
    pthread_cond_broadcast(&t->done_cv);
    pthread_mutex_unlock(&t->mu);
}

/* Shuts down if needed, then frees the pool and every timer handle. */
void cube_tasks_free(struct cube_tasks *t)
{
    if (!t)
        return;
    cube_tasks_shutdown(t);
    while (t->timers)
        timer_destroy(t, t->timers);
    free(t->heap);
    free(t->workers);
    pthread_cond_destroy(&t->work_cv);
    pthread_cond_destroy(&t->timer_cv);
    pthread_cond_destroy(&t->done_cv);
    pthread_mutex_destroy(&t->mu);
    free(t);
}
