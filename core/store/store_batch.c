/* store_batch.c — group commit of writes: single statements on
 * PostgreSQL (below), whole writes in one transaction on SQLite
 * (store_group.c).
 *
 * A writer queues its statement and waits. Whoever finds the queue
 * non-empty while fewer than max_inflight batches run becomes a leader: it
 * takes up to BATCH_MAX queued writes (its own among them when the queue is
 * short), borrows a connection and runs them, then hands every waiter its
 * outcome. Under low load each write is its own batch of one, run as one
 * statement (its st_alone); under load, concurrent writes share one round
 * trip and one transaction: BEGIN, the writes, COMMIT, pipelined, with the
 * batch's creates in one statement (see "many creates" below).
 *
 * Every statement but the many creates' returns a row when it applied and
 * none when it did not (a create's ON CONFLICT DO NOTHING: CUBE_EEXIST; a
 * guarded update or delete: CUBE_ENOTFOUND or CUBE_ECONFLICT, told apart
 * after the commit), so writes of a batch do not abort each other. When one
 * still fails (a name or uid taken, a deadlock) the batch rolls back as a
 * whole and each write is run alone, so each gets its own outcome. When
 * the connection is lost the outcome is unknown: every write of the batch
 * answers CUBE_EUNAVAIL, and none is retried, so none is applied twice.
 * Callers serialise writes to one object, so a batch holds at most one
 * write per object and the order of writes to an object is the order of
 * the calls. */
#include <linux/futex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "store_priv.h"

#define BATCH_MAX 32

void store_batch_init(struct store_batcher *b, unsigned max_inflight)
{
    pthread_mutex_init(&b->mu, NULL);
    b->head = b->tail = NULL;
    b->inflight = 0;
    b->max_inflight = max_inflight ? max_inflight : 1;
}

void store_batch_fini(struct store_batcher *b)
{
    pthread_mutex_destroy(&b->mu);
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
    w->rc = store_query_int(s, c, w->st_alone, w->v, w->n, &out);
    if (w->rc == CUBE_ENOTFOUND)
        w->rc = no_row(s, c, w);
}

/* ---- many creates, one statement ----------------------------------
 *
 * ST_PG_CREATE_MANY takes each column of a batch's creates as an array, in
 * PostgreSQL's binary array format (no quoting or escaping), and answers
 * the rvs of the objects it inserted: one statement instead of one per
 * create spares the server most of the per-statement work. A taken name
 * fails it, and the batch is then run write by write, where that create
 * answers CUBE_EEXIST: no ON CONFLICT, whose speculative insertion costs
 * every row of every batch an index probe and a WAL record more, to spare
 * the rare batch with a taken name a second try. So that an rv names one
 * create, a create whose rv another create of the batch has too runs on
 * its own statement. */

#define OID_INT8 20
#define OID_TEXT 25
#define N_COLS 7        /* kind, project, name, uid, rv, doc, audit */
#define ARRAY_HEAD 20   /* ndim, flags, element type, size, lower bound */

static int is_create(const struct store_wreq *w)
{
    return w->st == ST_PG_CREATE_AUDIT || w->st == ST_PG_CREATE_PLAIN;
}

static unsigned char *put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
    return p + 4;
}

/* Value `col` of a create (the audit is NULL for a plain one). */
static const struct store_val *col_of(const struct store_wreq *w, int col)
{
    static const struct store_val none = {.type = SV_NULL};
    return col < w->n ? &w->v[col] : &none;
}

/* Moves the creates that can share the statement to the front of w
 * (keeping the order of both parts); how many. */
static int gather(struct store_wreq **w, int n)
{
    struct store_wreq *rest[BATCH_MAX];
    int m = 0, r = 0;
    for (int i = 0; i < n; i++) {
        int ok = is_create(w[i]);
        for (int j = 0; ok && j < m; j++)
            ok = w[j]->v[4].i != w[i]->v[4].i;
        if (ok)
            w[m++] = w[i];
        else
            rest[r++] = w[i];
    }
    memcpy(w + m, rest, (size_t)r * sizeof *rest);
    return m;
}

/* The bytes of column col as an array over w[0..m). */
static size_t array_size(struct store_wreq **w, int m, int col)
{
    size_t size = ARRAY_HEAD;
    for (int i = 0; i < m; i++) {
        const struct store_val *v = col_of(w[i], col);
        size += 4 + (v->type == SV_INT ? 8 : v->type == SV_TEXT && v->s ? strlen(v->s) : 0);
    }
    return size;
}

