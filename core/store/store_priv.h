/* store_priv.h — what the store's driver-independent part (store.c,
 * store_sql.c, store_pool.c, store_migrations.c) shares with its drivers
 * (store_sqlite.c, store_pg.c).
 *
 * A driver only knows connections and numbered statements: store_sql.c
 * keeps the SQL text of every statement (placeholders written ?1, ?2, ...),
 * passed along with its number; the driver prepares it once per connection
 * and binds the values. All store logic (transactions, rv checks, owners,
 * paging) lives once, above the drivers. */
#ifndef CUBE_STORE_PRIV_H
#define CUBE_STORE_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cube/cube_plugin.h>

#include "store.h"

enum store_dialect { STORE_SQLITE = 0, STORE_PG = 1 };

/* Statement numbers. The list and event-list queries come in variants, one
 * per combination of optional filters (a bit each, see store.c). */
enum store_stmt {
    ST_BEGIN, ST_COMMIT, ST_ROLLBACK, ST_PING,
    /* One write of a group transaction (store_group.c). */
    ST_SAVEPOINT, ST_ROLLBACK_TO, ST_RELEASE,
    ST_MIG_LOCK, ST_SCHEMA_EXISTS, ST_SCHEMA_VERSION, ST_SCHEMA_RECORD,
    ST_OBJ_INSERT, ST_OBJ_UPDATE, ST_OBJ_DELETE, ST_OBJ_RV, ST_OBJ_GET,
    ST_OWNER_INSERT, ST_OWNER_DELETE, ST_OWNED,
    ST_HWM_RAISE, ST_MAX_RV, ST_COUNT_ALL, ST_COUNT_PROJECT, ST_EVENT_ADD,
    /* PostgreSQL only: a write, its owner rows and its audit event in one
     * statement (one round trip); see store_write.c. */
    ST_PG_CREATE_AUDIT, ST_PG_CREATE_PLAIN, ST_PG_UPDATE_AUDIT, ST_PG_UPDATE_PLAIN,
    ST_PG_DELETE_AUDIT,
    /* PostgreSQL only: a create run by itself (a taken key is an error, no
     * ON CONFLICT), and many creates of a batch in one statement (arrays;
     * see store_batch.c). */
    ST_PG_CREATE_ONE_AUDIT, ST_PG_CREATE_ONE_PLAIN, ST_PG_CREATE_MANY,
    /* The secrets table (store_kv.c). */
    ST_KV_PUT, ST_KV_ADD, ST_KV_GET, ST_KV_DELETE, ST_KV_LIST, ST_KV_LIST_OWNER,
    ST_KV_DELETE_OWNER, ST_KV_PURGE,
    /* Job metrics (store_points.c). */
    ST_PT_COUNT, ST_PT_INSERT, ST_PT_LIST, ST_PT_LIST_NAME, ST_PT_DELETE, ST_PT_ORPHANS,
    ST_LIST,                    /* + 4 variants */
    ST_EVENT_LIST = ST_LIST + 4, /* + 16 variants */
    ST_N = ST_EVENT_LIST + 16
};

#define STORE_MAX_PARAMS 8

/* SV_BIN: bytes s[0..i) in PostgreSQL's binary format, of the type the
 * statement casts the placeholder to (PostgreSQL only). */
enum store_val_type { SV_NULL, SV_TEXT, SV_INT, SV_BIN };

/* One bound parameter. */
struct store_val {
    enum store_val_type type;
    const char *s;
    int64_t i;
};

#define SV_T(x) ((struct store_val){.type = SV_TEXT, .s = (x)})
#define SV_I(x) ((struct store_val){.type = SV_INT, .i = (x)})
#define SV_B(p, n) ((struct store_val){.type = SV_BIN, .s = (p), .i = (int64_t)(n)})

/* The head of every driver connection (drivers embed it first). A driver
 * sets `broken` when the connection is no longer usable; the pool then
 * discards it instead of lending it again. */
struct store_conn {
    int broken;
};

/* One statement of a pipeline (driver.pipeline): st with n bound values in;
 * out: rc (CUBE_OK, or the statement's error; CUBE_EIO when it was skipped
 * after an earlier one failed), rows returned and column 0 of the first;
 * column 0 of the first max_vals rows into vals, when vals is set. */
struct store_pipe_item {
    int st;
    const struct store_val *v;
    int n;
    int rc;
    int rows;
    int64_t val;
    int64_t *vals;
    int max_vals;
};

/* A driver. Every function taking a connection is called by one thread at
 * a time for that connection (the pool lends it exclusively). */
struct store_driver {
    const char *name;
    enum store_dialect dialect;
    int separate_writer; /* writes go through one dedicated connection */
    /* Prepares the driver state for target (a file path or a libpq URI). */
    int (*init)(const char *target, void **state, char *err, size_t errlen);
    void (*fini)(void *state);
    /* Opens a connection; CUBE_EUNAVAIL with a message when it cannot. */
    int (*connect)(void *state, int writer, struct store_conn **out,
                   char *err, size_t errlen);
    void (*disconnect)(struct store_conn *c);
    /* Starts statement st (SQL text sql) with n bound values. On CUBE_OK the
     * caller reads rows with next/col_* and must call done. */
    int (*query)(struct store_conn *c, int st, const char *sql,
                 const struct store_val *v, int n);
    /* 1: a row is ready, 0: no more rows, < 0: a CUBE_* error. */
    int (*next)(struct store_conn *c);
    const char *(*col_text)(struct store_conn *c, int col); /* never NULL */
    int64_t (*col_int)(struct store_conn *c, int col);
    void (*done)(struct store_conn *c);
    /* Runs a parameterless multi-statement script (migrations). */
    int (*script)(struct store_conn *c, const char *sql);
    /* Optional (NULL: none). Sends it[0..n) (SQL texts in sql[]) in one
     * round trip, each statement running even if an earlier one failed
     * would not: after a failure the rest is skipped, and a transaction the
     * items left open is rolled back. CUBE_OK: every item has its outcome.
     * Otherwise either nothing was sent (c not broken) or the outcome is
     * unknown (c broken). */
    int (*pipeline)(struct store_conn *c, char *const *sql,
                    struct store_pipe_item *it, int n);
};

