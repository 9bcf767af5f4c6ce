/* xl_test.h — what the executor-local tests share: a temp root for the
 * plugin's directories, config and replica documents, and waiting for
 * ends through the fake host (timers run only when a test runs them). */
#ifndef XL_TEST_H
#define XL_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cube_mock.h"
#include "executor_local.h"

const struct cube_plugin_desc *cube_plugin_executor_local(void);

/* Milliseconds on the monotonic clock. */
static inline long long xt_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void xt_sleep_ms(long ms)
{
    nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

/* A fresh directory under /tmp with the given mode; static buffer. */
static inline const char *xt_tmpdir(const char *tag, mode_t mode)
{
    static char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "/tmp/xl-%s-XXXXXX", tag);
    assert_non_null(mkdtemp(dir));
    assert_int_equal(chmod(dir, mode), 0);
    return dir;
}

/* printf into a malloc()ed string. */
static inline char *xt_fmt(const char *fmt, ...) CUBE_PRINTF(1, 2);
static inline char *xt_fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    assert_true(vasprintf(&s, fmt, ap) >= 0);
    va_end(ap);
    return s;
}

/* The plugin config for a test root: its directories under root, fast
 * polling, and `extra` (more members, or "") appended. */
static inline char *xt_config(const char *root, const char *extra)
{
    return xt_fmt("{\"run_dir\":\"%s/run\",\"home_root\":\"%s/home\","
                  "\"projects_root\":\"%s/projects\",\"poll_ms\":10,"
                  "\"timeout_grace_seconds\":1%s%s}",
                  root, root, root, *extra ? "," : "", extra);
}

/* A replica document for user/project running `command` (a JSON array);
 * `extra` adds members ("" for none). Its log goes to Job `name`. */
static inline char *xt_replica(const char *user, const char *project, const char *name,
                               const char *command, const char *extra)
{
    return xt_fmt("{\"job\":{},\"replica\":0,\"replicas\":1,\"node\":\"n\","
                  "\"user\":\"%s\",\"project\":\"%s\",\"command\":%s,"
                  "\"log\":{\"kind\":\"Job\",\"project\":\"%s\",\"name\":\"%s\","
                  "\"stream\":\"replica-0\"}%s%s}",
                  user, project, command, project, name, *extra ? "," : "", extra);
}

/* Calls the executor's start; asserts success; engine id into id. */
static inline void xt_start(void *state, const char *replica, char *id, size_t len)
{
    char msg[512] = "";
    int rc = cube_mock_executor()->start(state, replica, id, len, msg, sizeof msg);
    if (rc != CUBE_OK)
        fail_msg("start failed (%d): %s", rc, msg);
}

/* The exit reported for engine id, or NULL. */
static inline const struct cube_mock_exit *xt_exit_of(const char *id)
{
    int n;
    const struct cube_mock_exit *e = cube_mock_exits(&n);
    for (int i = 0; i < n; i++)
        if (strcmp(e[i].engine_id, id) == 0)
            return &e[i];
    return NULL;
}

/* Runs timers until engine id's end is reported (fails after ms). */
static inline const struct cube_mock_exit *xt_wait_exit(const char *id, long ms)
{
    long long end = xt_now_ms() + ms;
    while (xt_now_ms() < end) {
        cube_mock_run_timers();
        const struct cube_mock_exit *e = xt_exit_of(id);
        if (e) {
            cube_mock_run_timers();   /* the tick closes the log of a reported end */
            return e;
        }
        xt_sleep_ms(5);
    }
    fail_msg("no exit reported for %s within %ld ms", id, ms);
    return NULL;
}

/* What Job `name` of project logged so far (malloc()ed, "" when none). */
static inline char *xt_log(void *state, const char *project, const char *name)
{
    struct xl *x = state;
    size_t len = 0;
    int rc;
    char *s = x->host->log_read(x->self, "Job", project, name, "replica-0", 0, 1 << 20,
                                &len, &rc);
    if (!s)
        return strdup("");
    char *out = strndup(s, len);
    x->host->free(s);
    return out;
}

/* Runs a shell command line (test set-up and clean-up only). */
static inline int xt_sh(const char *fmt, ...) CUBE_PRINTF(1, 2);
static inline int xt_sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return system(cmd);
}

#endif
