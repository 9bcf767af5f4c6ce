/* store_group.c — group commit on the embedded store (SQLite).
 *
 * SQLite has one writer at a time, and most of a small write's cost is its
 * commit: the pages it touched appended to the WAL, the WAL index updated.
 * Writes that queue while another commits (store_batch.c) therefore run
 * together: one BEGIN IMMEDIATE, each write's statements under a savepoint,
 * one COMMIT. Pages that several writes touch (the table's last leaf, the
 * index pages, the events table) reach the WAL once per batch instead of
 * once per write.
 *
 * A write that fails (a taken name, a stale resourceVersion) is rolled back
 * to its savepoint, so it leaves nothing behind and the other writes of the
 * batch stand: each gets the outcome it would have had alone. When the
 * transaction itself fails (an I/O error, the savepoint no longer there
 * because SQLite rolled the transaction back, the COMMIT refused), none of
 * its writes is applied and every one of them answers the error. */
#include "store_priv.h"

/* The error a failed transaction gives its writes: a transient one of the
 * write that broke it (busy, out of memory) stays transient. */
static int batch_error(int rc)
{
    return rc == CUBE_EUNAVAIL || rc == CUBE_ENOMEM ? rc : CUBE_EIO;
}

/* Runs w under a savepoint of the open transaction: CUBE_OK, or the error
 * of the transaction, which can then no longer be trusted. */
static int run_one(struct cube_store *s, struct store_conn *c, struct store_wreq *w)
{
    int rc = store_exec(s, c, ST_SAVEPOINT, NULL, 0);
    if (rc != CUBE_OK)
        return w->rc = batch_error(rc);
    w->rc = w->run(s, c, w->arg);
    if (w->rc != CUBE_OK && (rc = store_exec(s, c, ST_ROLLBACK_TO, NULL, 0)) != CUBE_OK)
        return batch_error(w->rc);
    rc = store_exec(s, c, ST_RELEASE, NULL, 0);
    return rc == CUBE_OK ? CUBE_OK : batch_error(w->rc != CUBE_OK ? w->rc : rc);
}

/* The batch's transaction failed with rc: no write of w[0..n) stands. */
static void fail_all(struct store_wreq **w, int n, int rc)
{
    for (int i = 0; i < n; i++)
        if (w[i]->rc == CUBE_OK)
            w[i]->rc = rc;
}

void store_group_run(struct cube_store *s, struct store_conn *c,
                     struct store_wreq **w, int n)
{
    /* A write alone needs no savepoint: its failure is the transaction's. */
    int rc = store_exec(s, c, ST_BEGIN, NULL, 0), began = rc == CUBE_OK;
    int ran = 0;
    while (ran < n && rc == CUBE_OK) {
        struct store_wreq *x = w[ran++];
        rc = n > 1 ? run_one(s, c, x) : (x->rc = x->run(s, c, x->arg));
    }
    if (rc == CUBE_OK)
        rc = store_exec(s, c, ST_COMMIT, NULL, 0);
    if (rc != CUBE_OK) {
        if (began)
            store_exec(s, c, ST_ROLLBACK, NULL, 0);
        fail_all(w, ran, rc);
        for (int i = ran; i < n; i++)
            w[i]->rc = rc; /* not run: the transaction had failed */
    }
}
