/* store_fixture.c — see store_fixture.h. */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <cube/cube_plugin.h>
#include <sqlite3.h>

#include "store_fixture.h"

static int serial;

/* ---- fixture ------------------------------------------------------- */

struct cube_store *open_store(struct fx *f, unsigned pool)
{
    char err[512];
    struct cube_store *s = NULL;
    int rc = cube_store_open(f->url, f->dir, pool, &s, err, sizeof err);
    if (rc != CUBE_OK)
        print_error("open %s: %d %s\n", f->url, rc, err);
    assert_int_equal(rc, CUBE_OK);
    return s;
}

static void quiet(void *arg, const char *message)
{
    (void)arg, (void)message;
}

PGconn *pg_connect_url(const char *url)
{
    PGconn *pg = PQconnectdb(url);
    PQsetNoticeProcessor(pg, quiet, NULL);
    if (PQstatus(pg) != CONNECTION_OK)
        print_error("connect %s: %s", url, PQerrorMessage(pg));
    assert_int_equal(PQstatus(pg), CONNECTION_OK);
    return pg;
}

/* Runs sql on the database directly, not through the store. */
void raw_exec(struct fx *f, const char *url, const char *sql)
{
    if (f->pg) {
        PGconn *pg = pg_connect_url(url);
        PGresult *r = PQexec(pg, sql);
        if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
            print_error("%s: %s", sql, PQerrorMessage(pg));
        assert_true(PQresultStatus(r) == PGRES_COMMAND_OK ||
                    PQresultStatus(r) == PGRES_TUPLES_OK);
        PQclear(r);
        PQfinish(pg);
        return;
    }
    char path[256];
    sqlite3 *db = NULL;
    snprintf(path, sizeof path, "%s/cube.db", f->dir);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

int64_t raw_int(struct fx *f, const char *sql)
{
    int64_t v = -1;
    if (f->pg) {
        PGconn *pg = pg_connect_url(f->url);
        PGresult *r = PQexec(pg, sql);
        assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
        v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        PQclear(r);
        PQfinish(pg);
        return v;
    }
    char path[256];
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    snprintf(path, sizeof path, "%s/cube.db", f->dir);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

int setup_sqlite(void **state)
{
    struct fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/cube-store-test-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->url, sizeof f->url, "sqlite");
    f->s = open_store(f, 4);
    *state = f;
    return 0;
}

int setup_pg(void **state)
{
    struct fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->pg = 1;
    *state = f;
    f->base = getenv("CUBE_TEST_PG_URL");
    if (!f->base || !*f->base) {
        f->base = NULL;
        return 0;
    }
    snprintf(f->schema, sizeof f->schema, "cube_t_%d_%d", (int)getpid(), ++serial);
    snprintf(f->url, sizeof f->url, "%s%soptions=-csearch_path%%3D%s", f->base,
             strchr(f->base, '?') ? "&" : "?", f->schema);
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE SCHEMA %s", f->schema);
    raw_exec(f, f->base, sql);
    f->s = open_store(f, 4);
    return 0;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

int teardown(void **state)
{
    struct fx *f = *state;
    cube_store_close(f->s);
    if (f->pg && f->base) {
        char sql[128];
        snprintf(sql, sizeof sql, "DROP SCHEMA %s CASCADE", f->schema);
        raw_exec(f, f->base, sql);
    } else if (!f->pg) {
        nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    }
    free(f);
    return 0;
}

/* The case's fixture; skips PostgreSQL cases when there is no server. */
struct fx *fx(void **state)
{
    struct fx *f = *state;
    if (f->pg && !f->base) {
        print_message("skip: CUBE_TEST_PG_URL is not set"
                      " (run under tests/pg/with_pg.sh)\n");
        skip();
    }
    assert_non_null(f->s);
    return f;
}
