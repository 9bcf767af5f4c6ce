/* store_sql.c — the store's statements: their SQL text (one text for both
 * drivers except where pg_sql or store_mig_sql says otherwise; placeholders
 * ?N, which the PostgreSQL driver rewrites as $N) and the helpers that run
 * one, or a write transaction. Only constant SQL fragments are ever
 * joined: values are always bound. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_priv.h"

/* ---- statements ---------------------------------------------------- */

#define OBJ_COLS "SELECT kind, project, name, uid, rv, doc FROM objects"
#define KEY_WHERE " WHERE kind = ?1 AND project = ?2 AND name = ?3"
#define KV_INSERT "INSERT INTO secrets (ns, key, owner, doc, expires)" \
                  " VALUES (?1, ?2, ?3, ?4, ?5)"
#define KV_SET " owner = excluded.owner, doc = excluded.doc," \
               " expires = excluded.expires"
#define KV_SELECT "SELECT ns, key, owner, doc, expires FROM secrets WHERE ns = ?1"
#define KV_BY_OWNER " FROM secrets WHERE ns = ?1 AND owner = ?2"
/* expires > 0 rather than <> 0: a range the expires index can serve. */
#define KV_EXPIRED " FROM secrets WHERE expires > 0 AND expires <= ?1"

static const char *const fixed_sql[ST_LIST] = {
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_PING] = "SELECT 1",
    [ST_SAVEPOINT] = "SAVEPOINT cube_write",
    [ST_ROLLBACK_TO] = "ROLLBACK TO cube_write",
    [ST_RELEASE] = "RELEASE cube_write",
    [ST_OBJ_INSERT] = "INSERT INTO objects (kind, project, name, uid, rv, doc)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_OBJ_UPDATE] = "UPDATE objects SET rv = ?4, doc = ?5" KEY_WHERE
                      " AND (?6 = 0 OR rv = ?6) RETURNING rv",
    [ST_OBJ_DELETE] = "DELETE FROM objects" KEY_WHERE
                      " AND (?4 = 0 OR rv = ?4) RETURNING rv",
    [ST_OBJ_RV] = "SELECT rv FROM objects" KEY_WHERE,
    [ST_OBJ_GET] = OBJ_COLS KEY_WHERE,
    [ST_OWNER_INSERT] = "INSERT INTO object_owners (kind, project, name, owner_uid)"
                        " VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
    [ST_OWNER_DELETE] = "DELETE FROM object_owners" KEY_WHERE,
    [ST_OWNED] = "SELECT o.kind, o.project, o.name, o.uid, o.rv, o.doc"
                 " FROM object_owners w JOIN objects o ON o.kind = w.kind"
                 " AND o.project = w.project AND o.name = w.name"
                 " WHERE w.owner_uid = ?1 ORDER BY o.kind, o.project, o.name",
    [ST_HWM_RAISE] = "UPDATE cube_meta SET value = ?1"
                     " WHERE key = 'max_rv' AND value < ?1",
    [ST_MAX_RV] = "SELECT value FROM cube_meta WHERE key = 'max_rv'"
                  " UNION ALL SELECT COALESCE(MAX(rv), 0) FROM objects",
    [ST_COUNT_ALL] = "SELECT COUNT(*) FROM objects WHERE kind = ?1",
    [ST_COUNT_PROJECT] = "SELECT COUNT(*) FROM objects"
                         " WHERE kind = ?1 AND project = ?2",
    [ST_EVENT_ADD] = "INSERT INTO events (project, kind, name, doc)"
                     " VALUES (?1, ?2, ?3, ?4) RETURNING id",
    [ST_PG_CREATE_AUDIT] =
        "WITH o AS (INSERT INTO objects (kind, project, name, uid, rv, doc)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
        " ON CONFLICT (kind, project, name) DO NOTHING RETURNING 1)"
        " INSERT INTO events (project, kind, name, doc)"
        " SELECT ?2, ?1, ?3, ?7 FROM o RETURNING id",
    [ST_PG_CREATE_PLAIN] =
        "INSERT INTO objects (kind, project, name, uid, rv, doc)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
        " ON CONFLICT (kind, project, name) DO NOTHING RETURNING rv",
    /* Alone, a taken key may fail the statement (23505: CUBE_EEXIST), which
     * spares the speculative insertion of ON CONFLICT. */
    [ST_PG_CREATE_ONE_AUDIT] =
        "WITH o AS (INSERT INTO objects (kind, project, name, uid, rv, doc)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING 1)"
        " INSERT INTO events (project, kind, name, doc)"
        " SELECT ?2, ?1, ?3, ?7 FROM o RETURNING id",
    [ST_PG_CREATE_ONE_PLAIN] =
        "INSERT INTO objects (kind, project, name, uid, rv, doc)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING rv",
    /* Many creates: arrays of the columns and of the audit events (NULL:
     * none); the rvs of the objects inserted come back (store_batch.c). A
     * taken key fails the statement, as alone: no ON CONFLICT, whose
     * speculative insertion costs every row an index probe and a WAL
     * record more. */
    [ST_PG_CREATE_MANY] =
        "WITH i AS (SELECT * FROM unnest(?1::text[], ?2::text[], ?3::text[],"
        " ?4::text[], ?5::int8[], ?6::text[], ?7::text[]) WITH ORDINALITY"
        " AS t(kind, project, name, uid, rv, doc, audit, n)),"
        " o AS (INSERT INTO objects (kind, project, name, uid, rv, doc)"
        " SELECT kind, project, name, uid, rv, doc FROM i RETURNING rv),"
        " e AS (INSERT INTO events (project, kind, name, doc)"
        " SELECT project, kind, name, audit FROM i"
        " WHERE audit IS NOT NULL ORDER BY n)"
        " SELECT rv FROM o",
    [ST_PG_UPDATE_AUDIT] =
        "WITH o AS (UPDATE objects SET rv = ?4, doc = ?5" KEY_WHERE
        " AND (?6 = 0 OR rv = ?6) RETURNING rv),"
        " d AS (DELETE FROM object_owners" KEY_WHERE " AND EXISTS (SELECT 1 FROM o))"
        " INSERT INTO events (project, kind, name, doc)"
        " SELECT ?2, ?1, ?3, ?7 FROM o RETURNING id",
    [ST_PG_UPDATE_PLAIN] =
        "WITH o AS (UPDATE objects SET rv = ?4, doc = ?5" KEY_WHERE
        " AND (?6 = 0 OR rv = ?6) RETURNING rv),"
        " d AS (DELETE FROM object_owners" KEY_WHERE " AND EXISTS (SELECT 1 FROM o))"
        " SELECT rv FROM o",
    [ST_PG_DELETE_AUDIT] =
        "WITH o AS (DELETE FROM objects" KEY_WHERE " AND (?4 = 0 OR rv = ?4) RETURNING rv),"
        " d AS (DELETE FROM object_owners" KEY_WHERE " AND EXISTS (SELECT 1 FROM o)),"
        " h AS (UPDATE cube_meta SET value = ?5 WHERE key = 'max_rv' AND value < ?5"
        " AND EXISTS (SELECT 1 FROM o))"
        " INSERT INTO events (project, kind, name, doc)"
        " SELECT ?2, ?1, ?3, ?6 FROM o RETURNING id",
    [ST_KV_PUT] = KV_INSERT " ON CONFLICT (ns, key) DO UPDATE SET" KV_SET,
    /* Replaces only an expired record (one that reads as absent): a row
     * when it applied, none when a live record is in the way. */
    [ST_KV_ADD] = KV_INSERT " ON CONFLICT (ns, key) DO UPDATE SET" KV_SET
                  " WHERE secrets.expires > 0 AND secrets.expires <= ?6"
                  " RETURNING 1",
    [ST_KV_GET] = KV_SELECT " AND key = ?2 AND (expires = 0 OR expires > ?3)",
    /* Returns 1 when the record deleted was live, 0 when expired. */
    [ST_KV_DELETE] = "DELETE FROM secrets WHERE ns = ?1 AND key = ?2"
                     " RETURNING CASE WHEN expires = 0 OR expires > ?3"
                     " THEN 1 ELSE 0 END",
    [ST_KV_LIST] = KV_SELECT " AND (expires = 0 OR expires > ?2) ORDER BY key",
    [ST_KV_LIST_OWNER] = KV_SELECT " AND owner = ?2"
                         " AND (expires = 0 OR expires > ?3) ORDER BY key",
    /* Counting deletes (store_kv.c sums column 0 over the rows): SQLite
     * returns a 1 per row deleted, PostgreSQL the count (pg_sql). */
    [ST_KV_DELETE_OWNER] = "DELETE" KV_BY_OWNER " RETURNING 1",
    [ST_KV_PURGE] = "DELETE" KV_EXPIRED " RETURNING 1",
    [ST_PT_COUNT] = "SELECT COUNT(*), COALESCE(MAX(seq), 0) FROM job_metrics"
                    " WHERE job_uid = ?1",
    [ST_PT_INSERT] = "INSERT INTO job_metrics (job_uid, seq, name, step, value, ts_ms)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_PT_LIST] = "SELECT name, step, value, ts_ms FROM job_metrics"
                   " WHERE job_uid = ?1 AND step > ?2 ORDER BY name, step, seq",
    [ST_PT_LIST_NAME] = "SELECT name, step, value, ts_ms FROM job_metrics"
                        " WHERE job_uid = ?1 AND step > ?2 AND name = ?3"
                        " ORDER BY step, seq",
    [ST_PT_DELETE] = "DELETE FROM job_metrics WHERE job_uid = ?1",
    [ST_PT_ORPHANS] = "DELETE FROM job_metrics WHERE job_uid NOT IN"
                      " (SELECT uid FROM objects)",
};

