/* test_files_handle.c — the ABI 1.5 file handles (files_handle.c) and the
 * digest computed beside the writes (files_digest.c): the sha256 commit
 * gives equals the content's however the bytes came (in order, with gaps,
 * rewritten while the digest thread runs, resumed), pending uploads stay
 * hidden, one writer at a time, and what is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/hash.h"
#include "ctx/ctx.h"
#include "files/files.h"

struct fx {
    char dir[64];
    struct cube_ctx ctx;
    struct cube_plugin self;
};

static int setup(void **state)
{
    struct fx *fx = calloc(1, sizeof *fx);
    snprintf(fx->dir, sizeof fx->dir, "/tmp/cube-files-handle-XXXXXX");
    assert_non_null(mkdtemp(fx->dir));
    fx->ctx.files = cube_files_new(fx->dir, 0);
    fx->self.ctx = &fx->ctx;
    fx->self.data_dir = cube_path_join(fx->dir, "plugins/p");
    assert_int_equal(cube_mkdir_p(fx->self.data_dir, 0700), 0);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fx *fx = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", fx->dir);
    assert_int_equal(system(cmd), 0);
    cube_files_free(fx->ctx.files);
    free(fx->self.data_dir);
    free(fx);
    return 0;
}

static char *pattern(size_t n, unsigned seed)
{
    char *b = malloc(n);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        b[i] = (char)(seed >> 16);
    }
    return b;
}

static void sha_hex(const void *d, size_t n, char out[65])
{
    uint8_t md[32];
    assert_int_equal(cube_sha256(d, n, md), 0);
    cube_hex(md, 32, out);
}

static cube_file *open_w(struct fx *fx, const char *path, unsigned extra)
{
    int rc = -100;
    cube_file *f = cube_slot_file_open(&fx->self, "proj", path, CUBE_FILE_WRITE | extra, &rc);
    assert_int_equal(rc, CUBE_OK);
    assert_non_null(f);
    return f;
}

static void commit_equals(cube_file *f, const char *data, size_t n)
{
    char want[65], got[65];
    sha_hex(data, n, want);
    assert_int_equal(cube_slot_file_commit(f, want, got), CUBE_OK);
    assert_string_equal(got, want);
}

static void in_order_chunks_then_read_back(void **state)
{
    struct fx *fx = *state;
    size_t n = 5u << 20;
    char *data = pattern(n, 1);
    cube_file *f = open_w(fx, "sets/a/train.bin", CUBE_FILE_TRUNCATE);
    for (size_t off = 0, step = 1; off < n; off += step, step = step * 3 % 70001 + 1)
        assert_int_equal(cube_slot_file_write_at(f, off, data + off, off + step > n ? n - off
                                                 : step), CUBE_OK);
    int rc;
    assert_null(cube_slot_file_open(&fx->self, "proj", "sets/a/train.bin", CUBE_FILE_READ, &rc));
    assert_int_equal(rc, CUBE_ENOTFOUND);   /* nothing published yet */
    char *listing = cube_files_list(fx->ctx.files, "proj", "", &rc);
    assert_string_equal(listing, "[]");     /* the pending upload is hidden */
    free(listing);
    commit_equals(f, data, n);
    char buf[100];
    size_t got;
    assert_int_equal(cube_slot_file_pread(f, n - 50, buf, sizeof buf, &got), CUBE_OK);
    assert_int_equal(got, 50);
    assert_memory_equal(buf, data + n - 50, 50);
    assert_int_equal(cube_slot_file_write_at(f, 0, "x", 1), CUBE_ESTATE);
    cube_slot_file_close(f);
    size_t len;
    char *back = cube_files_read(fx->ctx.files, "proj", "sets/a/train.bin", &len, &rc);
    assert_int_equal(len, n);
    assert_memory_equal(back, data, n);
    free(back);
    free(data);
}

static void gaps_and_rewrites_while_hashing(void **state)
{
    struct fx *fx = *state;
    size_t n = 12u << 20;
    char *data = pattern(n, 2), *junk = pattern(1u << 20, 3);
    cube_file *f = open_w(fx, "m.bin", CUBE_FILE_TRUNCATE);
    /* the second half first (a gap), junk in the first half, then in order */
    assert_int_equal(cube_slot_file_write_at(f, n / 2, data + n / 2, n / 2), CUBE_OK);
    assert_int_equal(cube_slot_file_write_at(f, 1000, junk, 1u << 20), CUBE_OK);
    for (size_t off = 0; off < n / 2; off += 65536) {
        assert_int_equal(cube_slot_file_write_at(f, off, data + off, 65536), CUBE_OK);
        if (off == (4u << 20)) {   /* rewrite below what the thread hashed */
            assert_int_equal(cube_slot_file_write_at(f, 10, junk, 4096), CUBE_OK);
            assert_int_equal(cube_slot_file_write_at(f, 10, data + 10, 4096), CUBE_OK);
        }
    }
    commit_equals(f, data, n);
    cube_slot_file_close(f);
    free(data);
    free(junk);
}

