/* test_store_kv.c — the store's secrets table (cube_store_kv_*), the same
 * cases on both drivers: SQLite (always, a fresh data dir per case) and
 * PostgreSQL (a fresh schema per case on the server named by
 * CUBE_TEST_PG_URL; tests/pg/with_pg.sh starts one; without it those cases
 * skip, saying why). The fixture is test_store.c's. */
#include <ftw.h>
#include <pthread.h>
#include <setjmp.h>
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

/* ---- helpers --------------------------------------------------------- */

static int64_t now(void)
{
    return (int64_t)time(NULL);
}

/* The listed records as "key:owner:doc:expires" lines, in order. */
struct seen {
    char text[4096];
    size_t n, stop_after;
};

static int collect(void *cls, const struct cube_kv *kv)
{
    struct seen *s = cls;
    size_t len = strlen(s->text);
    snprintf(s->text + len, sizeof s->text - len, "%s%s:%s:%s:%lld",
             s->n ? "\n" : "", kv->key, kv->owner, kv->doc, (long long)kv->expires);
    s->n++;
    return s->stop_after && s->n >= s->stop_after;
}

/* Lists ns (owner: NULL for all) into *s, which it empties first. */
static void list(struct cube_store *st, const char *ns, const char *owner,
                 struct seen *s)
{
    size_t stop = s->stop_after;
    memset(s, 0, sizeof *s);
    s->stop_after = stop;
    assert_int_equal(cube_store_kv_list(st, ns, owner, collect, s), CUBE_OK);
}

/* Asserts (ns, key) reads as doc/owner/expires. */
static void expect(struct cube_store *s, const char *ns, const char *key,
                   const char *doc, const char *owner, int64_t expires)
{
    char *d = NULL, *o = NULL;
    int64_t e = -1;
    assert_int_equal(cube_store_kv_get(s, ns, key, &d, &o, &e), CUBE_OK);
    assert_string_equal(d, doc);
    assert_string_equal(o, owner);
    assert_int_equal(e, expires);
    free(d);
    free(o);
}

static void expect_missing(struct cube_store *s, const char *ns, const char *key)
{
    char *d = (char *)"x", *o = (char *)"x";
    int64_t e = 42;
    assert_int_equal(cube_store_kv_get(s, ns, key, &d, &o, &e), CUBE_ENOTFOUND);
    assert_null(d);
    assert_null(o);
}

/* ---- cases ------------------------------------------------------------ */

static void test_schema_version(void **state)
{
    struct fx *f = fx(state);
    assert_int_equal(cube_store_schema_version(), 3);
    assert_int_equal(raw_int(f, "SELECT MAX(version) FROM cube_schema"), 3);
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM cube_schema"), 3);
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM secrets"), 0);
}

/* A database at version 1 (as written by the previous cubed: migration 1's
 * schema exactly) gets migrations 2 and 3 on open, its objects intact. */
static void test_migrate_from_v1(void **state)
{
    struct fx *f = fx(state);
    struct cube_store_obj o = {"widget", "p", "a", "uid-a", 1, "{}"};
    assert_int_equal(cube_store_create(f->s, &o, NULL, 0, NULL), CUBE_OK);
    cube_store_close(f->s);
    f->s = NULL;
    raw_exec(f, f->url, "DROP TABLE secrets");
    raw_exec(f, f->url, "DROP TABLE job_metrics");
    raw_exec(f, f->url, "DELETE FROM cube_schema WHERE version >= 2");
    assert_int_equal(raw_int(f, "SELECT MAX(version) FROM cube_schema"), 1);

    f->s = open_store(f, 2);
    assert_int_equal(raw_int(f, "SELECT MAX(version) FROM cube_schema"), 3);
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM cube_schema"), 3);
    struct cube_store_obj got = {0};
    assert_int_equal(cube_store_get(f->s, "widget", "p", "a", &got), CUBE_OK);
    assert_string_equal(got.uid, "uid-a");
    cube_store_obj_clear(&got);
    assert_int_equal(cube_store_kv_put(f->s, "sess", "k", "bob", "{}", 0), CUBE_OK);
    expect(f->s, "sess", "k", "{}", "bob", 0);
    /* Reopening applies nothing more. */
    cube_store_close(f->s);
    f->s = open_store(f, 2);
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM cube_schema"), 3);
    expect(f->s, "sess", "k", "{}", "bob", 0);
}

