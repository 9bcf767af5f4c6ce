/* store_fixture.h — the fixture the store's unit tests share: each case
 * runs on SQLite (a fresh data dir) and on PostgreSQL (a fresh schema on
 * the server named by CUBE_TEST_PG_URL; tests/pg/with_pg.sh starts one;
 * without it the PostgreSQL cases skip, saying why). Test-only. */
#ifndef CUBE_STORE_FIXTURE_H
#define CUBE_STORE_FIXTURE_H

#include <stdint.h>

#include <libpq-fe.h>

#include "store/store.h"

struct fx {
    int pg;
    const char *base;  /* PostgreSQL: the server's URL */
    char schema[64];   /* PostgreSQL: this case's schema */
    char dir[64];      /* SQLite: this case's data dir */
    char url[1024];
    struct cube_store *s;
};

/* Opens f->url with a pool of `pool` connections (fails the case on error). */
struct cube_store *open_store(struct fx *f, unsigned pool);
/* A libpq connection to url that prints no notices; fails the case on error. */
PGconn *pg_connect_url(const char *url);
/* Runs sql on the case's database directly (url: PostgreSQL's, to reach the
 * server outside the case's schema). */
void raw_exec(struct fx *f, const char *url, const char *sql);
/* Runs a query answering one integer, directly. */
int64_t raw_int(struct fx *f, const char *sql);
/* cmocka set-ups (a fresh SQLite store / PostgreSQL schema) and tear-down. */
int setup_sqlite(void **state);
int setup_pg(void **state);
int teardown(void **state);
/* The case's fixture; skips PostgreSQL cases when there is no server. */
struct fx *fx(void **state);

#endif
