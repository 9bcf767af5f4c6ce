/* queue.c — a bounded work queue with worker threads; see cube/util/queue.h.
 * A ring of cap slots under one mutex; `more` wakes workers, `room` wakes
 * cu_queue_push_wait. */
#include <cube/util/queue.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#define MAX_WORKERS 64

struct cu_queue {
    pthread_mutex_t mu;
    pthread_cond_t more, room;
    void **ring;            /* cap slots; head is the next to take (mu) */
    size_t cap, head, n;    /* mu */
    int stopping, drain;    /* mu */
    cu_queue_fn run;
    void *ctx;
    int n_workers;
    pthread_t workers[MAX_WORKERS];
};

static void *worker_main(void *arg)
{
    struct cu_queue *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->n && !q->stopping)
            pthread_cond_wait(&q->more, &q->mu);
        if (!q->n || (q->stopping && !q->drain))
            break;
        void *item = q->ring[q->head];
        q->head = (q->head + 1) % q->cap;
        q->n--;
        pthread_cond_signal(&q->room);
        pthread_mutex_unlock(&q->mu);
        q->run(q->ctx, item);
        pthread_mutex_lock(&q->mu);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

static void destroy(struct cu_queue *q)
{
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->more);
    pthread_cond_destroy(&q->room);
    free(q->ring);
    free(q);
}

struct cu_queue *cu_queue_new(size_t cap, int workers, cu_queue_fn run, void *ctx)
{
    if (cap < 1 || cap > ((size_t)-1) / sizeof(void *) || workers < 1 ||
        workers > MAX_WORKERS || !run) {
        errno = EINVAL;
        return NULL;
    }
    struct cu_queue *q = calloc(1, sizeof *q);
    if (!q || !(q->ring = calloc(cap, sizeof *q->ring))) {
        free(q);
        errno = ENOMEM;
        return NULL;
    }
    q->cap = cap;
    q->run = run;
    q->ctx = ctx;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->more, NULL);
    pthread_cond_init(&q->room, NULL);
    for (; q->n_workers < workers; q->n_workers++) {
        int rc = pthread_create(&q->workers[q->n_workers], NULL, worker_main, q);
        if (rc != 0) {
            cu_queue_stop(q, 0, NULL);
            errno = rc;
            return NULL;
        }
    }
    return q;
}

/* Puts item at the tail; the caller holds mu and has checked for room. */
static void put(struct cu_queue *q, void *item)
{
    q->ring[(q->head + q->n) % q->cap] = item;
    q->n++;
    pthread_cond_signal(&q->more);
}

int cu_queue_push(struct cu_queue *q, void *item)
{
    pthread_mutex_lock(&q->mu);
    int err = q->stopping ? ESHUTDOWN : q->n == q->cap ? EAGAIN : 0;
    if (!err)
        put(q, item);
    pthread_mutex_unlock(&q->mu);
    if (err)
        errno = err;
    return err ? -1 : 0;
}

int cu_queue_push_wait(struct cu_queue *q, void *item)
{
    pthread_mutex_lock(&q->mu);
    while (q->n == q->cap && !q->stopping)
        pthread_cond_wait(&q->room, &q->mu);
    int stopping = q->stopping;
    if (!stopping)
        put(q, item);
    pthread_mutex_unlock(&q->mu);
    if (stopping)
        errno = ESHUTDOWN;
    return stopping ? -1 : 0;
}

size_t cu_queue_length(struct cu_queue *q)
{
    pthread_mutex_lock(&q->mu);
    size_t n = q->n;
    pthread_mutex_unlock(&q->mu);
    return n;
}

void cu_queue_stop(struct cu_queue *q, int drain, cu_queue_fn left)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->mu);
    q->stopping = 1;
    q->drain = drain;
    pthread_cond_broadcast(&q->more);
    pthread_cond_broadcast(&q->room);
    pthread_mutex_unlock(&q->mu);
    for (int i = 0; i < q->n_workers; i++)
        pthread_join(q->workers[i], NULL);
    /* No worker is left; with drain they emptied the ring, without it
     * what is still queued goes back to the caller through left. */
    for (; q->n; q->n--, q->head = (q->head + 1) % q->cap)
        if (left)
            left(q->ctx, q->ring[q->head]);
    destroy(q);
}
