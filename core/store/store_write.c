/* store_write.c — object writes: create, conditional update, delete, each
 * with its owner rows and, optionally, its audit event in the same
 * transaction. Both drivers commit concurrent writes together
 * (store_batch.c): on PostgreSQL the common case (no owner rows to add) is
 * one statement, sharing one round trip with concurrent writes, else a
 * short transaction of its own; on SQLite every write runs under a
 * savepoint of a transaction shared with the writes queued beside it
 * (store_group.c). */
#include <stdlib.h>
#include <string.h>

#include "store_priv.h"

static int pg(const struct cube_store *s)
{
    return s->drv->dialect == STORE_PG;
}

/* Inserts the owner rows of obj (key: kind, project, name). */
static int put_owners(struct cube_store *s, struct store_conn *c,
                      const struct store_val *key, const char *const *owners,
                      size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct store_val v[] = {key[0], key[1], key[2], SV_T(owners[i])};
        int rc = store_exec(s, c, ST_OWNER_INSERT, v, 4);
        if (rc != CUBE_OK)
            return rc;
    }
    return CUBE_OK;
}

static int valid_owners(const char *const *owners, size_t n)
{
    if (n > 0 && !owners)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!owners[i])
            return 0;
    return 1;
}

/* Adds the audit event (key: kind, project, name) inside a transaction. */
static int put_audit(struct cube_store *s, struct store_conn *c,
                     const struct store_val *key, const char *audit)
{
    if (!audit)
        return CUBE_OK;
    struct store_val v[] = {key[1], key[0], key[2], SV_T(audit)};
    int64_t id;
    return store_query_int(s, c, ST_EVENT_ADD, v, 4, &id);
}

/* After a guarded write matched no row: ENOTFOUND or ECONFLICT. */
static int missing_or_conflict(struct cube_store *s, struct store_conn *c,
                               const struct store_val *key)
{
    int64_t rv;
    int rc = store_query_int(s, c, ST_OBJ_RV, key, 3, &rv);
    return rc == CUBE_OK ? CUBE_ECONFLICT : rc;
}

/* What a write's statements need (store_write_fn's arg): the values (the
 * key first), its owner rows and its audit event (NULL: none). */
struct write_args {
    const struct store_val *v;
    const char *const *owners;
    size_t n_owners;
    const char *audit;
};

/* Runs body in a transaction: on SQLite through group commit (one writer,
 * so concurrent writes share the transaction and its commit), elsewhere
 * on a borrowed connection of its own. */
static int in_transaction(struct cube_store *s, store_write_fn body,
                          const struct write_args *a)
{
    if (!pg(s)) {
        struct store_wreq w = {.run = body, .arg = (void *)a};
        return store_batch_write(s, &w);
    }
    struct store_conn *c;
    int rc = store_write_begin(s, &c);
    if (rc != CUBE_OK)
        return rc;
    return store_write_end(s, c, body(s, c, (void *)a));
}

/* Runs a one-statement PostgreSQL write through group commit: a create
 * (no row: EEXIST) or a guarded update or delete (no row: ENOTFOUND or
 * ECONFLICT); st_alone when it runs by itself. */
static int pg_write(struct cube_store *s, int st, int st_alone,
                    const struct store_val *v, int n, int guarded)
{
    struct store_wreq w = {.st = st, .st_alone = st_alone, .v = v, .n = n,
                           .guarded = guarded};
    return store_batch_write(s, &w);
}

static int create_body(struct cube_store *s, struct store_conn *c, void *arg)
{
    const struct write_args *a = arg;
    int rc = store_exec(s, c, ST_OBJ_INSERT, a->v, 6);
    if (rc == CUBE_OK)
        rc = put_owners(s, c, a->v, a->owners, a->n_owners);
    if (rc == CUBE_OK)
        rc = put_audit(s, c, a->v, a->audit);
    return rc;
}

int cube_store_create(struct cube_store *s, const struct cube_store_obj *obj,
                      const char *const *owner_uids, size_t n_owners,
                      const char *audit)
{
    if (!s || !obj || !store_valid_key(obj->kind, obj->project, obj->name) ||
        !obj->uid || !*obj->uid || !obj->doc || obj->rv < 0 ||
        !valid_owners(owner_uids, n_owners))
        return CUBE_EINVAL;
    struct store_val v[] = {SV_T(obj->kind), SV_T(obj->project), SV_T(obj->name),
                            SV_T(obj->uid), SV_I(obj->rv), SV_T(obj->doc),
                            SV_T(audit)};
    if (n_owners == 0 && pg(s))
        return pg_write(s, audit ? ST_PG_CREATE_AUDIT : ST_PG_CREATE_PLAIN,
                        audit ? ST_PG_CREATE_ONE_AUDIT : ST_PG_CREATE_ONE_PLAIN, v,
                        audit ? 7 : 6, 0);
    struct write_args a = {v, owner_uids, n_owners, audit};
    return in_transaction(s, create_body, &a);
}