/* PostgreSQL's own text where it differs (NULL: fixed_sql's). */
static const char *const pg_sql[ST_LIST] = {
    [ST_KV_DELETE_OWNER] = "WITH d AS (DELETE" KV_BY_OWNER " RETURNING 1)"
                           " SELECT COUNT(*) FROM d",
    [ST_KV_PURGE] = "WITH d AS (DELETE" KV_EXPIRED " RETURNING 1)"
                    " SELECT COUNT(*) FROM d",
};

/* List variant `bits` (1: project filter, 2: keyset cursor). Parameters:
 * kind, [project], [after_project, after_name], limit. */
static char *list_sql(int bits)
{
    char buf[512];
    int n = 2;
    size_t len = (size_t)snprintf(buf, sizeof buf, "%s WHERE kind = ?1", OBJ_COLS);
    if (bits & 1)
        len += (size_t)snprintf(buf + len, sizeof buf - len,
                                " AND project = ?%d", n++);
    if (bits & 2) {
        len += (size_t)snprintf(buf + len, sizeof buf - len,
                                " AND (project, name) > (?%d, ?%d)", n, n + 1);
        n += 2;
    }
    snprintf(buf + len, sizeof buf - len, " ORDER BY project, name LIMIT ?%d", n);
    return strdup(buf);
}

