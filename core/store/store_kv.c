/* store_kv.c — the secrets table (see store.h): namespaced key-value
 * records with an owner and an expiry, kept apart from the objects.
 *
 * Every call is one statement: writes on the writer connection (SQLite:
 * the dedicated one, in the objects' group commit; PostgreSQL: any pooled
 * one, its own implicit transaction), reads on a reader. As in store.c,
 * rows are copied out and the connection is back in its pool before any
 * callback runs. A record whose
 * expiry has passed reads as absent everywhere (get, list, delete, add)
 * until cube_store_kv_purge removes it; "now" is time(NULL). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store_priv.h"

#define KV_NAME_MAX 256         /* ns, key, owner: bytes */
#define KV_DOC_MAX (64 * 1024)  /* doc: bytes */

/* A copied row: (ns, key, owner, doc, expires). */
struct kv_row {
    char *ns, *key, *owner, *doc;
    int64_t expires;
};

struct kv_rows {
    struct kv_row *v;
    size_t n, cap;
};

/* ---- arguments --------------------------------------------------------- */

static int valid_name(const char *s)
{
    size_t n = s ? strnlen(s, KV_NAME_MAX + 1) : 0;
    return n > 0 && n <= KV_NAME_MAX;
}

static int valid_record(const char *ns, const char *key, const char *owner,
                        const char *doc, int64_t expires)
{
    return valid_name(ns) && valid_name(key) && valid_name(owner) && doc &&
           strnlen(doc, KV_DOC_MAX + 1) <= KV_DOC_MAX && expires >= 0;
}

static int64_t kv_now(void)
{
    return (int64_t)time(NULL);
}

/* ---- running statements ------------------------------------------------ */

/* One kv write's statement and what it sums (kv_write). */
struct kv_op {
    int st;
    const struct store_val *v;
    int n;
    int64_t total;
};

/* Runs op's statement on c, summing column 0 of its rows into op->total
 * (a store_write_fn: on SQLite inside a group-commit transaction). */
static int kv_run(struct cube_store *s, struct store_conn *c, void *arg)
{
    struct kv_op *op = arg;
    op->total = 0;
    int rc = s->drv->query(c, op->st, s->sql[op->st], op->v, op->n);
    if (rc == CUBE_OK) {
        while ((rc = s->drv->next(c)) == 1)
            op->total += s->drv->col_int(c, 0);
        s->drv->done(c);
    }
    return rc;
}

/* Runs write st; *sum (may be NULL) gets column 0 summed over the rows it
 * returns (0 when none). On SQLite it joins the objects' group commit (the
 * one writer connection: a job's token shares the commit of the status
 * writes around it instead of taking a commit of its own); on PostgreSQL
 * it is one statement on a pooled connection. */
static int kv_write(struct cube_store *s, int st, const struct store_val *v,
                    int n, int64_t *sum)
{
    struct kv_op op = {.st = st, .v = v, .n = n};
    int rc;
    if (s->drv->dialect != STORE_PG) {
        struct store_wreq w = {.run = kv_run, .arg = &op};
        rc = store_batch_write(s, &w);
    } else {
        struct store_conn *c;
        rc = store_conn_get(s, 1, &c, NULL, 0);
        if (rc != CUBE_OK)
            return rc;
        rc = kv_run(s, c, &op);
        store_conn_put(s, 1, c);
    }
    if (rc == CUBE_OK && sum)
        *sum = op.total;
    return rc;
}

static void kv_rows_free(struct kv_rows *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].ns);
        free(r->v[i].key);
        free(r->v[i].owner);
        free(r->v[i].doc);
    }
    free(r->v);
    memset(r, 0, sizeof *r);
}

/* Copies the current row onto the end of r. */
static int kv_row_add(const struct store_driver *d, struct store_conn *c,
                      struct kv_rows *r)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        struct kv_row *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return CUBE_ENOMEM;
        r->v = v;
        r->cap = cap;
    }
    struct kv_row *row = &r->v[r->n++];
    row->ns = strdup(d->col_text(c, 0));
    row->key = strdup(d->col_text(c, 1));
    row->owner = strdup(d->col_text(c, 2));
    row->doc = strdup(d->col_text(c, 3));
    row->expires = d->col_int(c, 4);
    if (!row->ns || !row->key || !row->owner || !row->doc)
        return CUBE_ENOMEM;
    return CUBE_OK;
}

/* Runs read st on a reader connection and copies all its rows into out
 * (emptied on failure). */
