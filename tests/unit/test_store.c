/* test_store.c — the object store, the same cases on both drivers: SQLite
 * (always, a fresh data dir per case) and PostgreSQL (a fresh schema per
 * case on the server named by CUBE_TEST_PG_URL; tests/pg/with_pg.sh starts
 * one; without it those cases skip, saying why). Opening and migrating,
 * CRUD, paging, owners, events, URLs and a PostgreSQL outage; concurrent
 * writers are test_store_concurrency.c's. */
#include <ftw.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <cube/cube_plugin.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include "store/store.h"
#include "store_fixture.h"
#include "store_objects.h"

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* ---- cases ------------------------------------------------------------ */

static void test_open_reopen(void **state)
{
    struct fx *f = fx(state);
    assert_string_equal(cube_store_driver(f->s), f->pg ? "postgres" : "sqlite");
    assert_int_equal(cube_store_schema_version(), 3);
    assert_int_equal(cube_store_ping(f->s), CUBE_OK);
    assert_int_equal(put(f->s, "widget", "p", "a", 1), CUBE_OK);
    for (int i = 0; i < 2; i++) {
        cube_store_close(f->s);
        f->s = open_store(f, 2);
        struct cube_store_obj o = {0};
        assert_int_equal(cube_store_get(f->s, "widget", "p", "a", &o), CUBE_OK);
        assert_int_equal(o.rv, 1);
        cube_store_obj_clear(&o);
    }
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM cube_schema"), 3);
    assert_int_equal(raw_int(f, "SELECT MAX(version) FROM cube_schema"), 3);
}

static void test_newer_schema_refused(void **state)
{
    struct fx *f = fx(state);
    cube_store_close(f->s);
    f->s = NULL;
    raw_exec(f, f->url, "INSERT INTO cube_schema (version) VALUES (7)");
    char err[512] = "";
    struct cube_store *s = NULL;
    int rc = cube_store_open(f->url, f->dir, 2, &s, err, sizeof err);
    assert_int_equal(rc, CUBE_EVERSION);
    assert_null(s);
    assert_non_null(strstr(err, "database schema version 7 is newer than this"
                                " cubed (knows 3): upgrade cubed"));
    /* The refusal changed nothing. */
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM cube_schema"), 4);
}

static void test_crud(void **state)
{
    struct fx *f = fx(state);
    struct cube_store_obj o = {0};
    const char *owners[] = {"owner-1"};
    assert_int_equal(put_owned(f->s, "widget", "p1", "a", 1, owners, 1), CUBE_OK);
    assert_int_equal(put(f->s, "node", "", "n1", 2), CUBE_OK); /* cluster-scoped */
    assert_int_equal(cube_store_get(f->s, "widget", "p1", "a", &o), CUBE_OK);
    assert_string_equal(o.kind, "widget");
    assert_string_equal(o.project, "p1");
    assert_string_equal(o.name, "a");
    assert_string_equal(o.uid, "uid:widget/p1/a");
    assert_int_equal(o.rv, 1);
    assert_string_equal(o.doc, "{\"kind\":\"widget\",\"name\":\"a\",\"rv\":1}");
    cube_store_obj_clear(&o);
    assert_null(o.doc);

    assert_int_equal(upd(f->s, "widget", "p1", "a", 5, "{\"v\":5}", 1, NULL, 0), CUBE_OK);
    assert_int_equal(upd(f->s, "widget", "p1", "a", 6, "{\"v\":6}", 0, NULL, 0), CUBE_OK);
    assert_int_equal(cube_store_get(f->s, "widget", "p1", "a", &o), CUBE_OK);
    assert_int_equal(o.rv, 6);
    assert_string_equal(o.doc, "{\"v\":6}");
    assert_string_equal(o.uid, "uid:widget/p1/a"); /* update keeps the uid */
    cube_store_obj_clear(&o);

    int64_t n = -1;
    assert_int_equal(cube_store_count(f->s, "widget", "p1", &n), CUBE_OK);
    assert_int_equal(n, 1);
    assert_int_equal(cube_store_count(f->s, "widget", "p2", &n), CUBE_OK);
    assert_int_equal(n, 0);
    assert_int_equal(cube_store_count(f->s, "node", NULL, &n), CUBE_OK);
    assert_int_equal(n, 1);
    assert_int_equal(cube_store_get(f->s, "node", "", "n1", &o), CUBE_OK);
    cube_store_obj_clear(&o);

    assert_int_equal(cube_store_delete(f->s, "widget", "p1", "a", 6, 7, NULL), CUBE_OK);
    assert_int_equal(cube_store_get(f->s, "widget", "p1", "a", &o), CUBE_ENOTFOUND);
    assert_int_equal(cube_store_delete(f->s, "node", "", "n1", 0, 8, NULL), CUBE_OK);
    assert_int_equal(cube_store_count(f->s, "widget", NULL, &n), CUBE_OK);
    assert_int_equal(n, 0);
}

