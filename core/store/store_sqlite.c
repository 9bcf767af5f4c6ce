/* store_sqlite.c — the SQLite driver of the store (see store_priv.h).
 *
 * One file, in WAL mode so that readers never block the writer nor the
 * writer them. The pool gives this driver one writer connection (SQLite
 * serialises writers anyway; writes open with BEGIN IMMEDIATE) and N reader
 * connections. Connections are opened NOMUTEX: the pool lends each to one
 * thread at a time. Statements are prepared once per connection and kept. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store_priv.h"
#include "base/fs.h"

#define BUSY_TIMEOUT_MS 5000

struct sq_state {
    char *path;
};

struct sq_conn {
    struct store_conn base; /* first */
    sqlite3 *db;
    sqlite3_stmt *st[ST_N];
    sqlite3_stmt *cur; /* the running statement */
};

static struct sq_conn *sq(struct store_conn *c)
{
    return (struct sq_conn *)c;
}

/* Maps a SQLite result code to a CUBE_* code, logging unexpected ones. */
static int sq_err(struct sq_conn *c, int rc, const char *what)
{
    switch (rc) {
    case SQLITE_CONSTRAINT_UNIQUE:
    case SQLITE_CONSTRAINT_PRIMARYKEY:
        return CUBE_EEXIST;
    case SQLITE_NOMEM:
        return CUBE_ENOMEM;
    default:
        break;
    }
    int primary = rc & 0xff;
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
        cube_log(CUBE_LOG_WARN, "store", "sqlite: %s: database busy: %s", what,
                 sqlite3_errmsg(c->db));
        return CUBE_EUNAVAIL;
    }
    cube_log(CUBE_LOG_ERROR, "store", "sqlite: %s: %s (%d)", what,
             sqlite3_errmsg(c->db), rc);
    return CUBE_EIO;
}

static int sq_init(const char *target, void **state, char *err, size_t errlen)
{
    if (!sqlite3_threadsafe()) { /* connections move between threads */
        snprintf(err, errlen, "libsqlite3 was built without thread support");
        return CUBE_EINVAL;
    }
    struct sq_state *st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(target))) {
        free(st);
        return CUBE_ENOMEM;
    }
    char *slash = strrchr(st->path, '/');
    if (slash && slash != st->path) {
        *slash = '\0';
        int rc = cube_mkdir_p(st->path, 0700);
        int saved = errno;
        *slash = '/';
        if (rc != 0) {
            snprintf(err, errlen, "cannot create the directory of %s: %s",
                     st->path, strerror(saved));
            free(st->path);
            free(st);
            return CUBE_EIO;
        }
    }
    *state = st;
    return CUBE_OK;
}

static void sq_fini(void *state)
{
    struct sq_state *st = state;
    free(st->path);
    free(st);
}

static void sq_disconnect(struct store_conn *bc)
{
    struct sq_conn *c = sq(bc);
    for (int i = 0; i < ST_N; i++)
        sqlite3_finalize(c->st[i]);
    sqlite3_close_v2(c->db);
    free(c);
}

/* Runs a pragma (or any parameterless statement), returning its first
 * column of its first row in out (when given). */
static int sq_pragma(sqlite3 *db, const char *sql, char *out, size_t outlen)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (out && sqlite3_column_text(st, 0)) {
            snprintf(out, outlen, "%s", (const char *)sqlite3_column_text(st, 0));
            out = NULL;
        }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Sets the connection up: busy timeout, WAL (writer), synchronous. */
static int sq_setup(sqlite3 *db, int writer, const char *path)
{
    char mode[16] = "";
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
    if (writer) {
        /* Switching a new database to WAL can answer SQLITE_BUSY at once,
         * without the busy handler, while another connection is doing the
         * same; retry for as long as the busy timeout would have waited. */
        int rc;
        for (int waited = 0;; waited += 10) {
            rc = sq_pragma(db, "PRAGMA journal_mode=WAL", mode, sizeof mode);
            if ((rc & 0xff) != SQLITE_BUSY || waited >= BUSY_TIMEOUT_MS)
                break;
            nanosleep(&(struct timespec){.tv_nsec = 10 * 1000000L}, NULL);
        }
        if (rc != SQLITE_OK)
            return rc;
        if (strcmp(mode, "wal") != 0)
            cube_log(CUBE_LOG_WARN, "store", "sqlite: %s: journal mode is %s,"
                     " not wal: readers and writer will block each other",
                     path, mode);
    }
    return sq_pragma(db, "PRAGMA synchronous=NORMAL", NULL, 0);
}

