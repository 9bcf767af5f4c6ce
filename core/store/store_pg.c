/* store_pg.c — the PostgreSQL driver of the store (see store_priv.h), on
 * libpq.
 *
 * Connections come from the shared pool (no separate writer: PostgreSQL runs
 * writers concurrently). Each statement is prepared (PQprepare) the first
 * time a connection runs it, with parameter types taken from the bound
 * values; values always travel as bound parameters. When the server goes
 * away (a connection-class SQLSTATE, an admin shutdown, or a connection
 * libpq reports as bad) the call answers CUBE_EUNAVAIL and the connection is
 * marked broken; the pool closes it, and a later call connects afresh
 * (connect_timeout 2 s), so work resumes by itself once the server is back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "base/log.h"
#include "store_priv.h"

#define OID_INT8 20
#define OID_TEXT 25

struct pg_state {
    char *uri;
};

struct pg_conn {
    struct store_conn base; /* first */
    PGconn *pg;
    unsigned char prepared[ST_N];
    PGresult *res; /* the running statement's rows */
    int row, nrows;
};

static struct pg_conn *pgc(struct store_conn *c)
{
    return (struct pg_conn *)c;
}

/* Copies a libpq message as one line (it may span several). */
static void copy_msg(char *out, size_t outlen, const char *msg)
{
    snprintf(out, outlen, "%s", msg ? msg : "unknown error");
    size_t n = strlen(out);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r'))
        out[--n] = '\0';
    for (char *p = out; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
}

/* SQLSTATEs after which the connection is gone or the server is leaving. */
static int conn_lost(const char *state)
{
    return !state || strncmp(state, "08", 2) == 0 ||
           strcmp(state, "57P01") == 0 || strcmp(state, "57P02") == 0 ||
           strcmp(state, "57P03") == 0;
}

/* SQLSTATEs worth retrying: serialization failure, deadlock, lock timeout,
 * statement cancelled. */
static int transient(const char *state)
{
    return strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0 ||
           strcmp(state, "55P03") == 0 || strcmp(state, "57014") == 0;
}

/* Maps a failed result (res may be NULL) to a CUBE_* code; logs it. */
static int pg_fail(struct pg_conn *c, const PGresult *res, const char *what)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    char msg[512];
    copy_msg(msg, sizeof msg, res ? PQresultErrorMessage(res) : NULL);
    if (!msg[0] || !res)
        copy_msg(msg, sizeof msg, PQerrorMessage(c->pg));
    if (PQstatus(c->pg) == CONNECTION_BAD || conn_lost(state)) {
        c->base.broken = 1;
        cube_log(CUBE_LOG_WARN, "store", "postgres: connection lost (%s): %s",
                 what, msg);
        return CUBE_EUNAVAIL;
    }
    if (strcmp(state, "23505") == 0)
        return CUBE_EEXIST;
    if (transient(state)) {
        cube_log(CUBE_LOG_WARN, "store", "postgres: %s: %s", what, msg);
        return CUBE_EUNAVAIL;
    }
    cube_log(CUBE_LOG_ERROR, "store", "postgres: %s: [%s] %s", what, state, msg);
    return CUBE_EIO;
}

static int pg_init(const char *target, void **state, char *err, size_t errlen)
{
    struct pg_state *st = calloc(1, sizeof *st);
    if (!st || !(st->uri = strdup(target))) {
        free(st);
        snprintf(err, errlen, "out of memory");
        return CUBE_ENOMEM;
    }
    *state = st;
    return CUBE_OK;
}

static void pg_fini(void *state)
{
    struct pg_state *st = state;
    free(st->uri);
    free(st);
}

static int pg_connect(void *state, int writer, struct store_conn **out,
                      char *err, size_t errlen)
{
    struct pg_state *st = state;
    (void)writer; /* any connection writes */
    /* Keywords before dbname are defaults the URI may override. Keepalives
     * find a silently vanished server within about a minute. */
    const char *const keys[] = {"connect_timeout", "application_name",
                                "client_encoding", "keepalives_idle",
                                "keepalives_interval", "keepalives_count",
                                "dbname", NULL};
    const char *const vals[] = {"2", "cubed", "UTF8", "30", "10", "3",
                                st->uri, NULL};
    struct pg_conn *c = calloc(1, sizeof *c);
    if (!c)
        return CUBE_ENOMEM;
    c->pg = PQconnectdbParams(keys, vals, 1);
    if (!c->pg || PQstatus(c->pg) != CONNECTION_OK) {
        copy_msg(err, errlen, c->pg ? PQerrorMessage(c->pg) : "out of memory");
        PQfinish(c->pg);
        free(c);
        return CUBE_EUNAVAIL;
    }
    *out = &c->base;
    return CUBE_OK;
}