static void test_errors(void **state)
{
    struct fx *f = fx(state);
    struct cube_store_obj o = {0};
    assert_int_equal(put(f->s, "widget", "p", "a", 1), CUBE_OK);
    assert_int_equal(put(f->s, "widget", "p", "a", 2), CUBE_EEXIST);
    /* The same uid under another name. */
    struct cube_store_obj dup = {"widget", "p", "b", "uid:widget/p/a", 3, "{}"};
    assert_int_equal(cube_store_create(f->s, &dup, NULL, 0, NULL), CUBE_EEXIST);
    assert_int_equal(upd(f->s, "widget", "p", "a", 4, "{}", 99, NULL, 0), CUBE_ECONFLICT);
    assert_int_equal(upd(f->s, "widget", "p", "zz", 4, "{}", 0, NULL, 0), CUBE_ENOTFOUND);
    assert_int_equal(upd(f->s, "widget", "p", "zz", 4, "{}", 1, NULL, 0), CUBE_ENOTFOUND);
    assert_int_equal(cube_store_delete(f->s, "widget", "p", "a", 99, 5, NULL), CUBE_ECONFLICT);
    assert_int_equal(cube_store_delete(f->s, "widget", "p", "zz", 0, 5, NULL), CUBE_ENOTFOUND);
    assert_int_equal(cube_store_get(f->s, "widget", "q", "a", &o), CUBE_ENOTFOUND);
    /* Failed writes left nothing behind and the store still works. */
    assert_int_equal(cube_store_get(f->s, "widget", "p", "a", &o), CUBE_OK);
    assert_int_equal(o.rv, 1);
    cube_store_obj_clear(&o);
    assert_int_equal(cube_store_get(f->s, "widget", "p", "b", &o), CUBE_ENOTFOUND);
    int64_t rv = -1;
    assert_int_equal(cube_store_max_rv(f->s, &rv), CUBE_OK);
    assert_int_equal(rv, 1);

    assert_int_equal(cube_store_create(f->s, NULL, NULL, 0, NULL), CUBE_EINVAL);
    assert_int_equal(cube_store_get(f->s, NULL, "p", "a", &o), CUBE_EINVAL);
    assert_int_equal(cube_store_get(f->s, "widget", "p", "", &o), CUBE_EINVAL);
    assert_int_equal(cube_store_list(f->s, "widget", NULL, NULL, NULL, 0, NULL, NULL),
                     CUBE_EINVAL);
    const char *bad_owners[] = {NULL};
    assert_int_equal(put_owned(f->s, "widget", "p", "c", 1, bad_owners, 1), CUBE_EINVAL);
    assert_int_equal(cube_store_ping(NULL), CUBE_EINVAL);
}

/* Lists kind/project in pages of `limit`, appending to c. */
static void list_paged(struct cube_store *s, const char *project, size_t limit,
                       unsigned pause_ms, struct coll *c)
{
    char ap[256] = "", an[256] = "";
    int first = 1;
    for (;;) {
        size_t before = c->n;
        assert_int_equal(cube_store_list(s, "widget", project, first ? NULL : ap,
                                         first ? NULL : an, limit, collect, c),
                         CUBE_OK);
        size_t got = c->n - before;
        assert_true(got <= limit);
        if (got < limit)
            return;
        const char *last = c->keys[c->n - 1];
        const char *slash = strchr(last, '/');
        snprintf(ap, sizeof ap, "%.*s", (int)(slash - last), last);
        snprintf(an, sizeof an, "%s", slash + 1);
        first = 0;
        if (pause_ms)
            sleep_ms(pause_ms);
    }
}