static void test_put_replace(void **state)
{
    struct fx *f = fx(state);
    int64_t later = now() + 3600;
    assert_int_equal(cube_store_kv_put(f->s, "sess", "k1", "bob", "{\"a\":1}", 0),
                     CUBE_OK);
    expect(f->s, "sess", "k1", "{\"a\":1}", "bob", 0);
    assert_int_equal(cube_store_kv_put(f->s, "sess", "k1", "alice", "{\"a\":2}", later),
                     CUBE_OK);
    expect(f->s, "sess", "k1", "{\"a\":2}", "alice", later);
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM secrets"), 1);
    /* Unwanted outputs may be NULL. */
    assert_int_equal(cube_store_kv_get(f->s, "sess", "k1", NULL, NULL, NULL), CUBE_OK);
    char *doc = NULL;
    assert_int_equal(cube_store_kv_get(f->s, "sess", "k1", &doc, NULL, NULL), CUBE_OK);
    assert_string_equal(doc, "{\"a\":2}");
    free(doc);
    /* The same key in another namespace is another record. */
    assert_int_equal(cube_store_kv_put(f->s, "cred", "k1", "bob", "{}", 0), CUBE_OK);
    expect(f->s, "cred", "k1", "{}", "bob", 0);
    expect(f->s, "sess", "k1", "{\"a\":2}", "alice", later);
    /* Secrets are no objects. */
    int64_t n = -1;
    assert_int_equal(cube_store_count(f->s, "sess", NULL, &n), CUBE_OK);
    assert_int_equal(n, 0);
}

static void test_add(void **state)
{
    struct fx *f = fx(state);
    assert_int_equal(cube_store_kv_add(f->s, "sess", "k", "bob", "{\"v\":1}", 0),
                     CUBE_OK);
    assert_int_equal(cube_store_kv_add(f->s, "sess", "k", "eve", "{\"v\":2}", 0),
                     CUBE_EEXIST);
    expect(f->s, "sess", "k", "{\"v\":1}", "bob", 0);
    assert_int_equal(cube_store_kv_add(f->s, "other", "k", "eve", "{}", 0), CUBE_OK);
    /* An expired record is absent: add replaces it. */
    int64_t past = now() - 10, later = now() + 3600;
    assert_int_equal(cube_store_kv_put(f->s, "sess", "old", "bob", "{}", past), CUBE_OK);
    assert_int_equal(cube_store_kv_add(f->s, "sess", "old", "eve", "{\"new\":1}", later),
                     CUBE_OK);
    expect(f->s, "sess", "old", "{\"new\":1}", "eve", later);
    assert_int_equal(cube_store_kv_add(f->s, "sess", "old", "bob", "{}", 0),
                     CUBE_EEXIST);
    /* The store still works after the refusals. */
    assert_int_equal(cube_store_kv_put(f->s, "sess", "k2", "bob", "{}", 0), CUBE_OK);
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM secrets"), 4);
}

static void test_get_delete_missing(void **state)
{
    struct fx *f = fx(state);
    expect_missing(f->s, "sess", "nope");
    assert_int_equal(cube_store_kv_put(f->s, "sess", "k", "bob", "{}", 0), CUBE_OK);
    expect_missing(f->s, "other", "k");
    expect_missing(f->s, "sess", "K");
    assert_int_equal(cube_store_kv_delete(f->s, "sess", "nope"), CUBE_ENOTFOUND);
    assert_int_equal(cube_store_kv_delete(f->s, "other", "k"), CUBE_ENOTFOUND);
    assert_int_equal(cube_store_kv_delete(f->s, "sess", "k"), CUBE_OK);
    expect_missing(f->s, "sess", "k");
    assert_int_equal(cube_store_kv_delete(f->s, "sess", "k"), CUBE_ENOTFOUND);
}