static void pg_disconnect(struct store_conn *bc)
{
    struct pg_conn *c = pgc(bc);
    PQclear(c->res);
    PQfinish(c->pg);
    free(c);
}

/* n bound values as libpq takes them. */
struct pg_params {
    const char *vals[STORE_MAX_PARAMS];
    int lens[STORE_MAX_PARAMS], fmts[STORE_MAX_PARAMS];
    char ints[STORE_MAX_PARAMS][24];
    int any_bin;
};

/* Writes v in decimal at the end of buf (24 bytes); returns its start. */
static char *int_text(int64_t v, char *buf)
{
    char *p = buf + 23;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    *p = '\0';
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    return p;
}

/* Text values as they are, integers in decimal, SV_BIN in binary format. */
static void bind_vals(const struct store_val *v, int n, struct pg_params *p)
{
    p->any_bin = 0;
    for (int i = 0; i < n; i++) {
        p->vals[i] = v[i].type == SV_TEXT ? v[i].s : NULL;
        p->lens[i] = 0;
        p->fmts[i] = 0;
        if (v[i].type == SV_INT) {
            p->vals[i] = int_text(v[i].i, p->ints[i]);
        } else if (v[i].type == SV_BIN) {
            p->vals[i] = v[i].s;
            p->lens[i] = (int)v[i].i;
            p->fmts[i] = 1;
            p->any_bin = 1;
        }
    }
}

/* The prepared statement name of st: "sN". */
static void stmt_name(char name[16], int st)
{
    char digits[24];
    name[0] = 's';
    strcpy(name + 1, int_text(st, digits));
}

/* Prepares statement st as "sN", with ?N placeholders rewritten as $N. */
static int pg_prepare(struct pg_conn *c, int st, const char *sql,
                      const struct store_val *v, int n)
{
    char name[16];
    Oid types[STORE_MAX_PARAMS];
    char *text = strdup(sql);
    if (!text)
        return CUBE_ENOMEM;
    for (char *p = text; *p; p++)
        if (*p == '?')
            *p = '$';
    for (int i = 0; i < n; i++) /* SV_BIN: the type the SQL casts to */
        types[i] = v[i].type == SV_INT ? OID_INT8 : v[i].type == SV_TEXT ? OID_TEXT : 0;
    stmt_name(name, st);
    PGresult *res = PQprepare(c->pg, name, text, n, types);
    int rc = CUBE_OK;
    if (PQresultStatus(res) != PGRES_COMMAND_OK)
        rc = pg_fail(c, res, text);
    else
        c->prepared[st] = 1;
    PQclear(res);
    free(text);
    return rc;
}

static int pg_query(struct store_conn *bc, int st, const char *sql,
                    const struct store_val *v, int n)
{
    struct pg_conn *c = pgc(bc);
    char name[16];
    struct pg_params p;
    if (n > STORE_MAX_PARAMS)
        return CUBE_EINVAL;
    if (!c->prepared[st]) {
        int rc = pg_prepare(c, st, sql, v, n);
        if (rc != CUBE_OK)
            return rc;
    }
    bind_vals(v, n, &p);
    stmt_name(name, st);
    PGresult *res = PQexecPrepared(c->pg, name, n, p.vals, p.any_bin ? p.lens : NULL,
                                   p.any_bin ? p.fmts : NULL, 0);
    ExecStatusType es = PQresultStatus(res);
    if (es != PGRES_COMMAND_OK && es != PGRES_TUPLES_OK) {
        int rc = pg_fail(c, res, sql);
        PQclear(res);
        return rc;
    }
    c->res = res;
    c->row = -1;
    c->nrows = PQntuples(res);
    return CUBE_OK;
}

static int pg_next(struct store_conn *bc)
{
    struct pg_conn *c = pgc(bc);
    if (c->row + 1 >= c->nrows)
        return 0;
    c->row++;
    return 1;
}

static const char *pg_col_text(struct store_conn *bc, int col)
{
    struct pg_conn *c = pgc(bc);
    const char *v = PQgetvalue(c->res, c->row, col); /* "" for NULL */
    return v ? v : "";
}

static int64_t pg_col_int(struct store_conn *bc, int col)
{
    return strtoll(pg_col_text(bc, col), NULL, 10);
}

static void pg_done(struct store_conn *bc)
{
    struct pg_conn *c = pgc(bc);
    PQclear(c->res);
    c->res = NULL;
}