static void test_list_paging(void **state)
{
    struct fx *f = fx(state);
    char name[32];
    for (int i = 19; i >= 0; i--) {
        snprintf(name, sizeof name, "n%02d", i);
        assert_int_equal(put(f->s, "widget", "p1", name, i + 1), CUBE_OK);
    }
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "m%d", i);
        assert_int_equal(put(f->s, "widget", "p2", name, 100 + i), CUBE_OK);
        assert_int_equal(put(f->s, "gadget", "p1", name, 200 + i), CUBE_OK);
    }
    struct coll all = {0}, paged = {0}, proj = {0}, stop = {.stop_after = 3};
    assert_int_equal(cube_store_list(f->s, "widget", NULL, NULL, NULL, 0, collect, &all),
                     CUBE_OK);
    assert_int_equal(all.n, 25);
    for (size_t i = 1; i < all.n; i++)
        assert_true(strcmp(all.keys[i - 1], all.keys[i]) < 0);
    assert_string_equal(all.keys[0], "p1/n00");
    assert_string_equal(all.keys[20], "p2/m0");
    assert_int_equal(all.rvs[0], 1);

    list_paged(f->s, NULL, 7, 0, &paged);
    assert_int_equal(paged.n, 25);
    for (size_t i = 0; i < all.n; i++)
        assert_string_equal(paged.keys[i], all.keys[i]);
    list_paged(f->s, "p1", 7, 0, &proj);
    assert_int_equal(proj.n, 20);
    assert_string_equal(proj.keys[19], "p1/n19");

    assert_int_equal(cube_store_list(f->s, "widget", "p1", NULL, NULL, 0, collect, &stop),
                     CUBE_OK);
    assert_int_equal(stop.n, 3);
    /* A cursor with only a project: after ("p1", ""), i.e. all of p1. */
    struct coll after = {0};
    assert_int_equal(cube_store_list(f->s, "widget", NULL, "p1", NULL, 0, collect, &after),
                     CUBE_OK);
    assert_int_equal(after.n, 25);
    coll_free(&all), coll_free(&paged), coll_free(&proj), coll_free(&stop),
        coll_free(&after);
}

struct inserter {
    struct cube_store *s;
    int round, failures;
};

/* Inserts names that sort before, between and after the listed ones. */
static void *insert_around(void *arg)
{
    struct inserter *in = arg;
    static const char *const projects[] = {"a", "p", "z"};
    char name[32];
    for (int i = 0; i < 150; i++) {
        if (i % 2)
            snprintf(name, sizeof name, "m%03d-x%d", 99 - i % 100, in->round);
        else
            snprintf(name, sizeof name, "%c%03d-%d", i % 4 ? 'z' : 'a', i, in->round);
        if (put(in->s, "widget", projects[i % 3], name, 1000 + i) != CUBE_OK)
            in->failures++;
        if (i % 10 == 0)
            sleep_ms(1);
    }
    return NULL;
}

static void test_paging_stability(void **state)
{
    struct fx *f = fx(state);
    char name[32], key[64];
    for (int i = 0; i < 100; i++) {
        snprintf(name, sizeof name, "m%03d", i);
        assert_int_equal(put(f->s, "widget", "p", name, i + 1), CUBE_OK);
    }
    for (int round = 0; round < 2; round++) {
        struct inserter in = {.s = f->s, .round = round};
        struct coll c = {0};
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, insert_around, &in), 0);
        list_paged(f->s, round ? "p" : NULL, 7, 1, &c);
        pthread_join(t, NULL);
        assert_int_equal(in.failures, 0);
        for (int i = 0; i < 100; i++) {
            snprintf(key, sizeof key, "p/m%03d", i);
            assert_int_equal(count_key(&c, key), 1);
        }
        for (size_t i = 1; i < c.n; i++)
            assert_true(strcmp(c.keys[i - 1], c.keys[i]) < 0); /* no duplicates */
        coll_free(&c);
    }
}