static void test_expiry(void **state)
{
    struct fx *f = fx(state);
    int64_t t = now(), past = t - 10, later = t + 3600;
    assert_int_equal(cube_store_kv_put(f->s, "sess", "a", "bob", "{}", past), CUBE_OK);
    assert_int_equal(cube_store_kv_put(f->s, "sess", "b", "bob", "{}", later), CUBE_OK);
    assert_int_equal(cube_store_kv_put(f->s, "sess", "c", "bob", "{}", 0), CUBE_OK);
    assert_int_equal(cube_store_kv_put(f->s, "sess", "d", "bob", "{}", t), CUBE_OK);
    assert_int_equal(cube_store_kv_put(f->s, "other", "e", "amy", "{}", past),
                     CUBE_OK);
    expect_missing(f->s, "sess", "a");
    expect_missing(f->s, "sess", "d"); /* expires == now: expired */
    expect(f->s, "sess", "b", "{}", "bob", later);
    expect(f->s, "sess", "c", "{}", "bob", 0);
    struct seen s = {0};
    list(f->s, "sess", NULL, &s);
    assert_int_equal(s.n, 2);
    char want[128];
    snprintf(want, sizeof want, "b:bob:{}:%lld\nc:bob:{}:0", (long long)later);
    assert_string_equal(s.text, want);
    list(f->s, "sess", "bob", &s);
    assert_string_equal(s.text, want);
    list(f->s, "other", NULL, &s);
    assert_int_equal(s.n, 0);

    /* The purge goes by the time it is given. */
    int64_t n = -1;
    assert_int_equal(cube_store_kv_purge(f->s, past - 1, &n), CUBE_OK);
    assert_int_equal(n, 0);
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM secrets"), 5);
    assert_int_equal(cube_store_kv_purge(f->s, t, &n), CUBE_OK);
    assert_int_equal(n, 3); /* a, d and other/e */
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM secrets"), 2);
    assert_int_equal(cube_store_kv_purge(f->s, t, NULL), CUBE_OK);
    assert_int_equal(cube_store_kv_purge(f->s, t, &n), CUBE_OK);
    assert_int_equal(n, 0);
    expect(f->s, "sess", "b", "{}", "bob", later);
    expect(f->s, "sess", "c", "{}", "bob", 0);

    /* Deleting an expired record: not found, and gone all the same. */
    assert_int_equal(cube_store_kv_put(f->s, "sess", "x", "bob", "{}", past), CUBE_OK);
    assert_int_equal(cube_store_kv_delete(f->s, "sess", "x"), CUBE_ENOTFOUND);
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM secrets"), 2);
    /* put revives an expired record. */
    assert_int_equal(cube_store_kv_put(f->s, "sess", "y", "bob", "{}", past), CUBE_OK);
    expect_missing(f->s, "sess", "y");
    assert_int_equal(cube_store_kv_put(f->s, "sess", "y", "bob", "{}", 0), CUBE_OK);
    expect(f->s, "sess", "y", "{}", "bob", 0);
}

static void test_list(void **state)
{
    struct fx *f = fx(state);
    /* Inserted out of order; listed in byte order ("B" < "_" < "a"). */
    static const char *const keys[] = {"k3", "a", "k1", "_", "B", "k2"};
    static const char *const owners[] = {"bob", "alice", "bob", "bob", "alice", "carol"};
    for (int i = 0; i < 6; i++) {
        char doc[32];
        snprintf(doc, sizeof doc, "{\"i\":%d}", i);
        assert_int_equal(cube_store_kv_put(f->s, "sess", keys[i], owners[i], doc, 0),
                         CUBE_OK);
    }
    assert_int_equal(cube_store_kv_put(f->s, "other", "k0", "bob", "{}", 0), CUBE_OK);
    assert_int_equal(cube_store_kv_put(f->s, "sessions", "k0", "bob", "{}", 0), CUBE_OK);
    struct seen s = {0};
    list(f->s, "sess", NULL, &s);
    assert_string_equal(s.text, "B:alice:{\"i\":4}:0\n"
                                "_:bob:{\"i\":3}:0\n"
                                "a:alice:{\"i\":1}:0\n"
                                "k1:bob:{\"i\":2}:0\n"
                                "k2:carol:{\"i\":5}:0\n"
                                "k3:bob:{\"i\":0}:0");
    list(f->s, "sess", "bob", &s);
    assert_string_equal(s.text, "_:bob:{\"i\":3}:0\n"
                                "k1:bob:{\"i\":2}:0\n"
                                "k3:bob:{\"i\":0}:0");
    list(f->s, "sess", "alice", &s);
    assert_string_equal(s.text, "B:alice:{\"i\":4}:0\na:alice:{\"i\":1}:0");
    list(f->s, "sess", "dave", &s);
    assert_int_equal(s.n, 0);
    list(f->s, "other", NULL, &s);
    assert_string_equal(s.text, "k0:bob:{}:0");
    list(f->s, "nothing", NULL, &s);
    assert_int_equal(s.n, 0);
    /* A callback's nonzero stops the listing. */
    s.stop_after = 2;
    list(f->s, "sess", NULL, &s);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.text, "B:alice:{\"i\":4}:0\n_:bob:{\"i\":3}:0");
}

