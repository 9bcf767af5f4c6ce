/* store_batch.c — group commit of single-statement writes (PostgreSQL).
 *
 * A writer queues its statement and waits. Whoever finds the queue
 * non-empty while fewer than max_inflight batches run becomes a leader: it
 * takes up to BATCH_MAX queued writes (its own among them when the queue is
 * short), borrows a connection and runs them, then hands every waiter its
 * outcome. Under low load each write is its own batch of one, run as one
 * statement as before; under load, concurrent writes share one round trip
 * and one transaction: BEGIN, the writes, COMMIT, pipelined.
 *
 * Every statement returns a row when it applied and none when it did not
 * (a create's ON CONFLICT DO NOTHING: CUBE_EEXIST; a guarded update or
 * delete: CUBE_ENOTFOUND or CUBE_ECONFLICT, told apart after the commit),
 * so writes of a batch do not abort each other. When one still fails (a
 * uid taken, a deadlock) the batch rolls back as a whole and each write is
 * run alone, so each gets its own outcome. When the connection is lost the
 * outcome is unknown: every write of the batch answers CUBE_EUNAVAIL, and
 * none is retried, so none is applied twice. Callers serialise writes to
 * one object, so a batch holds at most one write per object and the order
 * of writes to an object is the order of the calls. */
#include <stdlib.h>

#include "store_priv.h"

#define BATCH_MAX 32

void store_batch_init(struct store_batcher *b, unsigned max_inflight)
{
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->cv, NULL);
    b->head = b->tail = NULL;
    b->inflight = 0;
    b->max_inflight = max_inflight ? max_inflight : 1;
}

void store_batch_fini(struct store_batcher *b)
{
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->cv);
}

/* The outcome of w when its statement returned no row. */
static int no_row(struct cube_store *s, struct store_conn *c,
                  const struct store_wreq *w)
{
    if (!w->guarded)
        return CUBE_EEXIST;
    int64_t rv;
    int rc = store_query_int(s, c, ST_OBJ_RV, w->v, 3, &rv);
    return rc == CUBE_OK ? CUBE_ECONFLICT : rc;
}

/* Runs w by itself (its own implicit transaction). */
static void run_alone(struct cube_store *s, struct store_conn *c,
                      struct store_wreq *w)
{
    int64_t out;
    if (c->broken) {
        w->rc = CUBE_EUNAVAIL;
        return;
    }
    w->rc = store_query_int(s, c, w->st, w->v, w->n, &out);
    if (w->rc == CUBE_ENOTFOUND)
        w->rc = no_row(s, c, w);
}

/* Runs w[0..n) in one pipelined transaction; on a failure other than a
 * lost connection, runs each alone instead. */
static void run_piped(struct cube_store *s, struct store_conn *c,
                      struct store_wreq **w, int n)
{
    struct store_pipe_item it[BATCH_MAX + 2] = {{.st = ST_BEGIN}};
    for (int i = 0; i < n; i++)
        it[i + 1] = (struct store_pipe_item){.st = w[i]->st, .v = w[i]->v,
                                             .n = w[i]->n};
    it[n + 1] = (struct store_pipe_item){.st = ST_COMMIT};
    int rc = s->drv->pipeline(c, s->sql, it, n + 2);
    for (int i = 0; rc == CUBE_OK && i < n + 2; i++)
        rc = it[i].rc;
    if (c->broken) {
        for (int i = 0; i < n; i++)
            w[i]->rc = CUBE_EUNAVAIL;
    } else if (rc != CUBE_OK) {
        /* Rolled back (or never sent): nothing of it was applied. */
        for (int i = 0; i < n; i++)
            run_alone(s, c, w[i]);
    } else {
        for (int i = 0; i < n; i++)
            w[i]->rc = it[i + 1].rows > 0 ? CUBE_OK : no_row(s, c, w[i]);
    }
}

static void run_batch(struct cube_store *s, struct store_wreq **w, int n)
{
    struct store_conn *c;
    int rc = store_conn_get(s, 1, &c, NULL, 0);
    if (rc != CUBE_OK) {
        for (int i = 0; i < n; i++)
            w[i]->rc = rc;
        return;
    }
    if (n == 1 || !s->drv->pipeline) {
        for (int i = 0; i < n; i++)
            run_alone(s, c, w[i]);
    } else {
        run_piped(s, c, w, n);
    }
    store_conn_put(s, 1, c);
}

/* Takes a batch off b's queue and runs it; called and returns with b->mu
 * held, releasing it meanwhile. */
static void lead(struct cube_store *s, struct store_batcher *b)
{
    struct store_wreq *w[BATCH_MAX];
    int n = 0;
    while (b->head && n < BATCH_MAX) {
        w[n++] = b->head;
        b->head = b->head->next;
    }
    if (!b->head)
        b->tail = NULL;
    b->inflight++;
    pthread_mutex_unlock(&b->mu);
    run_batch(s, w, n);
    pthread_mutex_lock(&b->mu);
    b->inflight--;
    for (int i = 0; i < n; i++)
        w[i]->done = 1;
    pthread_cond_broadcast(&b->cv);
}

int store_batch_write(struct cube_store *s, struct store_wreq *w)
{
    struct store_batcher *b = &s->pools[1].batch;
    w->done = 0;
    w->next = NULL;
    pthread_mutex_lock(&b->mu);
    if (b->tail)
        b->tail->next = w;
    else
        b->head = w;
    b->tail = w;
    while (!w->done) {
        if (b->head && b->inflight < b->max_inflight)
            lead(s, b);
        else
            pthread_cond_wait(&b->cv, &b->mu);
    }
    pthread_mutex_unlock(&b->mu);
    return w->rc;
}