static void test_owners(void **state)
{
    struct fx *f = fx(state);
    const char *u1[] = {"U1"}, *u12[] = {"U1", "U2"}, *dup[] = {"U1", "U1"};
    const char *u3[] = {"U3"};
    assert_int_equal(put_owned(f->s, "widget", "p", "c1", 1, u1, 1), CUBE_OK);
    assert_int_equal(put_owned(f->s, "widget", "p", "c2", 2, u12, 2), CUBE_OK);
    assert_int_equal(put_owned(f->s, "widget", "p", "c3", 3, NULL, 0), CUBE_OK);
    assert_int_equal(put_owned(f->s, "gadget", "q", "c4", 4, dup, 2), CUBE_OK);
    struct coll c = {0};
    assert_int_equal(cube_store_list_owned(f->s, "U1", collect, &c), CUBE_OK);
    assert_int_equal(c.n, 3); /* ordered by kind, project, name */
    assert_string_equal(c.keys[0], "q/c4");
    assert_string_equal(c.keys[1], "p/c1");
    assert_string_equal(c.keys[2], "p/c2");
    assert_int_equal(c.rvs[2], 2);
    coll_free(&c);
    assert_int_equal(upd(f->s, "widget", "p", "c2", 5, "{}", 2, u3, 1), CUBE_OK);
    assert_int_equal(cube_store_list_owned(f->s, "U2", collect, &c), CUBE_OK);
    assert_int_equal(c.n, 0);
    assert_int_equal(cube_store_list_owned(f->s, "U3", collect, &c), CUBE_OK);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.rvs[0], 5);
    coll_free(&c);
    assert_int_equal(cube_store_delete(f->s, "widget", "p", "c1", 0, 6, NULL), CUBE_OK);
    assert_int_equal(cube_store_list_owned(f->s, "U1", collect, &c), CUBE_OK);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.keys[0], "q/c4");
    coll_free(&c);
    /* A failed update leaves the owners alone. */
    assert_int_equal(upd(f->s, "gadget", "q", "c4", 9, "{}", 1, u3, 1), CUBE_ECONFLICT);
    assert_int_equal(cube_store_list_owned(f->s, "U1", collect, &c), CUBE_OK);
    assert_int_equal(c.n, 1);
    coll_free(&c);
}

static void test_events(void **state)
{
    struct fx *f = fx(state);
    static const char *const rows[][3] = {
        {"p1", "widget", "a"}, {"p1", "widget", "b"}, {"p2", "widget", "a"},
        {"p1", "widget", "a"}, {"", "node", "n1"},    {"p1", "gadget", "a"},
        {"p1", "widget", "b"}, {"p1", "widget", "a"},
    };
    int64_t ids[8], prev = 0;
    char doc[64];
    for (int i = 0; i < 8; i++) {
        snprintf(doc, sizeof doc, "{\"i\":%d}", i);
        assert_int_equal(cube_store_event_add(f->s, rows[i][0], rows[i][1], rows[i][2],
                                              doc, &ids[i]),
                         CUBE_OK);
        assert_true(ids[i] > prev);
        prev = ids[i];
    }
    struct evs *e = calloc(1, sizeof *e);
    assert_non_null(e);
    assert_int_equal(list_events(f->s, NULL, NULL, NULL, 0, 0, e), 8);
    assert_int_equal(e->ids[0], ids[7]);
    assert_string_equal(e->docs[0], "{\"i\":7}");
    assert_int_equal(list_events(f->s, "p1", NULL, NULL, 0, 0, e), 6);
    assert_int_equal(list_events(f->s, "p1", "widget", "a", 0, 0, e), 3);
    assert_int_equal(e->ids[2], ids[0]);
    assert_int_equal(list_events(f->s, NULL, "widget", NULL, 0, 0, e), 6);
    assert_int_equal(list_events(f->s, NULL, NULL, "a", 0, 0, e), 5);
    assert_int_equal(list_events(f->s, "", NULL, NULL, 0, 0, e), 1);
    assert_string_equal(e->docs[0], "{\"i\":4}");
    assert_int_equal(list_events(f->s, "p1", NULL, NULL, ids[3], 0, e), 2);
    assert_int_equal(e->ids[0], ids[1]);
    assert_int_equal(list_events(f->s, NULL, NULL, NULL, 0, 2, e), 2);
    assert_int_equal(list_events(f->s, "p1", "widget", "a", ids[7], 1, e), 1);
    assert_int_equal(e->ids[0], ids[3]);
    for (int i = 0; i < 120; i++)
        assert_int_equal(cube_store_event_add(f->s, "bulk", "widget", "x", "{}", NULL),
                         CUBE_OK);
    assert_int_equal(list_events(f->s, "bulk", NULL, NULL, 0, 0, e), 100);
    memset(e, 0, sizeof *e);
    e->stop_after = 4;
    assert_int_equal(cube_store_event_list(f->s, NULL, NULL, NULL, 0, 50,
                                           collect_event, e),
                     CUBE_OK);
    assert_int_equal(e->n, 4);
    free(e);
}