/* A callback may call the store, even with a pool of one. */
static int delete_inside(void *cls, const struct cube_kv *kv)
{
    struct cube_store *s = cls;
    char *doc = NULL;
    assert_int_equal(cube_store_kv_get(s, kv->ns, kv->key, &doc, NULL, NULL), CUBE_OK);
    assert_string_equal(doc, kv->doc);
    free(doc);
    assert_int_equal(cube_store_kv_delete(s, kv->ns, kv->key), CUBE_OK);
    return 0;
}

static void test_reentrant(void **state)
{
    struct fx *f = fx(state);
    cube_store_close(f->s);
    f->s = open_store(f, 1);
    for (int i = 0; i < 5; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", i);
        assert_int_equal(cube_store_kv_put(f->s, "sess", key, "bob", key, 0), CUBE_OK);
    }
    assert_int_equal(cube_store_kv_list(f->s, "sess", NULL, delete_inside, f->s),
                     CUBE_OK);
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM secrets"), 0);
}

static void test_delete_owner(void **state)
{
    struct fx *f = fx(state);
    int64_t past = now() - 10;
    assert_int_equal(cube_store_kv_put(f->s, "sess", "s1", "bob", "{}", 0), CUBE_OK);
    assert_int_equal(cube_store_kv_put(f->s, "sess", "s2", "bob", "{}", now() + 60),
                     CUBE_OK);
    assert_int_equal(cube_store_kv_put(f->s, "sess", "s3", "bob", "{}", past), CUBE_OK);
    assert_int_equal(cube_store_kv_put(f->s, "sess", "s4", "alice", "{}", 0), CUBE_OK);
    assert_int_equal(cube_store_kv_put(f->s, "cred", "bob", "bob", "{}", 0), CUBE_OK);
    int64_t n = -1;
    assert_int_equal(cube_store_kv_delete_owner(f->s, "sess", "bob", &n), CUBE_OK);
    assert_int_equal(n, 3); /* the expired s3 included */
    struct seen s = {0};
    list(f->s, "sess", "bob", &s);
    assert_int_equal(s.n, 0);
    list(f->s, "sess", NULL, &s);
    assert_string_equal(s.text, "s4:alice:{}:0");
    expect(f->s, "cred", "bob", "{}", "bob", 0);
    assert_int_equal(cube_store_kv_delete_owner(f->s, "sess", "bob", &n), CUBE_OK);
    assert_int_equal(n, 0);
    assert_int_equal(cube_store_kv_delete_owner(f->s, "sess", "alice", NULL), CUBE_OK);
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM secrets"), 1);
}

static int never(void *cls, const struct cube_kv *kv)
{
    (void)cls, (void)kv;
    fail_msg("listed a record");
    return 1;
}

