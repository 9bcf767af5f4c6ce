/* store_migrations.c — the store's versioned schema and the runner that
 * applies it (see store.h, store_priv.h).
 *
 * Migration N is applied in one transaction that also records N in
 * cube_schema. The transaction first takes the schema lock (SQLite: BEGIN
 * IMMEDIATE holds the database's write lock; PostgreSQL: an advisory
 * transaction lock) and then re-reads the version, so two cubeds starting
 * together apply each migration exactly once. Documents stay TEXT on both
 * drivers (JSONB would reorder keys); PostgreSQL text columns use the "C"
 * collation so that (project, name) order is byte order, as in SQLite. */
#include <inttypes.h>
#include <stdio.h>

#include "base/log.h"
#include "store_priv.h"

struct migration {
    int version;
    const char *sql[2]; /* by enum store_dialect */
};

static const char SQLITE_V1[] =
    "CREATE TABLE cube_schema ("
    " version INTEGER PRIMARY KEY,"
    " applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));"
    "CREATE TABLE objects ("
    " kind TEXT NOT NULL, project TEXT NOT NULL, name TEXT NOT NULL,"
    " uid TEXT NOT NULL UNIQUE, rv BIGINT NOT NULL, doc TEXT NOT NULL,"
    " PRIMARY KEY (kind, project, name));"
    "CREATE TABLE object_owners ("
    " owner_uid TEXT NOT NULL, kind TEXT NOT NULL, project TEXT NOT NULL,"
    " name TEXT NOT NULL, PRIMARY KEY (kind, project, name, owner_uid));"
    "CREATE INDEX object_owners_owner ON object_owners (owner_uid);"
    "CREATE TABLE events ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT, project TEXT NOT NULL,"
    " kind TEXT NOT NULL, name TEXT NOT NULL, doc TEXT NOT NULL);"
    "CREATE INDEX events_project ON events (project, id);"
    "CREATE INDEX events_object ON events (kind, project, name, id);"
    "CREATE TABLE cube_meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL);"
    "INSERT INTO cube_meta (key, value) VALUES ('max_rv', 0);";

static const char PG_V1[] =
    "CREATE TABLE cube_schema ("
    " version INTEGER PRIMARY KEY,"
    " applied_at TIMESTAMPTZ NOT NULL DEFAULT now());"
    "CREATE TABLE objects ("
    " kind TEXT COLLATE \"C\" NOT NULL, project TEXT COLLATE \"C\" NOT NULL,"
    " name TEXT COLLATE \"C\" NOT NULL, uid TEXT NOT NULL UNIQUE,"
    " rv BIGINT NOT NULL, doc TEXT NOT NULL,"
    " PRIMARY KEY (kind, project, name));"
    "CREATE TABLE object_owners ("
    " owner_uid TEXT COLLATE \"C\" NOT NULL, kind TEXT COLLATE \"C\" NOT NULL,"
    " project TEXT COLLATE \"C\" NOT NULL, name TEXT COLLATE \"C\" NOT NULL,"
    " PRIMARY KEY (kind, project, name, owner_uid));"
    "CREATE INDEX object_owners_owner ON object_owners (owner_uid);"
    "CREATE TABLE events ("
    " id BIGSERIAL PRIMARY KEY, project TEXT COLLATE \"C\" NOT NULL,"
    " kind TEXT COLLATE \"C\" NOT NULL, name TEXT COLLATE \"C\" NOT NULL,"
    " doc TEXT NOT NULL);"
    "CREATE INDEX events_project ON events (project, id);"
    "CREATE INDEX events_object ON events (kind, project, name, id);"
    "CREATE TABLE cube_meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL);"
    "INSERT INTO cube_meta (key, value) VALUES ('max_rv', 0);";

/* 2: the secrets table (store_kv.c). The owner index serves listing and
 * deleting "every record of ns owned by X", the expires index the purge. */
static const char SQLITE_V2[] =
    "CREATE TABLE secrets ("
    " ns TEXT NOT NULL, key TEXT NOT NULL, owner TEXT NOT NULL,"
    " doc TEXT NOT NULL, expires BIGINT NOT NULL DEFAULT 0,"
    " PRIMARY KEY (ns, key));"
    "CREATE INDEX secrets_owner ON secrets (ns, owner, key);"
    "CREATE INDEX secrets_expires ON secrets (expires);";

static const char PG_V2[] =
    "CREATE TABLE secrets ("
    " ns TEXT COLLATE \"C\" NOT NULL, key TEXT COLLATE \"C\" NOT NULL,"
    " owner TEXT COLLATE \"C\" NOT NULL, doc TEXT NOT NULL,"
    " expires BIGINT NOT NULL DEFAULT 0,"
    " PRIMARY KEY (ns, key));"
    "CREATE INDEX secrets_owner ON secrets (ns, owner, key);"
    "CREATE INDEX secrets_expires ON secrets (expires);";

/* 3: Job metrics (store_points.c): points a Job reports, keyed by the
 * Job's uid (a Job made again under the same name starts empty) and a
 * sequence number per Job; read by name and step. The value is TEXT
 * ("%.17g", exact on both drivers, as documents are). */