static int update_body(struct cube_store *s, struct store_conn *c, void *arg)
{
    const struct write_args *a = arg;
    int64_t rv;
    int rc = store_query_int(s, c, ST_OBJ_UPDATE, a->v, 6, &rv);
    if (rc == CUBE_ENOTFOUND)
        rc = missing_or_conflict(s, c, a->v);
    if (rc == CUBE_OK)
        rc = store_exec(s, c, ST_OWNER_DELETE, a->v, 3);
    if (rc == CUBE_OK)
        rc = put_owners(s, c, a->v, a->owners, a->n_owners);
    if (rc == CUBE_OK)
        rc = put_audit(s, c, a->v, a->audit);
    return rc;
}

int cube_store_update(struct cube_store *s, const struct cube_store_obj *obj,
                      const char *const *owner_uids, size_t n_owners,
                      int64_t expected_rv, const char *audit)
{
    if (!s || !obj || !store_valid_key(obj->kind, obj->project, obj->name) ||
        !obj->doc || obj->rv < 0 || expected_rv < 0 ||
        !valid_owners(owner_uids, n_owners))
        return CUBE_EINVAL;
    struct store_val v[] = {SV_T(obj->kind), SV_T(obj->project), SV_T(obj->name),
                            SV_I(obj->rv), SV_T(obj->doc), SV_I(expected_rv),
                            SV_T(audit)};
    if (n_owners == 0 && pg(s)) {
        int st = audit ? ST_PG_UPDATE_AUDIT : ST_PG_UPDATE_PLAIN;
        return pg_write(s, st, st, v, audit ? 7 : 6, 1);
    }
    struct write_args a = {v, owner_uids, n_owners, audit};
    return in_transaction(s, update_body, &a);
}

static int delete_body(struct cube_store *s, struct store_conn *c, void *arg)
{
    const struct write_args *a = arg;
    int64_t rv;
    int rc = store_query_int(s, c, ST_OBJ_DELETE, a->v, 4, &rv);
    if (rc == CUBE_ENOTFOUND)
        rc = missing_or_conflict(s, c, a->v);
    if (rc == CUBE_OK)
        rc = store_exec(s, c, ST_OWNER_DELETE, a->v, 3);
    if (rc == CUBE_OK)
        rc = store_exec(s, c, ST_HWM_RAISE, &a->v[4], 1);
    if (rc == CUBE_OK)
        rc = put_audit(s, c, a->v, a->audit);
    return rc;
}

int cube_store_delete(struct cube_store *s, const char *kind,
                      const char *project, const char *name,
                      int64_t expected_rv, int64_t new_rv, const char *audit)
{
    if (!s || !store_valid_key(kind, project, name) || expected_rv < 0 || new_rv < 0)
        return CUBE_EINVAL;
    struct store_val v[] = {SV_T(kind), SV_T(project), SV_T(name),
                            SV_I(expected_rv), SV_I(new_rv), SV_T(audit)};
    if (audit && pg(s))
        return pg_write(s, ST_PG_DELETE_AUDIT, ST_PG_DELETE_AUDIT, v, 6, 1);
    struct write_args a = {v, NULL, 0, audit};
    return in_transaction(s, delete_body, &a);
}

/* v: project, kind, name, doc, rv. */
static int event_rv_body(struct cube_store *s, struct store_conn *c, void *arg)
{
    const struct write_args *a = arg;
    int64_t id;
    int rc = store_query_int(s, c, ST_EVENT_ADD, a->v, 4, &id);
    if (rc == CUBE_OK)
        rc = store_exec(s, c, ST_HWM_RAISE, &a->v[4], 1);
    return rc;
}

int cube_store_event_add_rv(struct cube_store *s, const char *project, const char *kind,
                            const char *name, const char *doc, int64_t rv)
{
    if (!s || !project || !kind || !name || !doc || rv <= 0)
        return CUBE_EINVAL;
    const struct store_val v[] = {SV_T(project), SV_T(kind), SV_T(name), SV_T(doc), SV_I(rv)};
    struct write_args a = {v, NULL, 0, NULL};
    return in_transaction(s, event_rv_body, &a);
}