static void test_max_rv(void **state)
{
    struct fx *f = fx(state);
    int64_t rv = -1;
    assert_int_equal(cube_store_max_rv(f->s, &rv), CUBE_OK);
    assert_int_equal(rv, 0);
    assert_int_equal(put(f->s, "widget", "p", "a", 5), CUBE_OK);
    assert_int_equal(put(f->s, "widget", "p", "b", 10), CUBE_OK);
    assert_int_equal(cube_store_max_rv(f->s, &rv), CUBE_OK);
    assert_int_equal(rv, 10);
    assert_int_equal(cube_store_delete(f->s, "widget", "p", "b", 10, 11, NULL), CUBE_OK);
    assert_int_equal(cube_store_max_rv(f->s, &rv), CUBE_OK);
    assert_int_equal(rv, 11);
    assert_int_equal(cube_store_delete(f->s, "widget", "p", "a", 5, 12, NULL), CUBE_OK);
    assert_int_equal(cube_store_max_rv(f->s, &rv), CUBE_OK);
    assert_int_equal(rv, 12); /* empty, but the high-water mark stays */
    assert_int_equal(put(f->s, "widget", "p", "c", 3), CUBE_OK);
    assert_int_equal(cube_store_delete(f->s, "widget", "p", "c", 3, 4, NULL), CUBE_OK);
    assert_int_equal(cube_store_max_rv(f->s, &rv), CUBE_OK);
    assert_int_equal(rv, 12); /* a lower delete rv never lowers it */
    assert_int_equal(put(f->s, "widget", "p", "d", 13), CUBE_OK);
    assert_int_equal(upd(f->s, "widget", "p", "d", 4000000000000LL, "{}", 13, NULL, 0),
                     CUBE_OK);
    cube_store_close(f->s);
    f->s = open_store(f, 1);
    assert_int_equal(cube_store_max_rv(f->s, &rv), CUBE_OK);
    assert_int_equal(rv, 4000000000000LL);
}

static void test_unicode(void **state)
{
    struct fx *f = fx(state);
    const char *project = "проект-ü";
    const char *name = "名前-ünïcødé-🚀";
    const char *doc = "{\"emoji\":\"🚀👩‍🔬\",\"zh\":\"中文\",\"q\":\"it's \\\"quoted\\\"\","
                      "\"raw\":\"tab\there\nnewline\",\"sql\":\"'; DROP TABLE objects; --\"}";
    struct cube_store_obj o = {"widget", (char *)project, (char *)name, "uid-ü-1", 1,
                               (char *)doc}, got = {0};
    const char *owner[] = {"owner-✓"};
    assert_int_equal(cube_store_create(f->s, &o, owner, 1, NULL), CUBE_OK);
    assert_int_equal(cube_store_get(f->s, "widget", project, name, &got), CUBE_OK);
    assert_string_equal(got.project, project);
    assert_string_equal(got.name, name);
    assert_string_equal(got.uid, "uid-ü-1");
    assert_string_equal(got.doc, doc);
    cube_store_obj_clear(&got);
    struct coll c = {0};
    assert_int_equal(cube_store_list_owned(f->s, "owner-✓", collect, &c), CUBE_OK);
    assert_int_equal(c.n, 1);
    coll_free(&c);
    /* Byte order on both drivers. */
    static const char *const names[] = {"中", "~", "a", "🚀", "é", "Z", "z"};
    for (int i = 0; i < 7; i++)
        assert_int_equal(put(f->s, "thing", "p", names[i], i + 1), CUBE_OK);
    assert_int_equal(cube_store_list(f->s, "thing", "p", NULL, NULL, 0, collect, &c),
                     CUBE_OK);
    assert_int_equal(c.n, 7);
    static const char *const sorted[] = {"p/Z", "p/a", "p/z", "p/~", "p/é", "p/中", "p/🚀"};
    for (int i = 0; i < 7; i++)
        assert_string_equal(c.keys[i], sorted[i]);
    coll_free(&c);
    struct evs *e = calloc(1, sizeof *e);
    assert_int_equal(cube_store_event_add(f->s, project, "widget", name, "{\"m\":\"✓ 中\"}",
                                          NULL),
                     CUBE_OK);
    assert_int_equal(list_events(f->s, project, "widget", name, 0, 0, e), 1);
    assert_string_equal(e->docs[0], "{\"m\":\"✓ 中\"}");
    free(e);
}

