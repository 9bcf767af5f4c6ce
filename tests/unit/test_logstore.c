/* test_logstore.c — log streams (append, read from offsets, size cap,
 * close and re-open, object removal, concurrent appends) and followers
 * driven through their read/close callbacks. Each test works in a fresh
 * temporary data dir (logstore_fixture.c); project files are
 * test_logstore_files.c's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
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
#include <cjson/cJSON.h>

#include "logstore/logstore.h"
#include "logstore_fixture.h"
#include "logstore/logstore_priv.h"

/* Reads the whole stream as a string (asserts success). */
static char *read_all(struct cube_logstore *ls, const char *project,
                      const char *stream, uint64_t off)
{
    size_t len = 99;
    int rc = 99;
    char *s = cube_logstore_read(ls, "Job", project, "j1", stream, off,
                                 SIZE_MAX, &len, &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_non_null(s);
    assert_int_equal(strlen(s), len);
    return s;
}

/* ---- streams ------------------------------------------------------ */

static void test_append_read(void **state)
{
    struct fixture *fx = *state;
    struct cube_logstore *ls = fx->ls;
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "main", "hello ", 6),
                     CUBE_OK);
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "main", "world\n", 6),
                     CUBE_OK);
    char *s = read_all(ls, "p1", "main", 0);
    assert_string_equal(s, "hello world\n");
    free(s);
    s = read_all(ls, "p1", "main", 6);
    assert_string_equal(s, "world\n");
    free(s);

    size_t len = 0;
    int rc = 99;
    s = cube_logstore_read(ls, "Job", "p1", "j1", "main", 2, 3, &len, &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_int_equal(len, 3);
    assert_string_equal(s, "llo");
    free(s);

    /* at and past the end: 0 bytes, not an error */
    s = read_all(ls, "p1", "main", 12);
    assert_string_equal(s, "");
    free(s);
    s = read_all(ls, "p1", "main", 5000);
    assert_string_equal(s, "");
    free(s);
    s = cube_logstore_read(ls, "Job", "p1", "j1", "main", 0, 0, &len, &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_int_equal(len, 0);
    free(s);

    /* on disk where the header says, mode 0640 while open */
    char *p = pathf(fx, "logs/p1/Job/j1/main.log");
    assert_int_equal(access(p, F_OK), 0);
    free(p);
    assert_int_equal(file_mode(fx, "logs/p1/Job/j1/main.log"), 0640);

    /* cluster-scoped: project NULL or "" */
    assert_int_equal(cube_logstore_append(ls, "Node", NULL, "n1", "k", "a", 1), CUBE_OK);
    assert_int_equal(cube_logstore_append(ls, "Node", "", "n1", "k", "b", 1), CUBE_OK);
    s = cube_logstore_read(ls, "Node", NULL, "n1", "k", 0, 100, &len, &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_string_equal(s, "ab");
    free(s);
    assert_int_equal(file_mode(fx, "logs/_cluster/Node/n1/k.log"), 0640);

    /* a new store (restart) reads what is there */
    cube_logstore_free(ls);
    fx->ls = ls = cube_logstore_new(fx->dir, 1000);
    assert_non_null(ls);
    s = read_all(ls, "p1", "main", 0);
    assert_string_equal(s, "hello world\n");
    free(s);
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "main", "!", 1), CUBE_OK);
    s = read_all(ls, "p1", "main", 0);
    assert_string_equal(s, "hello world\n!");
    free(s);
}