static void test_invalid(void **state)
{
    struct fx *f = fx(state);
    struct cube_store *s = f->s;
    char name[258], *doc = malloc(64 * 1024 + 2);
    assert_non_null(doc);
    memset(name, 'n', sizeof name - 1);
    name[257] = '\0'; /* 257 bytes: one too many */
    memset(doc, ' ', 64 * 1024 + 1);
    doc[64 * 1024 + 1] = '\0'; /* 64 KiB + 1 */
    const char *bad[] = {NULL, "", name};
    for (int i = 0; i < 3; i++) {
        const char *b = bad[i];
        assert_int_equal(cube_store_kv_put(s, b, "k", "o", "{}", 0), CUBE_EINVAL);
        assert_int_equal(cube_store_kv_put(s, "ns", b, "o", "{}", 0), CUBE_EINVAL);
        assert_int_equal(cube_store_kv_put(s, "ns", "k", b, "{}", 0), CUBE_EINVAL);
        assert_int_equal(cube_store_kv_add(s, b, "k", "o", "{}", 0), CUBE_EINVAL);
        assert_int_equal(cube_store_kv_add(s, "ns", b, "o", "{}", 0), CUBE_EINVAL);
        assert_int_equal(cube_store_kv_add(s, "ns", "k", b, "{}", 0), CUBE_EINVAL);
        assert_int_equal(cube_store_kv_get(s, b, "k", NULL, NULL, NULL), CUBE_EINVAL);
        assert_int_equal(cube_store_kv_get(s, "ns", b, NULL, NULL, NULL), CUBE_EINVAL);
        assert_int_equal(cube_store_kv_delete(s, b, "k"), CUBE_EINVAL);
        assert_int_equal(cube_store_kv_delete(s, "ns", b), CUBE_EINVAL);
        assert_int_equal(cube_store_kv_list(s, b, NULL, never, NULL), CUBE_EINVAL);
        assert_int_equal(cube_store_kv_delete_owner(s, b, "o", NULL), CUBE_EINVAL);
        assert_int_equal(cube_store_kv_delete_owner(s, "ns", b, NULL), CUBE_EINVAL);
        if (b) /* NULL owner: every owner */
            assert_int_equal(cube_store_kv_list(s, "ns", b, never, NULL), CUBE_EINVAL);
    }
    assert_int_equal(cube_store_kv_put(s, "ns", "k", "o", NULL, 0), CUBE_EINVAL);
    assert_int_equal(cube_store_kv_put(s, "ns", "k", "o", doc, 0), CUBE_EINVAL);
    assert_int_equal(cube_store_kv_add(s, "ns", "k", "o", doc, 0), CUBE_EINVAL);
    assert_int_equal(cube_store_kv_put(s, "ns", "k", "o", "{}", -1), CUBE_EINVAL);
    assert_int_equal(cube_store_kv_add(s, "ns", "k", "o", "{}", -1), CUBE_EINVAL);
    assert_int_equal(cube_store_kv_list(s, "ns", NULL, NULL, NULL), CUBE_EINVAL);
    assert_int_equal(cube_store_kv_purge(s, -1, NULL), CUBE_EINVAL);
    assert_int_equal(cube_store_kv_put(NULL, "ns", "k", "o", "{}", 0), CUBE_EINVAL);
    assert_int_equal(cube_store_kv_add(NULL, "ns", "k", "o", "{}", 0), CUBE_EINVAL);
    assert_int_equal(cube_store_kv_get(NULL, "ns", "k", NULL, NULL, NULL), CUBE_EINVAL);
    assert_int_equal(cube_store_kv_delete(NULL, "ns", "k"), CUBE_EINVAL);
    assert_int_equal(cube_store_kv_list(NULL, "ns", NULL, never, NULL), CUBE_EINVAL);
    assert_int_equal(cube_store_kv_delete_owner(NULL, "ns", "o", NULL), CUBE_EINVAL);
    assert_int_equal(cube_store_kv_purge(NULL, 0, NULL), CUBE_EINVAL);
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM secrets"), 0);

    /* The limits themselves are fine: 256-byte names, a 64 KiB doc. */
    name[256] = '\0';
    doc[64 * 1024] = '\0';
    assert_int_equal(cube_store_kv_put(s, name, name, name, doc, 0), CUBE_OK);
    char *got = NULL, *owner = NULL;
    assert_int_equal(cube_store_kv_get(s, name, name, &got, &owner, NULL), CUBE_OK);
    assert_int_equal(strlen(got), 64 * 1024);
    assert_string_equal(owner, name);
    free(got);
    free(owner);
    assert_int_equal(cube_store_kv_delete(s, name, name), CUBE_OK);
    free(doc);
}

/* ---- concurrent writes ---------------------------------------------------
 * Threads add the same keys (one add of each key wins, the others get
 * CUBE_EEXIST) while they create objects: on SQLite these share group
 * commits, where a refused add must undo nothing but itself. */

