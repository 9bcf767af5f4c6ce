/* test_store.c — the object store, the same cases on both drivers: SQLite
 * (always, a fresh data dir per case) and PostgreSQL (a fresh schema per
 * case on the server named by CUBE_TEST_PG_URL; tests/pg/with_pg.sh starts
 * one; without it those cases skip, saying why). */
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

#include "store.h"
#include "store_fixture.h"

/* ---- helpers --------------------------------------------------------- */

static int put_owned(struct cube_store *s, const char *kind, const char *project,
                     const char *name, int64_t rv, const char *const *owners,
                     size_t n)
{
    char uid[512], doc[1024];
    snprintf(uid, sizeof uid, "uid:%s/%s/%s", kind, project, name);
    snprintf(doc, sizeof doc, "{\"kind\":\"%s\",\"name\":\"%s\",\"rv\":%lld}",
             kind, name, (long long)rv);
    struct cube_store_obj o = {(char *)kind, (char *)project, (char *)name,
                               uid, rv, doc};
    return cube_store_create(s, &o, owners, n, NULL);
}

static int put(struct cube_store *s, const char *kind, const char *project,
               const char *name, int64_t rv)
{
    return put_owned(s, kind, project, name, rv, NULL, 0);
}

static int upd(struct cube_store *s, const char *kind, const char *project,
               const char *name, int64_t rv, const char *doc, int64_t expected,
               const char *const *owners, size_t n)
{
    struct cube_store_obj o = {(char *)kind, (char *)project, (char *)name,
                               NULL, rv, (char *)doc};
    return cube_store_update(s, &o, owners, n, expected, NULL);
}

/* Collected "project/name" keys of listed rows. */
struct coll {
    char **keys;
    int64_t *rvs;
    size_t n, cap, stop_after;
};

static int collect(void *cls, const struct cube_store_obj *o)
{
    struct coll *c = cls;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->keys = realloc(c->keys, c->cap * sizeof *c->keys);
        c->rvs = realloc(c->rvs, c->cap * sizeof *c->rvs);
        assert_non_null(c->keys);
        assert_non_null(c->rvs);
    }
    char key[1024];
    snprintf(key, sizeof key, "%s/%s", o->project, o->name);
    c->keys[c->n] = strdup(key);
    c->rvs[c->n++] = o->rv;
    return c->stop_after && c->n >= c->stop_after;
}

static void coll_free(struct coll *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->keys[i]);
    free(c->keys);
    free(c->rvs);
    memset(c, 0, sizeof *c);
}

static size_t count_key(const struct coll *c, const char *key)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++)
        n += strcmp(c->keys[i], key) == 0;
    return n;
}

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
    assert_int_equal(cube_store_schema_version(), 2);
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
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM cube_schema"), 2);
    assert_int_equal(raw_int(f, "SELECT MAX(version) FROM cube_schema"), 2);
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
                                " cubed (knows 2): upgrade cubed"));
    /* The refusal changed nothing. */
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM cube_schema"), 3);
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

struct evs {
    int64_t ids[256];
    char docs[256][64];
    size_t n, stop_after;
};

static int collect_event(void *cls, int64_t id, const char *doc)
{
    struct evs *e = cls;
    assert_true(e->n < 256);
    e->ids[e->n] = id;
    snprintf(e->docs[e->n++], sizeof e->docs[0], "%s", doc);
    return e->stop_after && e->n >= e->stop_after;
}