static void test_not_found(void **state)
{
    struct fixture *fx = *state;
    size_t len = 7;
    int rc = 0;
    assert_null(cube_logstore_read(fx->ls, "Job", "p1", "nope", "main", 0, 10,
                                   &len, &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    assert_int_equal(len, 0);
    /* another stream of an existing object */
    assert_int_equal(cube_logstore_append(fx->ls, "Job", "p1", "j1", "a", "x", 1), CUBE_OK);
    assert_null(cube_logstore_read(fx->ls, "Job", "p1", "j1", "b", 0, 10, &len, &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    /* a follower waiting for a stream does not make it exist */
    struct cube_stream_desc d;
    assert_int_equal(cube_ls_follower_open(fx->ls, "Job", "p1", "j1", "c", 0, 1, &d),
                     CUBE_OK);
    assert_null(cube_logstore_read(fx->ls, "Job", "p1", "j1", "c", 0, 10, &len, &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    d.close(d.cls);
    /* nor does an empty append */
    assert_int_equal(cube_logstore_append(fx->ls, "Job", "p1", "j1", "d", "", 0), CUBE_OK);
    assert_null(cube_logstore_read(fx->ls, "Job", "p1", "j1", "d", 0, 10, &len, &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
}

static void test_bad_names(void **state)
{
    struct fixture *fx = *state;
    struct cube_logstore *ls = fx->ls;
    char long_name[300];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    const char *bad[] = {"..", ".", ".hidden", "a/b", "/", "", "../x", NULL};
    for (int i = 0; bad[i]; i++) {
        assert_int_equal(cube_logstore_append(ls, bad[i], "p", "n", "s", "x", 1), CUBE_EINVAL);
        assert_int_equal(cube_logstore_append(ls, "K", "p", bad[i], "s", "x", 1), CUBE_EINVAL);
        assert_int_equal(cube_logstore_append(ls, "K", "p", "n", bad[i], "x", 1), CUBE_EINVAL);
        if (bad[i][0]) /* "" as project means cluster scope */
            assert_int_equal(cube_logstore_append(ls, "K", bad[i], "n", "s", "x", 1),
                             CUBE_EINVAL);
        int rc = 0;
        size_t len;
        assert_null(cube_logstore_read(ls, "K", "p", "n", bad[i], 0, 1, &len, &rc));
        assert_int_equal(rc, CUBE_EINVAL);
        assert_int_equal(cube_logstore_close(ls, "K", "p", bad[i], "s"), CUBE_EINVAL);
        assert_int_equal(cube_logstore_remove_object(ls, "K", "p", bad[i]), CUBE_EINVAL);
    }
    assert_int_equal(cube_logstore_append(ls, NULL, "p", "n", "s", "x", 1), CUBE_EINVAL);
    assert_int_equal(cube_logstore_append(ls, "K", "p", NULL, "s", "x", 1), CUBE_EINVAL);
    assert_int_equal(cube_logstore_append(ls, "K", "p", "n", NULL, "x", 1), CUBE_EINVAL);
    assert_int_equal(cube_logstore_append(ls, "K", "p", "n", "s", NULL, 1), CUBE_EINVAL);
    /* 253 bytes is the limit; 251 for a stream ("<stream>.log" is a file
     * name, at most 255 bytes) */
    assert_int_equal(cube_logstore_append(ls, long_name, "p", "n", "s", "x", 1), CUBE_EINVAL);
    assert_int_equal(cube_logstore_append(ls, "K", "p", "n", long_name, "x", 1), CUBE_EINVAL);
    long_name[254] = '\0';
    assert_int_equal(cube_logstore_append(ls, "K", "p", long_name, "s", "x", 1), CUBE_EINVAL);
    long_name[253] = '\0';
    assert_int_equal(cube_logstore_append(ls, "K", "p", long_name, "s", "x", 1), CUBE_OK);
    assert_int_equal(cube_logstore_append(ls, "K", "p", "n", long_name, "x", 1), CUBE_EINVAL);
    long_name[252] = '\0';
    assert_int_equal(cube_logstore_append(ls, "K", "p", "n", long_name, "x", 1), CUBE_EINVAL);
    long_name[251] = '\0';
    assert_int_equal(cube_logstore_append(ls, "K", "p", "n", long_name, "x", 1), CUBE_OK);
    /* nothing was created for the refused ones: only p/K/n/<long>.log */
    char *p = pathf(fx, "logs");
    DIR *d = opendir(p);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.') {
            assert_string_equal(e->d_name, "p");
            n++;
        }
    closedir(d);
    assert_int_equal(n, 1);
    free(p);
    assert_int_equal(file_mode(fx, "logs/p/K/n"), 0750);
}

static void test_size_cap(void **state)
{
    struct fixture *fx = *state;
    struct cube_logstore *ls = fx->ls; /* 1000 bytes per stream */
    char buf[1001];
    memset(buf, 'z', sizeof buf);
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "s", buf, 1001),
                     CUBE_ETOOBIG);
    size_t len;
    int rc;
    /* refused before the file was made */
    assert_null(cube_logstore_read(ls, "Job", "p1", "j1", "s", 0, 10, &len, &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "s", buf, 600), CUBE_OK);
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "s", buf, 401),
                     CUBE_ETOOBIG);
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "s", buf, 400), CUBE_OK);
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "s", buf, 1),
                     CUBE_ETOOBIG);
    char *s = cube_logstore_read(ls, "Job", "p1", "j1", "s", 0, SIZE_MAX, &len, &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_int_equal(len, 1000);
    free(s);
    /* the cap holds across a restart too */
    cube_logstore_free(ls);
    fx->ls = ls = cube_logstore_new(fx->dir, 1000);
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "s", buf, 1),
                     CUBE_ETOOBIG);
}