/* URL forms and password stripping (driver-independent, run once). */
static void test_urls(void **state)
{
    struct fx *f = fx(state);
    char err[512], url[256], path[256];
    struct cube_store *s = NULL;
    assert_int_equal(cube_store_open("sqlite:sub/dir/x.db", f->dir, 1, &s, err, sizeof err),
                     CUBE_OK);
    cube_store_close(s);
    snprintf(path, sizeof path, "%s/sub/dir/x.db", f->dir);
    assert_int_equal(access(path, F_OK), 0);
    snprintf(url, sizeof url, "sqlite://%s/abs.db", f->dir);
    assert_int_equal(cube_store_open(url, NULL, 1, &s, err, sizeof err), CUBE_OK);
    cube_store_close(s);
    snprintf(path, sizeof path, "%s/abs.db", f->dir);
    assert_int_equal(access(path, F_OK), 0);
    assert_int_equal(cube_store_open("sqlite://host/x.db", f->dir, 1, &s, err, sizeof err),
                     CUBE_EINVAL);
    assert_int_equal(cube_store_open("sqlite:rel.db", NULL, 1, &s, err, sizeof err),
                     CUBE_EINVAL);
    assert_non_null(strstr(err, "data_dir"));
    assert_int_equal(cube_store_open("mysql://x/y", f->dir, 1, &s, err, sizeof err),
                     CUBE_EINVAL);
    assert_null(s);
    int rc = cube_store_open("postgres://cube:s3cret@127.0.0.1:1/db?sslmode=disable"
                             "&password=an0ther",
                             NULL, 1, &s, err, sizeof err);
    assert_int_equal(rc, CUBE_EUNAVAIL);
    assert_non_null(strstr(err, "postgres://cube@127.0.0.1:1/db?sslmode=disable&password="));
    assert_null(strstr(err, "s3cret"));
    assert_null(strstr(err, "an0ther"));
}

/* Runs tests/pg/pg.sh ACTION on the test server. */
static void pg_ctl(const char *action)
{
    const char *root = getenv("CUBE_SOURCE_ROOT");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s/tests/pg/pg.sh' %s '%s' >/dev/null",
             root ? root : ".", action, getenv("CUBE_TEST_PG_DIR"));
    assert_int_equal(system(cmd), 0);
}

static void test_pg_outage(void **state)
{
    struct fx *f = fx(state);
    if (!getenv("CUBE_TEST_PG_DIR")) {
        print_message("skip: CUBE_TEST_PG_DIR is not set (run under"
                      " tests/pg/with_pg.sh)\n");
        skip();
    }
    struct cube_store_obj o = {0};
    int64_t rv;
    assert_int_equal(put(f->s, "widget", "p", "a", 1), CUBE_OK);
    pg_ctl("stop");
    assert_int_equal(cube_store_get(f->s, "widget", "p", "a", &o), CUBE_EUNAVAIL);
    assert_int_equal(cube_store_ping(f->s), CUBE_EUNAVAIL);
    assert_int_equal(put(f->s, "widget", "p", "b", 2), CUBE_EUNAVAIL);
    assert_int_equal(cube_store_max_rv(f->s, &rv), CUBE_EUNAVAIL);
    pg_ctl("start");
    assert_int_equal(cube_store_get(f->s, "widget", "p", "a", &o), CUBE_OK);
    cube_store_obj_clear(&o);
    assert_int_equal(put(f->s, "widget", "p", "b", 2), CUBE_OK);
    /* A restart while connections sit idle: the first call may still meet
     * a dead connection; the next one works. */
    pg_ctl("restart");
    int rc = cube_store_get(f->s, "widget", "p", "b", &o);
    assert_true(rc == CUBE_OK || rc == CUBE_EUNAVAIL);
    cube_store_obj_clear(&o);
    assert_int_equal(cube_store_get(f->s, "widget", "p", "b", &o), CUBE_OK);
    cube_store_obj_clear(&o);
    assert_int_equal(put(f->s, "widget", "p", "c", 3), CUBE_OK);
    int64_t n = 0;
    assert_int_equal(cube_store_count(f->s, "widget", "p", &n), CUBE_OK);
    assert_int_equal(n, 3);
    assert_int_equal(cube_store_ping(f->s), CUBE_OK);
}