static int sq_connect(void *state, int writer, struct store_conn **out,
                      char *err, size_t errlen)
{
    struct sq_state *st = state;
    struct sq_conn *c = calloc(1, sizeof *c);
    if (!c)
        return CUBE_ENOMEM;
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    int rc = sqlite3_open_v2(st->path, &c->db, flags, NULL);
    if (rc == SQLITE_OK)
        rc = sq_setup(c->db, writer, st->path);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "sqlite: %s: %s", st->path,
                 c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc));
        goto fail;
    }
    *out = &c->base;
    return CUBE_OK;
fail:
    sqlite3_close_v2(c->db);
    free(c);
    return (rc & 0xff) == SQLITE_BUSY ? CUBE_EUNAVAIL : CUBE_EIO;
}

/* Binds v[0..n) to st. */
static int sq_bind(sqlite3_stmt *st, const struct store_val *v, int n)
{
    int rc = SQLITE_OK;
    for (int i = 0; i < n && rc == SQLITE_OK; i++) {
        switch (v[i].type) {
        case SV_TEXT:
            rc = sqlite3_bind_text(st, i + 1, v[i].s, -1, SQLITE_STATIC);
            break;
        case SV_INT:
            rc = sqlite3_bind_int64(st, i + 1, v[i].i);
            break;
        case SV_BIN:
            rc = sqlite3_bind_blob64(st, i + 1, v[i].s, (sqlite3_uint64)v[i].i,
                                     SQLITE_STATIC);
            break;
        default:
            rc = sqlite3_bind_null(st, i + 1);
            break;
        }
    }
    return rc;
}

static int sq_query(struct store_conn *bc, int st, const char *sql,
                    const struct store_val *v, int n)
{
    struct sq_conn *c = sq(bc);
    if (!c->st[st]) {
        int rc = sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
                                    &c->st[st], NULL);
        if (rc != SQLITE_OK)
            return sq_err(c, rc, "prepare");
    }
    int rc = sq_bind(c->st[st], v, n);
    if (rc != SQLITE_OK) {
        sqlite3_clear_bindings(c->st[st]);
        return sq_err(c, rc, "bind");
    }
    c->cur = c->st[st];
    return CUBE_OK;
}

static int sq_next(struct store_conn *bc)
{
    struct sq_conn *c = sq(bc);
    int rc = sqlite3_step(c->cur);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    return sq_err(c, rc, sqlite3_sql(c->cur));
}

static const char *sq_col_text(struct store_conn *bc, int col)
{
    const unsigned char *t = sqlite3_column_text(sq(bc)->cur, col);
    return t ? (const char *)t : "";
}

static int64_t sq_col_int(struct store_conn *bc, int col)
{
    return sqlite3_column_int64(sq(bc)->cur, col);
}

/* Resets the statement: ends its read snapshot and drops the bindings
 * (bound text is not copied). */
static void sq_done(struct store_conn *bc)
{
    struct sq_conn *c = sq(bc);
    sqlite3_reset(c->cur);
    sqlite3_clear_bindings(c->cur);
    c->cur = NULL;
}

static int sq_script(struct store_conn *bc, const char *sql)
{
    struct sq_conn *c = sq(bc);
    int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? CUBE_OK : sq_err(c, rc, "script");
}

const struct store_driver store_sqlite_driver = {
    .name = "sqlite",
    .dialect = STORE_SQLITE,
    .separate_writer = 1,
    .init = sq_init,
    .fini = sq_fini,
    .connect = sq_connect,
    .disconnect = sq_disconnect,
    .query = sq_query,
    .next = sq_next,
    .col_text = sq_col_text,
    .col_int = sq_col_int,
    .done = sq_done,
    .script = sq_script,
};