/* Writes column col over w[0..m) as a binary array at p; the end. */
static unsigned char *put_array(unsigned char *p, struct store_wreq **w, int m, int col)
{
    int nulls = 0;
    for (int i = 0; i < m; i++)
        nulls |= col_of(w[i], col)->type == SV_NULL || !col_of(w[i], col)->s;
    int ints = col_of(w[0], col)->type == SV_INT;
    p = put32(p, 1);
    p = put32(p, ints ? 0 : (uint32_t)nulls);
    p = put32(p, ints ? OID_INT8 : OID_TEXT);
    p = put32(p, (uint32_t)m);
    p = put32(p, 1);
    for (int i = 0; i < m; i++) {
        const struct store_val *v = col_of(w[i], col);
        if (ints) {
            p = put32(put32(put32(p, 8), (uint32_t)((uint64_t)v->i >> 32)), (uint32_t)v->i);
        } else if (v->type != SV_TEXT || !v->s) {
            p = put32(p, UINT32_MAX); /* -1: NULL */
        } else {
            size_t len = strlen(v->s);
            p = put32(p, (uint32_t)len);
            memcpy(p, v->s, len);
            p += len;
        }
    }
    return p;
}

/* Moves the creates that can share one ST_PG_CREATE_MANY statement to the
 * front of w and returns how many (0 when fewer than two), with *it set up
 * (its values in *buf, for the caller to free after the pipeline ran). */
static int many_prepare(struct store_wreq **w, int n, struct store_pipe_item *it,
                        void **buf)
{
    *buf = NULL;
    int m = gather(w, n);
    if (m < 2)
        return 0;
    size_t sizes[N_COLS], total = 0;
    for (int col = 0; col < N_COLS; col++)
        total += sizes[col] = array_size(w, m, col);
    size_t head = (size_t)m * sizeof(int64_t) + N_COLS * sizeof(struct store_val);
    unsigned char *b = malloc(head + total);
    if (!b)
        return 0; /* each create runs on its own statement */
    int64_t *vals = (int64_t *)b;
    struct store_val *v = (struct store_val *)(b + (size_t)m * sizeof(int64_t));
    unsigned char *p = b + head;
    for (int col = 0; col < N_COLS; col++) {
        v[col] = SV_B((const char *)p, sizes[col]);
        p = put_array(p, w, m, col);
    }
    *it = (struct store_pipe_item){.st = ST_PG_CREATE_MANY, .v = v, .n = N_COLS,
                                   .vals = vals, .max_vals = m};
    *buf = b;
    return m;
}

/* Each create of the statement: CUBE_OK when its rv came back. */
static void many_done(struct store_wreq **w, int m, const struct store_pipe_item *it)
{
    int rows = it->rows < m ? it->rows : m;
    for (int i = 0; i < m; i++) {
        w[i]->rc = CUBE_EEXIST;
        for (int r = 0; r < rows; r++)
            if (it->vals[r] == w[i]->v[4].i)
                w[i]->rc = CUBE_OK;
    }
}

/* Fills it[] with the statements of w[0..n): the creates that can share
 * one statement first (m of them, in it[0]), then one per other write, in
 * a transaction unless there is only one statement. Returns how many. */
static int batch_items(struct store_wreq **w, int n, int *m,
                       struct store_pipe_item *it, void **buf)
{
    int k = 0;
    it[k++] = (struct store_pipe_item){.st = ST_BEGIN};
    *m = many_prepare(w, n, &it[k], buf);
    if (*m > 0)
        k++;
    for (int i = *m; i < n; i++)
        it[k++] = (struct store_pipe_item){.st = w[i]->st, .v = w[i]->v, .n = w[i]->n};
    it[k++] = (struct store_pipe_item){.st = ST_COMMIT};
    if (k > 3)
        return k;
    it[0] = it[1]; /* a single statement is a transaction by itself */
    return 1;
}

/* Runs w[0..n) in one pipelined transaction; on a failure other than a
 * lost connection, runs each alone instead. */
static void run_piped(struct cube_store *s, struct store_conn *c,
                      struct store_wreq **w, int n)
{
    struct store_pipe_item it[BATCH_MAX + 2];
    void *buf = NULL;
    int m, k = batch_items(w, n, &m, it, &buf);
    int first = k > 1; /* it[first] is the first write's statement */
    int rc = s->drv->pipeline(c, s->sql, it, k);
    for (int i = 0; rc == CUBE_OK && i < k; i++)
        rc = it[i].rc;
    if (c->broken) {
        for (int i = 0; i < n; i++)
            w[i]->rc = CUBE_EUNAVAIL;
    } else if (rc != CUBE_OK) {
        /* Rolled back (or never sent): nothing of it was applied. */
        for (int i = 0; i < n; i++)
            run_alone(s, c, w[i]);
    } else {
        if (m > 0)
            many_done(w, m, &it[first]);
        for (int i = m; i < n; i++) {
            const struct store_pipe_item *x = &it[first + (m > 0) + (i - m)];
            w[i]->rc = x->rows > 0 ? CUBE_OK : no_row(s, c, w[i]);
        }
    }
    free(buf);
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
    if (w[0]->run) {
        store_group_run(s, c, w, n);
    } else if (n == 1 || !s->drv->pipeline) {
        for (int i = 0; i < n; i++)
            run_alone(s, c, w[i]);
    } else {
        run_piped(s, c, w, n);
    }
    store_conn_put(s, 1, c);
}