static void test_close_reopen(void **state)
{
    struct fixture *fx = *state;
    struct cube_logstore *ls = fx->ls;
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "main", "a\n", 2), CUBE_OK);
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j1", "main"), CUBE_OK);
    assert_int_equal(file_mode(fx, "logs/p1/Job/j1/main.log"), 0440);
    /* closing twice is fine */
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j1", "main"), CUBE_OK);
    /* a follower of a finished stream drains and ends */
    struct cube_stream_desc d;
    char buf[64];
    assert_int_equal(cube_ls_follower_open(ls, "Job", "p1", "j1", "main", 0, 1, &d), CUBE_OK);
    assert_int_equal(d.read(d.cls, buf, sizeof buf), 2);
    assert_int_equal(d.read(d.cls, buf, sizeof buf), CUBE_STREAM_END);
    d.close(d.cls);
    /* appending re-opens it */
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "main", "b\n", 2), CUBE_OK);
    assert_int_equal(file_mode(fx, "logs/p1/Job/j1/main.log"), 0640);
    char *s = read_all(ls, "p1", "main", 0);
    assert_string_equal(s, "a\nb\n");
    free(s);
    /* finished state survives a restart: closed, then a new store */
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j1", "main"), CUBE_OK);
    cube_logstore_free(ls);
    fx->ls = ls = cube_logstore_new(fx->dir, 1000);
    assert_int_equal(cube_ls_follower_open(ls, "Job", "p1", "j1", "main", 2, 1, &d), CUBE_OK);
    assert_int_equal(d.read(d.cls, buf, sizeof buf), 2);
    assert_memory_equal(buf, "b\n", 2);
    assert_int_equal(d.read(d.cls, buf, sizeof buf), CUBE_STREAM_END);
    d.close(d.cls);
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "main", "c", 1), CUBE_OK);
    assert_int_equal(file_mode(fx, "logs/p1/Job/j1/main.log"), 0640);
    s = read_all(ls, "p1", "main", 0);
    assert_string_equal(s, "a\nb\nc");
    free(s);
    /* closing a stream never written makes it an empty finished one
     * (without a file: test_logstore_empty.c) */
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j1", "empty"), CUBE_OK);
    s = read_all(ls, "p1", "empty", 0);
    assert_string_equal(s, "");
    free(s);
}