/* Event-list variant `bits` (1: project, 2: kind, 4: name, 8: id bound);
 * parameters in that order, then the limit. */
static char *event_list_sql(int bits)
{
    static const char *const cond[] = {"project = ", "kind = ", "name = ", "id < "};
    char buf[512];
    int n = 1;
    size_t len = (size_t)snprintf(buf, sizeof buf, "SELECT id, doc FROM events");
    for (int b = 0; b < 4; b++) {
        if (!(bits & (1 << b)))
            continue;
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s?%d",
                                n == 1 ? " WHERE " : " AND ", cond[b], n);
        n++;
    }
    snprintf(buf + len, sizeof buf - len, " ORDER BY id DESC LIMIT ?%d", n);
    return strdup(buf);
}

int store_sql_build(struct cube_store *s)
{
    enum store_dialect d = s->drv->dialect;
    for (int i = 0; i < ST_LIST; i++) {
        const char *text = fixed_sql[i];
        if (i == ST_BEGIN)
            text = d == STORE_SQLITE ? "BEGIN IMMEDIATE" : "BEGIN";
        else if (i >= ST_MIG_LOCK && i <= ST_SCHEMA_RECORD)
            text = store_mig_sql(d, i);
        else if (d == STORE_PG && pg_sql[i])
            text = pg_sql[i];
        if (!(s->sql[i] = strdup(text)))
            return -1;
    }
    for (int b = 0; b < 4; b++)
        if (!(s->sql[ST_LIST + b] = list_sql(b)))
            return -1;
    for (int b = 0; b < 16; b++)
        if (!(s->sql[ST_EVENT_LIST + b] = event_list_sql(b)))
            return -1;
    return 0;
}

/* ---- running them -------------------------------------------------- */

int store_exec(struct cube_store *s, struct store_conn *c, int st,
               const struct store_val *v, int n)
{
    int rc = s->drv->query(c, st, s->sql[st], v, n);
    if (rc != CUBE_OK)
        return rc;
    while ((rc = s->drv->next(c)) == 1)
        ;
    s->drv->done(c);
    return rc;
}

int store_query_int(struct cube_store *s, struct store_conn *c, int st,
                    const struct store_val *v, int n, int64_t *out)
{
    int rc = s->drv->query(c, st, s->sql[st], v, n);
    if (rc != CUBE_OK)
        return rc;
    rc = s->drv->next(c);
    if (rc == 1) {
        *out = s->drv->col_int(c, 0);
        while ((rc = s->drv->next(c)) == 1)
            ;
    } else if (rc == 0) {
        rc = CUBE_ENOTFOUND;
    }
    s->drv->done(c);
    return rc;
}

int store_write_begin(struct cube_store *s, struct store_conn **c)
{
    int rc = store_conn_get(s, 1, c, NULL, 0);
    if (rc != CUBE_OK)
        return rc;
    rc = store_exec(s, *c, ST_BEGIN, NULL, 0);
    if (rc != CUBE_OK)
        store_conn_put(s, 1, *c);
    return rc;
}

int store_write_end(struct cube_store *s, struct store_conn *c, int rc)
{
    if (rc == CUBE_OK)
        rc = store_exec(s, c, ST_COMMIT, NULL, 0);
    if (rc != CUBE_OK && !c->broken)
        store_exec(s, c, ST_ROLLBACK, NULL, 0);
    store_conn_put(s, 1, c);
    return rc;
}