static size_t list_events(struct cube_store *s, const char *project,
                          const char *kind, const char *name, int64_t before,
                          size_t limit, struct evs *e)
{
    memset(e, 0, sizeof *e);
    assert_int_equal(cube_store_event_list(s, project, kind, name, before, limit,
                                           collect_event, e),
                     CUBE_OK);
    for (size_t i = 1; i < e->n; i++)
        assert_true(e->ids[i - 1] > e->ids[i]); /* newest first */
    return e->n;
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

#define THREADS 8
#define PER_THREAD 200

struct worker {
    struct cube_store *s;
    int id, failures;
};

static void *create_many(void *arg)
{
    struct worker *w = arg;
    char name[32];
    for (int i = 0; i < PER_THREAD; i++) {
        snprintf(name, sizeof name, "t%d-%03d", w->id, i);
        if (put(w->s, "widget", "p", name, (int64_t)w->id * 1000 + i + 1) != CUBE_OK)
            w->failures++;
        struct cube_store_obj o = {0};
        if (i % 20 == 0 && cube_store_get(w->s, "widget", "p", name, &o) != CUBE_OK)
            w->failures++;
        cube_store_obj_clear(&o);
    }
    return NULL;
}

static void test_concurrency(void **state)
{
    struct fx *f = fx(state);
    pthread_t t[THREADS];
    struct worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (struct worker){.s = f->s, .id = i};
        assert_int_equal(pthread_create(&t[i], NULL, create_many, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
    int64_t n = 0;
    assert_int_equal(cube_store_count(f->s, "widget", "p", &n), CUBE_OK);
    assert_int_equal(n, THREADS * PER_THREAD);
    struct coll c = {0};
    assert_int_equal(cube_store_list(f->s, "widget", "p", NULL, NULL, 0, collect, &c),
                     CUBE_OK);
    assert_int_equal(c.n, THREADS * PER_THREAD);
    char key[64];
    for (int i = 0; i < THREADS; i++)
        for (int j = 0; j < PER_THREAD; j += 37) {
            snprintf(key, sizeof key, "p/t%d-%03d", i, j);
            assert_int_equal(count_key(&c, key), 1);
        }
    coll_free(&c);
}

/* Writes through group commit (PostgreSQL): 16 threads whose creates,
 * updates and deletes land in shared batches, with duplicates, taken uids
 * (a statement error: the batch is retried write by write), rv conflicts
 * and missing objects among them; each must get its own outcome. */
#define BTHREADS 16
#define BPER 24
#define BSHARED 8

struct bworker {
    struct cube_store *s;
    int id, failures, first_bad;
    atomic_int *shared_ok;
};

static void bcheck(struct bworker *w, int line, int got, int want)
{
    if (got != want && w->failures++ == 0) {
        w->first_bad = line;
        print_error("thread %d, line %d: got %d, want %d\n", w->id, line, got, want);
    }
}

#define BCHECK(w, got, want) bcheck((w), __LINE__, (got), (want))

static int bcreate(struct cube_store *s, const char *name, const char *uid,
                   int64_t rv, const char *audit)
{
    struct cube_store_obj o = {"widget", "bp", (char *)name, (char *)uid, rv, "{}"};
    return cube_store_create(s, &o, NULL, 0, audit);
}

static int bupdate(struct cube_store *s, const char *name, int64_t rv, int64_t expected)
{
    struct cube_store_obj o = {"widget", "bp", (char *)name, NULL, rv, "{\"u\":1}"};
    return cube_store_update(s, &o, NULL, 0, expected, "{\"e\":\"u\"}");
}

/* One object's life, j-th of thread w; rvs from 4 per step. */
static void bstep(struct bworker *w, int j)
{
    char name[32], uid[32];
    int64_t rv = ((int64_t)w->id * BPER + j) * 4 + 1;
    const char *audit = j % 3 ? "{\"e\":\"c\"}" : NULL;
    snprintf(name, sizeof name, "o%d-%d", w->id, j);
    snprintf(uid, sizeof uid, "u%d-%d", w->id, j);
    BCHECK(w, bcreate(w->s, name, uid, rv, audit), CUBE_OK);
    if (j % 8 == 0)
        BCHECK(w, bcreate(w->s, name, "other-uid", rv + 1, audit), CUBE_EEXIST);
    if (j % 5 == 3) {
        snprintf(name, sizeof name, "x%d-%d", w->id, j);
        BCHECK(w, bcreate(w->s, name, "taken", rv + 1, "{}"), CUBE_EEXIST);
        snprintf(name, sizeof name, "o%d-%d", w->id, j);
    }
    if (j < BSHARED) {
        char shared[32];
        snprintf(shared, sizeof shared, "shared-%d", j);
        snprintf(uid, sizeof uid, "s%d-%d", w->id, j);
        int rc = bcreate(w->s, shared, uid, rv + 1, "{\"e\":\"s\"}");
        if (rc == CUBE_OK)
            atomic_fetch_add(&w->shared_ok[j], 1);
        else
            BCHECK(w, rc, CUBE_EEXIST);
    }
    BCHECK(w, bupdate(w->s, name, rv + 2, rv + 1), CUBE_ECONFLICT);
    BCHECK(w, bupdate(w->s, name, rv + 2, rv), CUBE_OK);
    snprintf(uid, sizeof uid, "none%d-%d", w->id, j);
    BCHECK(w, bupdate(w->s, uid, rv + 2, 0), CUBE_ENOTFOUND);
    if (j % 2 == 0)
        return;
    BCHECK(w, cube_store_delete(w->s, "widget", "bp", name, rv, rv + 3, "{}"),
           CUBE_ECONFLICT);
    BCHECK(w, cube_store_delete(w->s, "widget", "bp", name, rv + 2, rv + 3, "{}"),
           CUBE_OK);
    BCHECK(w, cube_store_delete(w->s, "widget", "bp", name, 0, rv + 3, "{}"),
           CUBE_ENOTFOUND);
}

static void *batch_worker(void *arg)
{
    struct bworker *w = arg;
    for (int j = 0; j < BPER; j++)
        bstep(w, j);
    return NULL;
}

static int count_event(void *cls, int64_t id, const char *doc)
{
    (void)id, (void)doc;
    ++*(size_t *)cls;
    return 0;
}

static void test_batched_writes(void **state)
{
    struct fx *f = fx(state);
    pthread_t t[BTHREADS];
    struct bworker w[BTHREADS];
    atomic_int shared_ok[BSHARED] = {0};
    assert_int_equal(put(f->s, "widget", "q", "holder", 1), CUBE_OK);
    struct cube_store_obj taken = {"widget", "q", "taken", "taken", 2, "{}"};
    assert_int_equal(cube_store_create(f->s, &taken, NULL, 0, NULL), CUBE_OK);
    for (int i = 0; i < BTHREADS; i++) {
        w[i] = (struct bworker){.s = f->s, .id = i, .shared_ok = shared_ok};
        assert_int_equal(pthread_create(&t[i], NULL, batch_worker, &w[i]), 0);
    }
    for (int i = 0; i < BTHREADS; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
    for (int j = 0; j < BSHARED; j++)
        assert_int_equal(atomic_load(&shared_ok[j]), 1);
    int64_t n = 0;
    assert_int_equal(cube_store_count(f->s, "widget", "bp", &n), CUBE_OK);
    assert_int_equal(n, BTHREADS * BPER / 2 + BSHARED);
    /* Per thread: audited creates (j % 3 != 0), an update each, a delete
     * each odd j; plus the shared creates. Failed writes left none. */
    size_t events = 0, want = BSHARED;
    for (int j = 0; j < BPER; j++)
        want += (size_t)BTHREADS * ((j % 3 != 0) + 1 + (j % 2));
    assert_int_equal(cube_store_event_list(f->s, "bp", NULL, NULL, 0, 1000000,
                                           count_event, &events),
                     CUBE_OK);
    assert_int_equal(events, want);
    struct cube_store_obj o = {0};
    for (int i = 0; i < BTHREADS; i++) {
        char name[32];
        snprintf(name, sizeof name, "o%d-%d", i, 2);
        assert_int_equal(cube_store_get(f->s, "widget", "bp", name, &o), CUBE_OK);
        assert_int_equal(o.rv, ((int64_t)i * BPER + 2) * 4 + 3);
        assert_string_equal(o.doc, "{\"u\":1}");
        cube_store_obj_clear(&o);
    }
}

/* Creates landing in shared batches (on PostgreSQL one statement takes a
 * batch's creates, as arrays): each document, uid, rv and audit event
 * comes back byte for byte. */
#define CTHREADS 16
#define CPER 20

struct cworker {
    struct cube_store *s;
    pthread_barrier_t *go;
    int id, failures;
};

static void ctext(char *buf, size_t len, const char *what, int id, int j)
{
    snprintf(buf, len, "{\"%s\":\"\u00fc \\\"q\\\" \\\\ \t \xf0\x9f\x9a\x80 '%d-%d'\"}",
             what, id, j);
}

static void *create_worker(void *arg)
{
    struct cworker *w = arg;
    pthread_barrier_wait(w->go);
    for (int j = 0; j < CPER; j++) {
        char name[32], uid[32], doc[128], audit[64];
        snprintf(name, sizeof name, "c%d-%d", w->id, j);
        snprintf(uid, sizeof uid, "cu%d-%d", w->id, j);
        ctext(doc, sizeof doc, "d", w->id, j);
        ctext(audit, sizeof audit, "e", w->id, j);
        struct cube_store_obj o = {"widget", "cp", name, uid, w->id * CPER + j + 1, doc};
        if (cube_store_create(w->s, &o, NULL, 0, j % 2 ? audit : NULL) != CUBE_OK)
            w->failures++;
    }
    return NULL;
}

static void test_batched_creates(void **state)
{
    struct fx *f = fx(state);
    pthread_t t[CTHREADS];
    struct cworker w[CTHREADS];
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, CTHREADS);
    for (int i = 0; i < CTHREADS; i++) {
        w[i] = (struct cworker){.s = f->s, .go = &go, .id = i};
        assert_int_equal(pthread_create(&t[i], NULL, create_worker, &w[i]), 0);
    }
    for (int i = 0; i < CTHREADS; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
    pthread_barrier_destroy(&go);
    struct evs *e = calloc(1, sizeof *e);
    for (int i = 0; i < CTHREADS * CPER; i++) {
        char name[32], uid[32], doc[128], audit[64];
        struct cube_store_obj o = {0};
        snprintf(name, sizeof name, "c%d-%d", i / CPER, i % CPER);
        snprintf(uid, sizeof uid, "cu%d-%d", i / CPER, i % CPER);
        ctext(doc, sizeof doc, "d", i / CPER, i % CPER);
        ctext(audit, sizeof audit, "e", i / CPER, i % CPER);
        assert_int_equal(cube_store_get(f->s, "widget", "cp", name, &o), CUBE_OK);
        assert_string_equal(o.doc, doc);
        assert_string_equal(o.uid, uid);
        assert_int_equal(o.rv, i + 1);
        cube_store_obj_clear(&o);
        assert_int_equal(list_events(f->s, "cp", "widget", name, 0, 0, e), i % 2);
        if (i % 2)
            assert_string_equal(e->docs[0], audit);
    }
    free(e);
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

struct opener {
    struct fx *f;
    int rc;
    char name[16], err[256];
};

static void *open_one(void *arg)
{
    struct opener *o = arg;
    struct cube_store *s = NULL;
    o->rc = cube_store_open(o->f->url, o->f->dir, 2, &s, o->err, sizeof o->err);
    if (o->rc == CUBE_OK)
        o->rc = put(s, "widget", "p", o->name, 1);
    cube_store_close(s);
    return NULL;
}

static void test_concurrent_migrations(void **state)
{
    struct fx *f = fx(state);
    cube_store_close(f->s);
    f->s = NULL;
    if (f->pg) {
        raw_exec(f, f->url, "DROP TABLE objects, object_owners, events, cube_meta,"
                            " secrets, cube_schema");
    } else {
        char path[128];
        static const char *const suffix[] = {"", "-wal", "-shm"};
        for (int i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/cube.db%s", f->dir, suffix[i]);
            unlink(path);
        }
    }
    pthread_t t[4];
    struct opener o[4];
    for (int i = 0; i < 4; i++) {
        memset(&o[i], 0, sizeof o[i]);
        o[i].f = f;
        snprintf(o[i].name, sizeof o[i].name, "o%d", i);
        assert_int_equal(pthread_create(&t[i], NULL, open_one, &o[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        if (o[i].rc != CUBE_OK)
            print_error("opener %d: %d %s\n", i, o[i].rc, o[i].err);
        assert_int_equal(o[i].rc, CUBE_OK);
    }
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM cube_schema"), 2);
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM objects"), 4);
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM cube_meta"), 1);
    f->s = open_store(f, 1);
}

struct reenter {
    struct cube_store *s;
    int gets, deletes;
};

static int get_inside(void *cls, const struct cube_store_obj *obj)
{
    struct reenter *r = cls;
    struct cube_store_obj o = {0};
    if (cube_store_get(r->s, obj->kind, obj->project, obj->name, &o) == CUBE_OK)
        r->gets++;
    cube_store_obj_clear(&o);
    return 0;
}

static int delete_inside(void *cls, const struct cube_store_obj *obj)
{
    struct reenter *r = cls;
    if (cube_store_delete(r->s, obj->kind, obj->project, obj->name, obj->rv, 100, NULL) == CUBE_OK)
        r->deletes++;
    return 0;
}

/* With a pool of one, row callbacks may call the store again. */
static void test_reentrant_callbacks(void **state)
{
    struct fx *f = fx(state);
    cube_store_close(f->s);
    f->s = open_store(f, 1);
    const char *own[] = {"parent"};
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", i);
        assert_int_equal(put_owned(f->s, "widget", "p", name, i + 1, own, 1), CUBE_OK);
    }
    struct reenter r = {.s = f->s};
    assert_int_equal(cube_store_list(f->s, "widget", NULL, NULL, NULL, 0, get_inside, &r),
                     CUBE_OK);
    assert_int_equal(r.gets, 5);
    assert_int_equal(cube_store_list_owned(f->s, "parent", delete_inside, &r), CUBE_OK);
    assert_int_equal(r.deletes, 5);
    int64_t n = -1;
    assert_int_equal(cube_store_count(f->s, "widget", NULL, &n), CUBE_OK);
    assert_int_equal(n, 0);
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

#define CASES(setup)                                                           \
    cmocka_unit_test_setup_teardown(test_open_reopen, setup, teardown),         \
    cmocka_unit_test_setup_teardown(test_newer_schema_refused, setup, teardown),\
    cmocka_unit_test_setup_teardown(test_crud, setup, teardown),                \
    cmocka_unit_test_setup_teardown(test_errors, setup, teardown),              \
    cmocka_unit_test_setup_teardown(test_list_paging, setup, teardown),         \
    cmocka_unit_test_setup_teardown(test_paging_stability, setup, teardown),    \
    cmocka_unit_test_setup_teardown(test_owners, setup, teardown),              \
    cmocka_unit_test_setup_teardown(test_events, setup, teardown),              \
    cmocka_unit_test_setup_teardown(test_max_rv, setup, teardown),              \
    cmocka_unit_test_setup_teardown(test_concurrency, setup, teardown),         \
    cmocka_unit_test_setup_teardown(test_batched_writes, setup, teardown),      \
    cmocka_unit_test_setup_teardown(test_batched_creates, setup, teardown),     \
    cmocka_unit_test_setup_teardown(test_unicode, setup, teardown),             \
    cmocka_unit_test_setup_teardown(test_concurrent_migrations, setup, teardown),\
    cmocka_unit_test_setup_teardown(test_reentrant_callbacks, setup, teardown)

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