static int kv_fetch(struct cube_store *s, int st, const struct store_val *v,
                    int n, struct kv_rows *out)
{
    struct store_conn *c;
    int rc = store_conn_get(s, 0, &c, NULL, 0);
    if (rc != CUBE_OK)
        return rc;
    rc = s->drv->query(c, st, s->sql[st], v, n);
    if (rc == CUBE_OK) {
        while ((rc = s->drv->next(c)) == 1)
            if ((rc = kv_row_add(s->drv, c, out)) != CUBE_OK)
                break;
        s->drv->done(c);
    }
    store_conn_put(s, 0, c);
    if (rc != CUBE_OK)
        kv_rows_free(out);
    return rc;
}

/* Moves *from into *to (when to is wanted), leaving NULL behind. */
static void take(char **from, char **to)
{
    if (to) {
        *to = *from;
        *from = NULL;
    }
}

/* ---- the calls --------------------------------------------------------- */

int cube_store_kv_put(struct cube_store *s, const char *ns, const char *key,
                      const char *owner, const char *doc, int64_t expires)
{
    if (!s || !valid_record(ns, key, owner, doc, expires))
        return CUBE_EINVAL;
    struct store_val v[] = {SV_T(ns), SV_T(key), SV_T(owner), SV_T(doc),
                            SV_I(expires)};
    return kv_write(s, ST_KV_PUT, v, 5, NULL);
}

int cube_store_kv_add(struct cube_store *s, const char *ns, const char *key,
                      const char *owner, const char *doc, int64_t expires)
{
    if (!s || !valid_record(ns, key, owner, doc, expires))
        return CUBE_EINVAL;
    struct store_val v[] = {SV_T(ns), SV_T(key), SV_T(owner), SV_T(doc),
                            SV_I(expires), SV_I(kv_now())};
    int64_t applied = 0;
    int rc = kv_write(s, ST_KV_ADD, v, 6, &applied);
    return rc == CUBE_OK && applied == 0 ? CUBE_EEXIST : rc;
}

int cube_store_kv_get(struct cube_store *s, const char *ns, const char *key,
                      char **doc, char **owner, int64_t *expires)
{
    if (doc)
        *doc = NULL;
    if (owner)
        *owner = NULL;
    if (!s || !valid_name(ns) || !valid_name(key))
        return CUBE_EINVAL;
    struct store_val v[] = {SV_T(ns), SV_T(key), SV_I(kv_now())};
    struct kv_rows r = {0};
    int rc = kv_fetch(s, ST_KV_GET, v, 3, &r);
    if (rc == CUBE_OK && r.n == 0)
        rc = CUBE_ENOTFOUND;
    if (rc == CUBE_OK) {
        take(&r.v[0].doc, doc);
        take(&r.v[0].owner, owner);
        if (expires)
            *expires = r.v[0].expires;
    }
    kv_rows_free(&r);
    return rc;
}

int cube_store_kv_delete(struct cube_store *s, const char *ns, const char *key)
{
    if (!s || !valid_name(ns) || !valid_name(key))
        return CUBE_EINVAL;
    struct store_val v[] = {SV_T(ns), SV_T(key), SV_I(kv_now())};
    int64_t live = 0;
    int rc = kv_write(s, ST_KV_DELETE, v, 3, &live);
    return rc == CUBE_OK && live == 0 ? CUBE_ENOTFOUND : rc;
}

int cube_store_kv_list(struct cube_store *s, const char *ns, const char *owner,
                       cube_kv_fn fn, void *cls)
{
    if (!s || !valid_name(ns) || (owner && !valid_name(owner)) || !fn)
        return CUBE_EINVAL;
    struct store_val v[] = {SV_T(ns), SV_T(owner), SV_I(kv_now())};
    if (!owner)
        v[1] = v[2];
    struct kv_rows r = {0};
    int rc = kv_fetch(s, owner ? ST_KV_LIST_OWNER : ST_KV_LIST, v,
                      owner ? 3 : 2, &r);
    for (size_t i = 0; rc == CUBE_OK && i < r.n; i++) {
        const struct kv_row *row = &r.v[i];
        struct cube_kv kv = {row->ns, row->key, row->owner, row->doc,
                             row->expires};
        if (fn(cls, &kv))
            break;
    }
    kv_rows_free(&r);
    return rc;
}

int cube_store_kv_delete_owner(struct cube_store *s, const char *ns,
                               const char *owner, int64_t *n)
{
    if (!s || !valid_name(ns) || !valid_name(owner))
        return CUBE_EINVAL;
    struct store_val v[] = {SV_T(ns), SV_T(owner)};
    return kv_write(s, ST_KV_DELETE_OWNER, v, 2, n);
}

int cube_store_kv_purge(struct cube_store *s, int64_t now, int64_t *n)
{
    if (!s || now < 0)
        return CUBE_EINVAL;
    struct store_val v = SV_I(now);
    return kv_write(s, ST_KV_PURGE, &v, 1, n);
}