static const char SQLITE_V3[] =
    "CREATE TABLE job_metrics ("
    " job_uid TEXT NOT NULL, seq BIGINT NOT NULL, name TEXT NOT NULL,"
    " step BIGINT NOT NULL, value TEXT NOT NULL, ts_ms BIGINT NOT NULL,"
    " PRIMARY KEY (job_uid, seq));"
    "CREATE INDEX job_metrics_name ON job_metrics (job_uid, name, step);";

static const char PG_V3[] =
    "CREATE TABLE job_metrics ("
    " job_uid TEXT COLLATE \"C\" NOT NULL, seq BIGINT NOT NULL,"
    " name TEXT COLLATE \"C\" NOT NULL, step BIGINT NOT NULL,"
    " value TEXT NOT NULL, ts_ms BIGINT NOT NULL,"
    " PRIMARY KEY (job_uid, seq));"
    "CREATE INDEX job_metrics_name ON job_metrics (job_uid, name, step);";

/* In version order; the last one's is cube_store_schema_version(). */
static const struct migration migrations[] = {
    {1, {SQLITE_V1, PG_V1}},
    {2, {SQLITE_V2, PG_V2}},
    {3, {SQLITE_V3, PG_V3}},
};

#define N_MIGRATIONS (sizeof migrations / sizeof migrations[0])

/* An arbitrary constant: the advisory lock key of schema migrations. */
#define PG_SCHEMA_LOCK "4355424553"

const char *store_mig_sql(enum store_dialect d, int st)
{
    int pg = d == STORE_PG;
    switch (st) {
    case ST_MIG_LOCK:
        return pg ? "SELECT pg_advisory_xact_lock(" PG_SCHEMA_LOCK ")"
                  : "SELECT 1";
    case ST_SCHEMA_EXISTS:
        return pg ? "SELECT COUNT(*) FROM pg_catalog.pg_tables"
                    " WHERE schemaname = current_schema()"
                    " AND tablename = 'cube_schema'"
                  : "SELECT COUNT(*) FROM sqlite_master"
                    " WHERE type = 'table' AND name = 'cube_schema'";
    case ST_SCHEMA_VERSION:
        return "SELECT COALESCE(MAX(version), 0) FROM cube_schema";
    case ST_SCHEMA_RECORD:
        return "INSERT INTO cube_schema (version) VALUES (?1)";
    default:
        return NULL;
    }
}

int cube_store_schema_version(void)
{
    return migrations[N_MIGRATIONS - 1].version;
}

/* Reads the recorded schema version (0: a fresh database). */
static int current_version(struct cube_store *s, struct store_conn *c,
                           int64_t *version)
{
    int64_t exists = 0;
    int rc = store_query_int(s, c, ST_SCHEMA_EXISTS, NULL, 0, &exists);
    if (rc != CUBE_OK)
        return rc;
    *version = 0;
    if (exists == 0)
        return CUBE_OK;
    return store_query_int(s, c, ST_SCHEMA_VERSION, NULL, 0, version);
}

/* Applies m unless the database already has it, under the schema lock. */
static int migrate_one(struct cube_store *s, struct store_conn *c,
                       const struct migration *m, char *err, size_t errlen)
{
    int64_t version = 0;
    int rc = store_exec(s, c, ST_BEGIN, NULL, 0);
    if (rc != CUBE_OK) {
        snprintf(err, errlen, "%s: cannot begin a migration", s->safe_url);
        return rc;
    }
    rc = store_exec(s, c, ST_MIG_LOCK, NULL, 0);
    if (rc == CUBE_OK)
        rc = current_version(s, c, &version);
    if (rc != CUBE_OK) {
        snprintf(err, errlen, "%s: cannot read the schema version", s->safe_url);
        goto fail;
    }
    if (version > cube_store_schema_version()) {
        snprintf(err, errlen,
                 "database schema version %" PRId64 " is newer than this"
                 " cubed (knows %d): upgrade cubed",
                 version, cube_store_schema_version());
        rc = CUBE_EVERSION;
        goto fail;
    }
    if (version >= m->version)
        goto fail; /* nothing to do: just end the transaction */
    rc = s->drv->script(c, m->sql[s->drv->dialect]);
    if (rc == CUBE_OK) {
        struct store_val v = SV_I(m->version);
        rc = store_exec(s, c, ST_SCHEMA_RECORD, &v, 1);
    }
    if (rc == CUBE_OK)
        rc = store_exec(s, c, ST_COMMIT, NULL, 0);
    if (rc != CUBE_OK) {
        snprintf(err, errlen, "%s: migration %d failed (see the log)",
                 s->safe_url, m->version);
        goto fail;
    }
    cube_log(CUBE_LOG_INFO, "store", "%s: applied schema migration %d",
             s->safe_url, m->version);
    return CUBE_OK;
fail:
    if (!c->broken)
        store_exec(s, c, ST_ROLLBACK, NULL, 0);
    return rc;
}

int store_migrate(struct cube_store *s, char *err, size_t errlen)
{
    struct store_conn *c = NULL;
    char why[256];
    int rc = store_conn_get(s, 1, &c, why, sizeof why);
    if (rc != CUBE_OK) {
        snprintf(err, errlen, "%s: cannot connect: %s", s->safe_url, why);
        return rc;
    }
    for (size_t i = 0; i < N_MIGRATIONS && rc == CUBE_OK; i++)
        rc = migrate_one(s, c, &migrations[i], err, errlen);
    store_conn_put(s, 1, c);
    return rc;
}