static void test_remove_object(void **state)
{
    struct fixture *fx = *state;
    struct cube_logstore *ls = fx->ls;
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "a", "1", 1), CUBE_OK);
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "b", "2", 1), CUBE_OK);
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j1", "b"), CUBE_OK);
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j10", "a", "3", 1), CUBE_OK);
    struct cube_stream_desc d;
    char buf[16];
    assert_int_equal(cube_ls_follower_open(ls, "Job", "p1", "j1", "a", 0, 1, &d), CUBE_OK);

    assert_int_equal(cube_logstore_remove_object(ls, "Job", "p1", "j1"), CUBE_OK);
    size_t len;
    int rc;
    assert_null(cube_logstore_read(ls, "Job", "p1", "j1", "a", 0, 10, &len, &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    assert_null(cube_logstore_read(ls, "Job", "p1", "j1", "b", 0, 10, &len, &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);
    assert_int_equal(file_mode(fx, "logs/p1/Job/j1"), -1);
    /* j10 shares the prefix but is another object */
    char *s = cube_logstore_read(ls, "Job", "p1", "j10", "a", 0, 10, &len, &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_string_equal(s, "3");
    free(s);
    /* the follower gets what was written, then the end */
    assert_true(cube_ls_follower_wakes(d.cls) >= 1);
    assert_int_equal(d.read(d.cls, buf, sizeof buf), 1);
    assert_int_equal(buf[0], '1');
    assert_int_equal(d.read(d.cls, buf, sizeof buf), CUBE_STREAM_END);
    d.close(d.cls);
    /* an object without logs; and writing again starts afresh */
    assert_int_equal(cube_logstore_remove_object(ls, "Job", "p1", "nologs"), CUBE_OK);
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "a", "new", 3), CUBE_OK);
    s = cube_logstore_read(ls, "Job", "p1", "j1", "a", 0, 10, &len, &rc);
    assert_string_equal(s, "new");
    free(s);
}

#define THREADS 4
#define LINES 500

struct writer {
    struct cube_logstore *ls;
    int id;
    int failures;
};

static void *writer_main(void *arg)
{
    struct writer *w = arg;
    char line[64];
    for (int i = 0; i < LINES; i++) {
        int n = snprintf(line, sizeof line, "writer %d line %04d %s\n", w->id, i,
                         "................" + (i % 16));
        if (cube_logstore_append(w->ls, "Job", "p1", "j1", "mt", line, (size_t)n) != CUBE_OK)
            w->failures++;
    }
    return NULL;
}

static void test_concurrent_appends(void **state)
{
    struct fixture *fx = *state;
    cube_logstore_free(fx->ls);
    fx->ls = cube_logstore_new(fx->dir, 0); /* 0: no cap */
    struct cube_logstore *ls = fx->ls;
    /* a follower reads along, concurrently with the writers */
    struct cube_stream_desc d;
    assert_int_equal(cube_ls_follower_open(ls, "Job", "p1", "j1", "mt", 0, 1, &d), CUBE_OK);
    pthread_t th[THREADS];
    struct writer w[THREADS];
    size_t expect = 0;
    for (int t = 0; t < THREADS; t++) {
        w[t] = (struct writer){.ls = ls, .id = t};
        for (int i = 0; i < LINES; i++)
            expect += strlen("writer 0 line 0000 ") + (16 - (size_t)(i % 16)) + 1;
        assert_int_equal(pthread_create(&th[t], NULL, writer_main, &w[t]), 0);
    }
    char *followed = malloc(expect + 1);
    assert_non_null(followed);
    size_t fgot = 0;
    int ended = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        assert_int_equal(w[t].failures, 0);
    }
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j1", "mt"), CUBE_OK);
    while (!ended) {
        long n = d.read(d.cls, followed + fgot, 777);
        assert_true(n > 0 || n == CUBE_STREAM_END);
        if (n == CUBE_STREAM_END)
            ended = 1;
        else
            fgot += (size_t)n;
        assert_true(fgot <= expect);
    }
    d.close(d.cls);
    followed[fgot] = '\0';

    size_t len;
    int rc;
    char *s = cube_logstore_read(ls, "Job", "p1", "j1", "mt", 0, SIZE_MAX, &len, &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_int_equal(len, expect);
    assert_int_equal(fgot, expect);
    assert_string_equal(followed, s);
    /* every line whole, each writer's lines in its order */
    int next[THREADS] = {0};
    int lines = 0;
    for (char *line = s, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        assert_non_null(nl);
        int id = -1, i = -1, consumed = 0;
        assert_int_equal(sscanf(line, "writer %d line %d %n", &id, &i, &consumed), 2);
        assert_true(id >= 0 && id < THREADS);
        assert_int_equal(i, next[id]);
        next[id]++;
        assert_int_equal(nl - (line + consumed), 16 - (i % 16));
        lines++;
    }
    assert_int_equal(lines, THREADS * LINES);
    free(s);
    free(followed);
}

/* ---- followers ---------------------------------------------------- */

static void test_follower_callbacks(void **state)
{
    struct fixture *fx = *state;
    struct cube_logstore *ls = fx->ls;
    struct cube_stream_desc d;
    char buf[8];
    /* without follow a missing stream is not found */
    assert_int_equal(cube_ls_follower_open(ls, "Job", "p1", "j1", "out", 0, 0, &d),
                     CUBE_ENOTFOUND);
    assert_int_equal(cube_ls_follower_open(ls, "Job", "p1", "../j1", "out", 0, 1, &d),
                     CUBE_EINVAL);
    /* with follow it waits for the first append */
    assert_int_equal(cube_ls_follower_open(ls, "Job", "p1", "j1", "out", 0, 1, &d), CUBE_OK);
    assert_int_equal(d.size, sizeof d);
    assert_non_null(d.read);
    assert_non_null(d.close);
    assert_int_equal(d.read(d.cls, buf, sizeof buf), 0);
    assert_int_equal(d.read(d.cls, buf, sizeof buf), 0);
    assert_int_equal(cube_ls_follower_wakes(d.cls), 0);

    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "out", "0123456789", 10),
                     CUBE_OK);
    assert_int_equal(cube_ls_follower_wakes(d.cls), 1);
    /* reads in pieces no larger than the buffer */
    assert_int_equal(d.read(d.cls, buf, sizeof buf), 8);
    assert_memory_equal(buf, "01234567", 8);
    assert_int_equal(d.read(d.cls, buf, sizeof buf), 2);
    assert_memory_equal(buf, "89", 2);
    assert_int_equal(d.read(d.cls, buf, sizeof buf), 0); /* caught up: park */

    /* a non-following reader of the same stream from an offset */
    struct cube_stream_desc d2;
    assert_int_equal(cube_ls_follower_open(ls, "Job", "p1", "j1", "out", 7, 0, &d2), CUBE_OK);
    assert_int_equal(d2.read(d2.cls, buf, sizeof buf), 3);
    assert_memory_equal(buf, "789", 3);
    assert_int_equal(d2.read(d2.cls, buf, sizeof buf), CUBE_STREAM_END);
    d2.close(d2.cls);
    /* one past the end, not following: ends at once */
    assert_int_equal(cube_ls_follower_open(ls, "Job", "p1", "j1", "out", 50, 0, &d2), CUBE_OK);
    assert_int_equal(d2.read(d2.cls, buf, sizeof buf), CUBE_STREAM_END);
    d2.close(d2.cls);
    /* following from past the end: waits until the stream gets there */
    assert_int_equal(cube_ls_follower_open(ls, "Job", "p1", "j1", "out", 12, 1, &d2), CUBE_OK);
    assert_int_equal(d2.read(d2.cls, buf, sizeof buf), 0);

    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "out", "abc", 3), CUBE_OK);
    assert_int_equal(cube_ls_follower_wakes(d.cls), 2);
    assert_int_equal(cube_ls_follower_wakes(d2.cls), 1);
    assert_int_equal(d2.read(d2.cls, buf, sizeof buf), 1);
    assert_int_equal(buf[0], 'c');
    assert_int_equal(d2.read(d2.cls, buf, sizeof buf), 0);

    /* close: the rest is still delivered, then the end */
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "out", "xyz", 3), CUBE_OK);
    assert_int_equal(cube_logstore_close(ls, "Job", "p1", "j1", "out"), CUBE_OK);
    assert_int_equal(cube_ls_follower_wakes(d.cls), 4);
    assert_int_equal(d.read(d.cls, buf, sizeof buf), 6);
    assert_memory_equal(buf, "abcxyz", 6);
    assert_int_equal(d.read(d.cls, buf, sizeof buf), CUBE_STREAM_END);
    assert_int_equal(d.read(d.cls, buf, sizeof buf), CUBE_STREAM_END);
    assert_int_equal(d2.read(d2.cls, buf, sizeof buf), 3);
    assert_int_equal(d2.read(d2.cls, buf, sizeof buf), CUBE_STREAM_END);
    d.close(d.cls);
    d2.close(d2.cls);

    /* a follower that leaves early does not disturb the next append */
    assert_int_equal(cube_ls_follower_open(ls, "Job", "p1", "j1", "out", 0, 1, &d), CUBE_OK);
    d.close(d.cls);
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "out", "!", 1), CUBE_OK);
    /* re-opened by that append: a new follower parks at the end again */
    assert_int_equal(cube_ls_follower_open(ls, "Job", "p1", "j1", "out", 17, 1, &d), CUBE_OK);
    assert_int_equal(d.read(d.cls, buf, sizeof buf), 0);
    d.close(d.cls);
}