extern const struct store_driver store_sqlite_driver;
extern const struct store_driver store_pg_driver;

/* The statements of one write, run on c inside a transaction the caller
 * opened and ends; CUBE_OK, or the error that undoes the write. */
typedef int (*store_write_fn)(struct cube_store *s, struct store_conn *c, void *arg);

/* A write waiting for group commit (store_batch.c). PostgreSQL: one
 * statement, st in a batch, st_alone when it runs by itself (a create's v
 * is that of ST_PG_CREATE_AUDIT: the batch reads its columns). SQLite: run
 * with arg, in a transaction shared with the other writes of its batch
 * (store_group.c). */
struct store_wreq {
    store_write_fn run;  /* SQLite; NULL on PostgreSQL */
    void *arg;
    int st, st_alone;
    const struct store_val *v; /* the key (kind, project, name) first */
    int n;
    int guarded;  /* no row means ENOTFOUND/ECONFLICT (else: EEXIST) */
    int rc;
    atomic_int turn;   /* WREQ_WAIT, WREQ_LEAD (it may lead), WREQ_DONE */
    struct store_wreq *next;
};

/* The queue of writes waiting for a batch; at most max_inflight batches
 * run at a time, each on its own connection. */
struct store_batcher {
    pthread_mutex_t mu;
    struct store_wreq *head, *tail;
    unsigned inflight, max_inflight;
};

/* Runs w[0..n) (each with run set) on c in one transaction, each write
 * under a savepoint: one that fails is undone alone. Sets every w->rc;
 * when the transaction itself fails, no write of it stands. */
void store_group_run(struct cube_store *s, struct store_conn *c,
                     struct store_wreq **w, int n);

/* Connections of one kind, opened lazily up to `size`, lent exclusively,
 * and the group-commit queue of writes through them. */
struct store_pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct store_conn **idle;
    unsigned n_idle, n_open, size;
    struct store_batcher batch;
};

struct cube_store {
    const struct store_driver *drv;
    void *state;             /* the driver's */
    char *safe_url;          /* names the database in messages (no password) */
    char *sql[ST_N];
    struct store_pool pools[2]; /* [0] the writer (separate_writer), [1] others */
    atomic_int down;         /* the last connect attempt failed */
};

/* Sizes and initialises an empty pool. 0, or -1 when out of memory. */
int store_pool_init(struct store_pool *p, unsigned size);
/* Closes a pool's idle connections and frees it (no-op if never set up). */
void store_pool_fini(struct cube_store *s, struct store_pool *p);
/* Borrows a connection (writer: for writes). CUBE_EUNAVAIL when none can be
 * opened, with the reason in err (may be NULL). */
int store_conn_get(struct cube_store *s, int writer, struct store_conn **out,
                   char *err, size_t errlen);
/* Returns a borrowed connection (a broken one is closed). */
void store_conn_put(struct cube_store *s, int writer, struct store_conn *c);
/* Fills s->sql for s's driver. 0, or -1 when out of memory. */
int store_sql_build(struct cube_store *s);
/* Runs statement st to completion, ignoring rows. */
int store_exec(struct cube_store *s, struct store_conn *c, int st,
               const struct store_val *v, int n);
/* Runs st and reads column 0 of its first row as an integer into *out;
 * CUBE_ENOTFOUND when there is no row. */
int store_query_int(struct cube_store *s, struct store_conn *c, int st,
                    const struct store_val *v, int n, int64_t *out);

/* Borrows the writer connection and opens a transaction on it. */
/* 1 when kind, project (may be "") and name are usable keys. */
int store_valid_key(const char *kind, const char *project, const char *name);
int store_write_begin(struct cube_store *s, struct store_conn **c);
/* Commits (rc == CUBE_OK) or rolls back, returns the writer; the outcome. */
int store_write_end(struct cube_store *s, struct store_conn *c, int rc);
/* Runs w (a statement returning a row on success) on a pooled connection,
 * sharing one transaction and round trip with concurrent writes where the
 * driver pipelines; returns w's own outcome. */
int store_batch_write(struct cube_store *s, struct store_wreq *w);
/* Sets up / tears down a pool's queue. */
void store_batch_init(struct store_batcher *b, unsigned max_inflight);
void store_batch_fini(struct store_batcher *b);
/* The schema statements' SQL (ST_MIG_LOCK .. ST_SCHEMA_RECORD) for a dialect. */
const char *store_mig_sql(enum store_dialect d, int st);
/* Applies pending migrations; refuses a newer schema (CUBE_EVERSION). */
int store_migrate(struct cube_store *s, char *err, size_t errlen);

#endif