static int pg_script(struct store_conn *bc, const char *sql)
{
    struct pg_conn *c = pgc(bc);
    PGresult *res = PQexec(c->pg, sql);
    int rc = CUBE_OK;
    if (PQresultStatus(res) != PGRES_COMMAND_OK &&
        PQresultStatus(res) != PGRES_TUPLES_OK)
        rc = pg_fail(c, res, "script");
    PQclear(res);
    return rc;
}

/* ---- pipelines -------------------------------------------------------- */

/* Reads one pipelined statement's outcome into it. 0, or -1 when the
 * connection is no longer in a known state. */
static int pipe_read(struct pg_conn *c, struct store_pipe_item *it, const char *sql)
{
    PGresult *res = PQgetResult(c->pg);
    if (!res)
        return -1;
    ExecStatusType es = PQresultStatus(res);
    if (es == PGRES_COMMAND_OK || es == PGRES_TUPLES_OK) {
        it->rc = CUBE_OK;
        it->rows = PQntuples(res);
        if (it->rows > 0 && PQnfields(res) > 0)
            it->val = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        for (int r = 0; it->vals && r < it->rows && r < it->max_vals; r++)
            it->vals[r] = strtoll(PQgetvalue(res, r, 0), NULL, 10);
    } else {
        it->rc = es == PGRES_PIPELINE_ABORTED ? CUBE_EIO : pg_fail(c, res, sql);
    }
    PQclear(res);
    if (c->base.broken || es == PGRES_PIPELINE_SYNC)
        return -1;
    res = PQgetResult(c->pg); /* NULL: the end of this statement's results */
    PQclear(res);
    return res ? -1 : 0;
}

/* Sends the items and a sync, then reads every outcome. 0, or -1 when the
 * connection is no longer in a known state. */
static int pipe_run(struct pg_conn *c, char *const *sql,
                    struct store_pipe_item *it, int n)
{
    char name[16];
    struct pg_params p;
    for (int i = 0; i < n; i++) {
        bind_vals(it[i].v, it[i].n, &p);
        stmt_name(name, it[i].st);
        if (!PQsendQueryPrepared(c->pg, name, it[i].n, p.vals, p.any_bin ? p.lens : NULL,
                                 p.any_bin ? p.fmts : NULL, 0))
            return -1;
    }
    if (!PQpipelineSync(c->pg))
        return -1;
    for (int i = 0; i < n; i++)
        if (pipe_read(c, &it[i], sql[it[i].st]) != 0)
            return -1;
    PGresult *res = PQgetResult(c->pg);
    int ok = PQresultStatus(res) == PGRES_PIPELINE_SYNC;
    PQclear(res);
    return ok && PQexitPipelineMode(c->pg) ? 0 : -1;
}

static int pg_pipeline(struct store_conn *bc, char *const *sql,
                       struct store_pipe_item *it, int n)
{
    struct pg_conn *c = pgc(bc);
    for (int i = 0; i < n; i++) {
        if (it[i].n > STORE_MAX_PARAMS)
            return CUBE_EINVAL;
        if (!c->prepared[it[i].st]) {
            int rc = pg_prepare(c, it[i].st, sql[it[i].st], it[i].v, it[i].n);
            if (rc != CUBE_OK)
                return rc;
        }
    }
    if (!PQenterPipelineMode(c->pg) || pipe_run(c, sql, it, n) != 0) {
        if (!c->base.broken)
            pg_fail(c, NULL, "pipeline"); /* logs it, marks c broken */
        c->base.broken = 1;
        return CUBE_EUNAVAIL;
    }
    if (PQtransactionStatus(c->pg) != PQTRANS_IDLE) {
        /* A failed item left the transaction aborted: end it. */
        PGresult *res = PQexec(c->pg, "ROLLBACK");
        if (PQresultStatus(res) != PGRES_COMMAND_OK)
            c->base.broken = 1;
        PQclear(res);
    }
    return c->base.broken ? CUBE_EUNAVAIL : CUBE_OK;
}

const struct store_driver store_pg_driver = {
    .name = "postgres",
    .dialect = STORE_PG,
    .separate_writer = 0,
    .init = pg_init,
    .fini = pg_fini,
    .connect = pg_connect,
    .disconnect = pg_disconnect,
    .query = pg_query,
    .next = pg_next,
    .col_text = pg_col_text,
    .col_int = pg_col_int,
    .done = pg_done,
    .script = pg_script,
    .pipeline = pg_pipeline,
};