static void resumed_and_refused_then_right(void **state)
{
    struct fx *fx = *state;
    size_t n = 3u << 20;
    char *data = pattern(n, 4), bad[65], got[65];
    cube_file *f = open_w(fx, "r.bin", CUBE_FILE_TRUNCATE);
    assert_int_equal(cube_slot_file_write_at(f, 0, data, n / 3), CUBE_OK);
    int rc;
    assert_null(cube_slot_file_open(&fx->self, "proj", "r.bin", CUBE_FILE_WRITE, &rc));
    assert_int_equal(rc, CUBE_ECONFLICT);   /* one writer at a time */
    cube_slot_file_close(f);
    f = open_w(fx, "r.bin", 0);   /* resumed */
    uint64_t size;
    assert_int_equal(cube_slot_file_size(f, &size), CUBE_OK);
    assert_int_equal(size, n / 3);
    assert_int_equal(cube_slot_file_write_at(f, size, data + size, n / 3), CUBE_OK);
    memset(bad, 'a', 64);
    bad[64] = '\0';
    assert_int_equal(cube_slot_file_commit(f, bad, got), CUBE_EDIGEST);
    assert_null(cube_slot_file_open(&fx->self, "proj", "r.bin", CUBE_FILE_READ, &rc));
    assert_int_equal(cube_slot_file_write_at(f, 2 * (n / 3), data + 2 * (n / 3), n - 2 * (n / 3)),
                     CUBE_OK);   /* still writable after a refused commit */
    commit_equals(f, data, n);
    cube_slot_file_close(f);
    free(data);
}

static void abort_and_refusals(void **state)
{
    struct fx *fx = *state;
    int rc;
    cube_file *f = open_w(fx, "gone.bin", 0);
    assert_int_equal(cube_slot_file_write_at(f, 0, "abc", 3), CUBE_OK);
    assert_int_equal(cube_slot_file_abort(f), CUBE_OK);
    uint64_t size;
    assert_int_equal(cube_slot_file_size(f, &size), CUBE_ESTATE);
    assert_int_equal(cube_slot_file_commit(f, NULL, NULL), CUBE_ESTATE);
    cube_slot_file_close(f);
    f = open_w(fx, "gone.bin", 0);
    assert_int_equal(cube_slot_file_size(f, &size), CUBE_OK);
    assert_int_equal(size, 0);   /* aborted: a new, empty one */
    assert_int_equal(cube_slot_file_commit(f, "12", NULL), CUBE_EINVAL);
    cube_slot_file_close(f);
    const char *bad[] = {"", "/abs", "a//b", "../x", "a/.hidden", "a/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_null(cube_slot_file_open(&fx->self, NULL, bad[i], CUBE_FILE_READ, &rc));
        assert_int_equal(rc, CUBE_EINVAL);
    }
    assert_null(cube_slot_file_open(&fx->self, "proj", "x", CUBE_FILE_READ | CUBE_FILE_WRITE,
                                    &rc));
    assert_int_equal(rc, CUBE_EINVAL);
    assert_null(cube_slot_file_open(&fx->self, "proj", "x", CUBE_FILE_READ | CUBE_FILE_TRUNCATE,
                                    &rc));
    assert_int_equal(rc, CUBE_EINVAL);
    assert_null(cube_slot_file_open(&fx->self, "../p", "x", CUBE_FILE_READ, &rc));
    assert_int_equal(rc, CUBE_EINVAL);
}

static void links_are_refused(void **state)
{
    struct fx *fx = *state;
    char path[256], name[65];
    uint8_t md[32];
    int rc;
    /* a symlink where the file is read, and where a directory is walked */
    snprintf(path, sizeof path, "%s/projects/proj", fx->dir);
    assert_int_equal(cube_mkdir_p(path, 0750), 0);
    snprintf(path, sizeof path, "%s/projects/proj/link", fx->dir);
    assert_int_equal(symlink("/etc/passwd", path), 0);
    assert_null(cube_slot_file_open(&fx->self, "proj", "link", CUBE_FILE_READ, &rc));
    assert_int_equal(rc, CUBE_EPERM);
    assert_null(cube_slot_file_open(&fx->self, "proj", "link/x", CUBE_FILE_READ, &rc));
    assert_int_equal(rc, CUBE_EPERM);
    /* a pending upload planted as a hard link of another file */
    cube_slot_file_close(open_w(fx, "other", 0));
    assert_int_equal(cube_sha256("victim", 6, md), 0);
    cube_hex(md, 32, name);
    char victim[256], pending[256];
    snprintf(victim, sizeof victim, "%s/victim-target", fx->dir);
    snprintf(pending, sizeof pending, "%s/projects/proj/.uploads/%s", fx->dir, name);
    int fd = open(victim, O_CREAT | O_WRONLY, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(link(victim, pending), 0);
    assert_null(cube_slot_file_open(&fx->self, "proj", "victim", CUBE_FILE_WRITE, &rc));
    assert_int_equal(rc, CUBE_EPERM);
    /* committing over a symlink is refused too */
    cube_file *f = open_w(fx, "link", 0);
    assert_int_equal(cube_slot_file_commit(f, NULL, NULL), CUBE_EPERM);
    cube_slot_file_close(f);
}

static void plugin_area_apart_from_projects(void **state)
{
    struct fx *fx = *state;
    int rc;
    cube_file *f = cube_slot_file_open(&fx->self, NULL, "models/m1", CUBE_FILE_WRITE, &rc);
    assert_non_null(f);
    assert_int_equal(cube_slot_file_write_at(f, 0, "weights", 7), CUBE_OK);
    commit_equals(f, "weights", 7);
    cube_slot_file_close(f);
    f = cube_slot_file_open(&fx->self, NULL, "models/m1", CUBE_FILE_READ, &rc);
    assert_non_null(f);
    assert_int_equal(cube_files_handle_fd(f) >= 0, 1);
    cube_slot_file_close(f);
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/files/models/m1", fx->self.data_dir);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 7);
    assert_null(cube_slot_file_open(&fx->self, "proj", "models/m1", CUBE_FILE_READ, &rc));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(in_order_chunks_then_read_back, setup, teardown),
        cmocka_unit_test_setup_teardown(gaps_and_rewrites_while_hashing, setup, teardown),
        cmocka_unit_test_setup_teardown(resumed_and_refused_then_right, setup, teardown),
        cmocka_unit_test_setup_teardown(abort_and_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(links_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(plugin_area_apart_from_projects, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