/* ---- waking writers -------------------------------------------------
 *
 * Each writer sleeps on its own word (w->turn, a futex) rather than on a
 * condition variable of b->mu: a writer woken with its outcome returns
 * without taking any lock, so a wake-up costs one switch, not a second one
 * on the contended mutex. A writer may return, and its memory be reused, as
 * soon as it reads a final state; the FUTEX_WAKE that follows only names
 * the address and writes nothing there.
 *
 * When a batch ends and writes are queued, the next batch is led by one of
 * the writers just finished (WREQ_DONE_LEAD): it is being woken anyway, so
 * no queued writer needs a wake-up of its own to lead. It answers after
 * that one batch, so no writer leads more than one batch past its own. */

enum { WREQ_WAIT, WREQ_LEAD, WREQ_DONE, WREQ_DONE_LEAD };

static void wake(atomic_int *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Tells w (still queued: call with b->mu held) that it may lead. */
static void offer_lead(struct store_wreq *w)
{
    int expected = WREQ_WAIT;
    if (atomic_compare_exchange_strong(&w->turn, &expected, WREQ_LEAD))
        wake(&w->turn);
}

/* Hands w its outcome (w->rc already set) and, with `then`, a batch to
 * lead first; w may be gone once this returns. */
static void finish(struct store_wreq *w, int then)
{
    atomic_store(&w->turn, then ? WREQ_DONE_LEAD : WREQ_DONE);
    wake(&w->turn);
}

/* Sleeps until w's turn changes from WREQ_WAIT; the new turn (a WREQ_LEAD
 * is taken back to WREQ_WAIT). */
static int wait_turn(struct store_wreq *w)
{
    for (;;) {
        int t = atomic_load(&w->turn);
        if (t == WREQ_LEAD && !atomic_compare_exchange_strong(&w->turn, &t, WREQ_WAIT))
            continue; /* finished meanwhile */
        if (t != WREQ_WAIT)
            return t;
        syscall(SYS_futex, &w->turn, FUTEX_WAIT_PRIVATE, WREQ_WAIT, NULL, NULL, 0);
    }
}

/* Takes a batch off b's queue and runs it; called with b->mu held, returns
 * with it released. Offers the lead to the first writer still queued when
 * another batch may start. Wakes every writer of the batch (self, the
 * caller's own write, is only marked), the last one woken to lead the
 * next batch when writes are queued (the later it starts, the more writes
 * it finds); returns 1 when that falls to self (its write was the batch's
 * only one), else 0. */
static int lead(struct cube_store *s, struct store_batcher *b,
                struct store_wreq *self)
{
    struct store_wreq *w[BATCH_MAX];
    int n = 0;
    while (b->head && n < BATCH_MAX) {
        w[n++] = b->head;
        b->head = b->head->next;
    }
    if (!b->head)
        b->tail = NULL;
    else if (b->inflight + 1 < b->max_inflight)
        offer_lead(b->head); /* room for another batch */
    b->inflight++;
    pthread_mutex_unlock(&b->mu);
    run_batch(s, w, n);
    pthread_mutex_lock(&b->mu);
    b->inflight--;
    int queued = b->head != NULL, self_next = 0, next = -1;
    pthread_mutex_unlock(&b->mu);
    for (int i = 0; i < n && queued; i++)
        if (w[i] != self)
            next = i;
    for (int i = 0; i < n; i++) {
        if (w[i] == self) {
            atomic_store(&self->turn, WREQ_DONE);
            self_next = queued && n == 1;
        } else {
            finish(w[i], i == next);
        }
    }
    return self_next;
}

/* Leads one batch when one may start (called with b->mu held, returns
 * with it released), for a writer already done; it may hand the lead on. */
static void lead_once(struct cube_store *s, struct store_batcher *b)
{
    if (b->head && b->inflight < b->max_inflight)
        (void)lead(s, b, NULL); /* 0: no self */
    else
        pthread_mutex_unlock(&b->mu);
}

int store_batch_write(struct cube_store *s, struct store_wreq *w)
{
    struct store_batcher *b = &s->pools[s->drv->separate_writer ? 0 : 1].batch;
    atomic_init(&w->turn, WREQ_WAIT);
    w->next = NULL;
    pthread_mutex_lock(&b->mu);
    if (b->tail)
        b->tail->next = w;
    else
        b->head = w;
    b->tail = w;
    for (;;) {
        int t = WREQ_WAIT;
        if (b->head && b->inflight < b->max_inflight)
            t = lead(s, b, w) ? WREQ_DONE_LEAD : WREQ_WAIT;
        else
            pthread_mutex_unlock(&b->mu);
        if (t == WREQ_WAIT)
            t = wait_turn(w);
        if (t == WREQ_DONE)
            return w->rc;
        pthread_mutex_lock(&b->mu);
        if (t == WREQ_DONE_LEAD) { /* done: lead one batch, then answer */
            lead_once(s, b);
            return w->rc;
        }
    }
}
