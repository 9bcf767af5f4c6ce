/* store_points.c — Job metrics (see store.h): the job_metrics table of
 * migration 3. A batch is one transaction (SQLite: a write of the
 * objects' group commit, under its own savepoint; PostgreSQL: a
 * transaction on a pooled connection) that counts the Job's points,
 * refuses the batch when it would pass the bound, and inserts each point
 * with the next sequence number. Reads copy the rows out and give the
 * connection back before any callback runs, as store_kv.c does. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_priv.h"

/* One batch (the write's argument). */
struct points_write {
    const char *job_uid;
    const struct cube_store_point *p;
    size_t n;
    int64_t max_total, total;
};

static int add_body(struct cube_store *s, struct store_conn *c, void *arg)
{
    struct points_write *w = arg;
    struct store_val key = SV_T(w->job_uid);
    int64_t count = 0, seq = 0;
    int rc = s->drv->query(c, ST_PT_COUNT, s->sql[ST_PT_COUNT], &key, 1);
    if (rc != CUBE_OK)
        return rc;
    if ((rc = s->drv->next(c)) == 1) {
        count = s->drv->col_int(c, 0);
        seq = s->drv->col_int(c, 1);
        while ((rc = s->drv->next(c)) == 1)
            ;
    }
    s->drv->done(c);
    if (rc < 0)
        return rc;
    if (count + (int64_t)w->n > w->max_total)
        return CUBE_ETOOBIG;
    for (size_t i = 0; i < w->n; i++) {
        char value[40];
        snprintf(value, sizeof value, "%.17g", w->p[i].value);
        struct store_val v[] = {SV_T(w->job_uid), SV_I(seq + 1 + (int64_t)i),
                                SV_T(w->p[i].name), SV_I(w->p[i].step), SV_T(value),
                                SV_I(w->p[i].ts_ms)};
        if ((rc = store_exec(s, c, ST_PT_INSERT, v, 6)) != CUBE_OK)
            return rc;
    }
    w->total = count + (int64_t)w->n;
    return CUBE_OK;
}

/* Runs body in a write transaction (see the header comment). */
static int in_write(struct cube_store *s, store_write_fn body, void *arg)
{
    if (s->drv->dialect != STORE_PG) {
        struct store_wreq w = {.run = body, .arg = arg};
        return store_batch_write(s, &w);
    }
    struct store_conn *c;
    int rc = store_write_begin(s, &c);
    return rc != CUBE_OK ? rc : store_write_end(s, c, body(s, c, arg));
}

int cube_store_points_add(struct cube_store *s, const char *job_uid,
                          const struct cube_store_point *p, size_t n,
                          int64_t max_total, int64_t *total)
{
    if (!s || !job_uid || !*job_uid || (n && !p))
        return CUBE_EINVAL;
    struct points_write w = {job_uid, p, n, max_total, 0};
    int rc = in_write(s, add_body, &w);
    if (rc == CUBE_OK && total)
        *total = w.total;
    return rc;
}

/* Copied rows of a list. */
struct point_rows {
    struct cube_store_point *v;
    char **names;
    size_t n, cap;
};

static void rows_free(struct point_rows *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->names[i]);
    free(r->names);
    free(r->v);
    memset(r, 0, sizeof *r);
}

static int row_add(const struct store_driver *d, struct store_conn *c, struct point_rows *r)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        struct cube_store_point *v = realloc(r->v, cap * sizeof *v);
        if (v)
            r->v = v;
        char **names = v ? realloc(r->names, cap * sizeof *names) : NULL;
        if (!names)
            return CUBE_ENOMEM;
        r->names = names;
        r->cap = cap;
    }
    char *name = strdup(d->col_text(c, 0));
    if (!name)
        return CUBE_ENOMEM;
    r->names[r->n] = name;
    r->v[r->n] = (struct cube_store_point){name, d->col_int(c, 1),
                                           strtod(d->col_text(c, 2), NULL), d->col_int(c, 3)};
    r->n++;
    return CUBE_OK;
}

int cube_store_points_list(struct cube_store *s, const char *job_uid, const char *name,
                           int64_t since_step, cube_point_fn fn, void *cls)
{
    if (!s || !job_uid || !fn)
        return CUBE_EINVAL;
    struct store_val v[] = {SV_T(job_uid), SV_I(since_step), SV_T(name)};
    int st = name ? ST_PT_LIST_NAME : ST_PT_LIST;
    struct point_rows r = {0};
    struct store_conn *c;
    int rc = store_conn_get(s, 0, &c, NULL, 0);
    if (rc != CUBE_OK)
        return rc;
    rc = s->drv->query(c, st, s->sql[st], v, name ? 3 : 2);
    if (rc == CUBE_OK) {
        while ((rc = s->drv->next(c)) == 1)
            if ((rc = row_add(s->drv, c, &r)) != CUBE_OK)
                break;
        s->drv->done(c);
    }
    store_conn_put(s, 0, c);
    for (size_t i = 0; rc == CUBE_OK && i < r.n; i++)
        if (fn(cls, &r.v[i]))
            break;
    rows_free(&r);
    return rc;
}

/* A one-statement delete in a write transaction; its argument is st and
 * the job uid (NULL: none). */
struct points_delete {
    int st;
    const char *job_uid;
};

static int delete_body(struct cube_store *s, struct store_conn *c, void *arg)
{
    const struct points_delete *d = arg;
    struct store_val v = SV_T(d->job_uid);
    return store_exec(s, c, d->st, d->job_uid ? &v : NULL, d->job_uid ? 1 : 0);
}

int cube_store_points_delete(struct cube_store *s, const char *job_uid)
{
    if (!s || !job_uid || !*job_uid)
        return CUBE_EINVAL;
    struct points_delete d = {ST_PT_DELETE, job_uid};
    return in_write(s, delete_body, &d);
}

int cube_store_points_purge(struct cube_store *s)
{
    if (!s)
        return CUBE_EINVAL;
    struct points_delete d = {ST_PT_ORPHANS, NULL};
    return in_write(s, delete_body, &d);
}