/* Job metrics (migration 3): a batch, the bound, filters, exact values,
 * delete and the purge of orphans. */
struct pts { int n; int64_t steps[16]; double values[16]; };

static int collect_pt(void *cls, const struct cube_store_point *p)
{
    struct pts *c = cls;
    if (c->n < 16)
        c->steps[c->n] = p->step, c->values[c->n] = p->value;
    c->n++;
    return 0;
}

static void test_points(void **state)
{
    struct fx *f = fx(state);
    const struct cube_store_point batch[] = {
        {"loss", 1, 0.1, 1000}, {"acc", 1, 0.5, 1000}, {"loss", 2, 0.30000000000000004, 2000},
        {"loss", 3, -1e-300, 3000},
    };
    int64_t total = 0;
    assert_int_equal(cube_store_points_add(f->s, "uid-j", batch, 4, 10, &total), CUBE_OK);
    assert_int_equal(total, 4);
    assert_int_equal(cube_store_points_add(f->s, "uid-j", batch, 4, 7, &total), CUBE_ETOOBIG);
    struct pts c = {0};
    assert_int_equal(cube_store_points_list(f->s, "uid-j", NULL, -1, collect_pt, &c), CUBE_OK);
    assert_int_equal(c.n, 4);                       /* acc first: by name, then step */
    c = (struct pts){0};
    assert_int_equal(cube_store_points_list(f->s, "uid-j", "loss", 1, collect_pt, &c), CUBE_OK);
    assert_int_equal(c.n, 2);
    assert_int_equal(c.steps[0], 2);
    assert_true(c.values[0] == 0.30000000000000004 && c.values[1] == -1e-300);
    struct cube_store_obj o = {"Job", "p", "j", "uid-j", 1, "{}"};
    assert_int_equal(cube_store_create(f->s, &o, NULL, 0, NULL), CUBE_OK);
    assert_int_equal(cube_store_points_add(f->s, "uid-gone", batch, 1, 10, NULL), CUBE_OK);
    assert_int_equal(cube_store_points_purge(f->s), CUBE_OK);   /* uid-gone has no Job */
    c = (struct pts){0};
    cube_store_points_list(f->s, "uid-gone", NULL, -1, collect_pt, &c);
    assert_int_equal(c.n, 0);
    c = (struct pts){0};
    cube_store_points_list(f->s, "uid-j", NULL, -1, collect_pt, &c);
    assert_int_equal(c.n, 4);
    assert_int_equal(cube_store_points_delete(f->s, "uid-j"), CUBE_OK);
    c = (struct pts){0};
    cube_store_points_list(f->s, "uid-j", NULL, -1, collect_pt, &c);
    assert_int_equal(c.n, 0);
}

#define CASES(setup)                                                              \
    cmocka_unit_test_setup_teardown(test_open_reopen, setup, teardown),           \
    cmocka_unit_test_setup_teardown(test_newer_schema_refused, setup, teardown),  \
    cmocka_unit_test_setup_teardown(test_crud, setup, teardown),                  \
    cmocka_unit_test_setup_teardown(test_errors, setup, teardown),                \
    cmocka_unit_test_setup_teardown(test_list_paging, setup, teardown),           \
    cmocka_unit_test_setup_teardown(test_paging_stability, setup, teardown),      \
    cmocka_unit_test_setup_teardown(test_owners, setup, teardown),                \
    cmocka_unit_test_setup_teardown(test_events, setup, teardown),                \
    cmocka_unit_test_setup_teardown(test_max_rv, setup, teardown),                \
    cmocka_unit_test_setup_teardown(test_unicode, setup, teardown),               \
    cmocka_unit_test_setup_teardown(test_points, setup, teardown)

int main(void)
{
    const struct CMUnitTest sqlite_tests[] = {
        CASES(setup_sqlite),
        cmocka_unit_test_setup_teardown(test_urls, setup_sqlite, teardown),
    };
    const struct CMUnitTest pg_tests[] = {
        CASES(setup_pg),
        cmocka_unit_test_setup_teardown(test_pg_outage, setup_pg, teardown),
    };
    int failed = cmocka_run_group_tests_name("store_sqlite", sqlite_tests, NULL, NULL);
    failed += cmocka_run_group_tests_name("store_postgres", pg_tests, NULL, NULL);
    return failed;
}