#define KTHREADS 6
#define KPER 40

struct kworker {
    struct cube_store *s;
    pthread_barrier_t *go;
    int id, won, lost, failures;
};

static void *kv_worker(void *arg)
{
    struct kworker *w = arg;
    pthread_barrier_wait(w->go);
    for (int j = 0; j < KPER; j++) {
        char key[32], doc[64], name[32], uid[32];
        snprintf(key, sizeof key, "k%d", j);   /* every thread adds k0..k39 */
        snprintf(doc, sizeof doc, "{\"by\":%d}", w->id);
        int rc = cube_store_kv_add(w->s, "job", key, "bob", doc, 0);
        w->won += rc == CUBE_OK;
        w->lost += rc == CUBE_EEXIST;
        w->failures += rc != CUBE_OK && rc != CUBE_EEXIST;
        snprintf(name, sizeof name, "o%d-%d", w->id, j);
        snprintf(uid, sizeof uid, "u%d-%d", w->id, j);
        struct cube_store_obj o = {"widget", "kp", name, uid, w->id * KPER + j + 1, "{}"};
        w->failures += cube_store_create(w->s, &o, NULL, 0, NULL) != CUBE_OK;
    }
    return NULL;
}

static void test_concurrent_adds(void **state)
{
    struct fx *f = fx(state);
    cube_store_close(f->s);
    f->s = open_store(f, 4);
    pthread_t t[KTHREADS];
    struct kworker w[KTHREADS];
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, KTHREADS);
    for (int i = 0; i < KTHREADS; i++) {
        w[i] = (struct kworker){.s = f->s, .go = &go, .id = i};
        assert_int_equal(pthread_create(&t[i], NULL, kv_worker, &w[i]), 0);
    }
    int won = 0, lost = 0;
    for (int i = 0; i < KTHREADS; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failures, 0);
        won += w[i].won;
        lost += w[i].lost;
    }
    pthread_barrier_destroy(&go);
    assert_int_equal(won, KPER);
    assert_int_equal(lost, KPER * (KTHREADS - 1));
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM secrets"), KPER);
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM objects WHERE kind = 'widget'"),
                     KPER * KTHREADS);
    /* every key reads as the add that won it */
    for (int j = 0; j < KPER; j++) {
        char key[32], *doc = NULL;
        snprintf(key, sizeof key, "k%d", j);
        assert_int_equal(cube_store_kv_get(f->s, "job", key, &doc, NULL, NULL), CUBE_OK);
        assert_non_null(strstr(doc, "\"by\":"));
        free(doc);
    }
    int64_t deleted = 0;
    assert_int_equal(cube_store_kv_delete_owner(f->s, "job", "bob", &deleted), CUBE_OK);
    assert_int_equal(deleted, KPER);
}

#define CASES(setup)                                                          \
    cmocka_unit_test_setup_teardown(test_schema_version, setup, teardown),     \
    cmocka_unit_test_setup_teardown(test_migrate_from_v1, setup, teardown),    \
    cmocka_unit_test_setup_teardown(test_put_replace, setup, teardown),        \
    cmocka_unit_test_setup_teardown(test_add, setup, teardown),                \
    cmocka_unit_test_setup_teardown(test_get_delete_missing, setup, teardown), \
    cmocka_unit_test_setup_teardown(test_expiry, setup, teardown),             \
    cmocka_unit_test_setup_teardown(test_list, setup, teardown),               \
    cmocka_unit_test_setup_teardown(test_reentrant, setup, teardown),          \
    cmocka_unit_test_setup_teardown(test_delete_owner, setup, teardown),       \
    cmocka_unit_test_setup_teardown(test_invalid, setup, teardown),            \
    cmocka_unit_test_setup_teardown(test_concurrent_adds, setup, teardown)

int main(void)
{
    const struct CMUnitTest sqlite_tests[] = {CASES(setup_sqlite)};
    const struct CMUnitTest pg_tests[] = {CASES(setup_pg)};
    int failed = cmocka_run_group_tests_name("store_kv_sqlite", sqlite_tests, NULL, NULL);
    failed += cmocka_run_group_tests_name("store_kv_postgres", pg_tests, NULL, NULL);
    return failed;
}
