/* test_store_concurrency.c — the object store under concurrency, the same
 * cases on both drivers as test_store.c: concurrent and batched writes and
 * creates, concurrent migrations on first open, and list callbacks that
 * re-enter the store. */
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

/* Writes through group commit: 16 threads whose creates, updates and
 * deletes land in shared batches, with duplicates, taken uids (on
 * PostgreSQL a statement error: the batch is retried write by write; on
 * SQLite the write is rolled back to its savepoint), rv conflicts and
 * missing objects among them; each must get its own outcome. */
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
                            " secrets, job_metrics, cube_schema");
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
    assert_int_equal(raw_int(f, "SELECT COUNT(*) FROM cube_schema"), 3);
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

#define CASES(setup)                                                               \
    cmocka_unit_test_setup_teardown(test_concurrency, setup, teardown),            \
    cmocka_unit_test_setup_teardown(test_batched_writes, setup, teardown),         \
    cmocka_unit_test_setup_teardown(test_batched_creates, setup, teardown),        \
    cmocka_unit_test_setup_teardown(test_concurrent_migrations, setup, teardown),  \
    cmocka_unit_test_setup_teardown(test_reentrant_callbacks, setup, teardown)

int main(void)
{
    const struct CMUnitTest sqlite_tests[] = {CASES(setup_sqlite)};
    const struct CMUnitTest pg_tests[] = {CASES(setup_pg)};
    int failed = cmocka_run_group_tests_name("store_concurrency_sqlite", sqlite_tests,
                                             NULL, NULL);
    failed += cmocka_run_group_tests_name("store_concurrency_postgres", pg_tests,
                                          NULL, NULL);
    return failed;
}