struct drain {
    struct cube_stream_desc d;
    long total;
    int ended;
};

static void *drain_main(void *arg)
{
    struct drain *dr = arg;
    char buf[16];
    for (;;) {
        long n = dr->d.read(dr->d.cls, buf, sizeof buf);
        if (n == CUBE_STREAM_END) {
            dr->ended = 1;
            break;
        }
        if (n < 0)
            break;
        if (n == 0)
            usleep(1000); /* "parked" */
        dr->total += n;
    }
    dr->d.close(dr->d.cls);
    return NULL;
}

static void test_free_ends_followers(void **state)
{
    struct fixture *fx = *state;
    struct cube_logstore *ls = fx->ls;
    assert_int_equal(cube_logstore_append(ls, "Job", "p1", "j1", "f", "hello", 5), CUBE_OK);
    struct drain dr = {0};
    assert_int_equal(cube_ls_follower_open(ls, "Job", "p1", "j1", "f", 0, 1, &dr.d), CUBE_OK);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, drain_main, &dr), 0);
    usleep(20000);
    /* free waits for the follower to end and close */
    cube_logstore_free(ls);
    fx->ls = NULL;
    pthread_join(th, NULL);
    assert_int_equal(dr.ended, 1);
    assert_int_equal(dr.total, 5);
    /* the stream was not marked finished on disk */
    assert_int_equal(file_mode(fx, "logs/p1/Job/j1/f.log"), 0640);
    fx->ls = cube_logstore_new(fx->dir, 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_append_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_cap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_reopen, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remove_object, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_appends, setup, teardown),
        cmocka_unit_test_setup_teardown(test_follower_callbacks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_ends_followers, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
