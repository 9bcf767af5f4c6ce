/* test_run.c — executor-local running real replicas through the fake host:
 * exit codes, output in the log stream (promptly), stop with a grace
 * period, timeouts, start errors, the endpoints a start reports (ABI 1.5),
 * and re-adoption after a restart (a reset
 * of the fake host, and a real kill -9 of the process that started them).
 * Runs as any user; as root, replicas get accounts ("cxr-<user>"), which
 * the group's teardown removes. */
#include "xl_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#define PREFIX "cxr-"

static char root[256];
static char *config;
static void *state;

static int group_setup(void **st)
{
    (void)st;
    assert_true(snprintf(root, sizeof root, "%s", xt_tmpdir("run", 0755)) < (int)sizeof root);
    config = xt_config(root, "\"uid_min\":29000,\"uid_max\":29499,\"user_prefix\":\"" PREFIX
                             "\",\"group_prefix\":\"" PREFIX "p-\"");
    return 0;
}

static int group_teardown(void **st)
{
    (void)st;
    if (geteuid() == 0) {
        static const char *const users[] = {"alice", "bob", "carol", NULL};
        for (int i = 0; users[i]; i++)
            xt_sh("userdel -f " PREFIX "%s >/dev/null 2>&1", users[i]);
        xt_sh("groupdel " PREFIX "p-demo >/dev/null 2>&1; groupdel " PREFIX "p-other "
              ">/dev/null 2>&1");
    }
    xt_sh("rm -rf '%s'", root);
    free(config);
    return 0;
}

static int setup(void **st)
{
    (void)st;
    return cube_mock_init(cube_plugin_executor_local(), config, &state);
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(cube_plugin_executor_local(), state);
    state = NULL;
    return 0;
}

/* Starts `command` for alice in project demo, logging to Job `name`. */
static void run(const char *name, const char *command, const char *extra, char *id)
{
    char *doc = xt_replica("alice", "demo", name, command, extra);
    xt_start(state, doc, id, XL_ID_LEN);
    free(doc);
}

static void true_exits_zero(void **st)
{
    (void)st;
    char id[XL_ID_LEN];
    run("t-true", "[\"/bin/true\"]", "", id);
    assert_int_equal(strncmp(id, "pid:", 4), 0);
    const struct cube_mock_exit *e = xt_wait_exit(id, 5000);
    assert_int_equal(e->exit_code, 0);
    assert_string_equal(e->reason, CUBE_EXIT_COMPLETED);
    assert_int_equal(cube_mock_log_closed("Job", "demo", "t-true", "replica-0") != 0, 1);
}

/* Ends come through the FIFO the supervisors write to, not the tick: a
 * replica's end is reported while the tick never runs (the fake host runs
 * timers only when a test asks). */
static void ends_are_reported_without_waiting_for_the_tick(void **st)
{
    (void)st;
    char *slow = xt_config(root, "\"uid_min\":29000,\"uid_max\":29499,\"user_prefix\":\""
                                 PREFIX "\",\"group_prefix\":\"" PREFIX "p-\",\"poll_ms\":1000");
    void *s = NULL;
    assert_int_equal(cube_mock_init(cube_plugin_executor_local(), slow, &s), CUBE_OK);
    for (int i = 0; i < 5; i++) {
        char id[XL_ID_LEN];
        char *doc = xt_replica("alice", "demo", "t-fast-end", "[\"/bin/true\"]", "");
        long long t0 = xt_now_ms();
        xt_start(s, doc, id, sizeof id);
        const struct cube_mock_exit *e = NULL;   /* the fake host's timers are not run */
        /* without the FIFO it is never reported (no tick runs): the bound
         * only has to outlast a slow start, as under ASan on busy cores */
        while (!(e = xt_exit_of(id)) && xt_now_ms() - t0 < 10000)
            xt_sleep_ms(2);
        if (!e)
            fail_msg("a /bin/true replica was not reported within 10 s without the tick: "
                     "its end announcement was not heard");
        assert_int_equal(e->exit_code, 0);
        free(doc);
    }
    cube_mock_reset(cube_plugin_executor_local(), s);
    free(slow);
}

/* Ends that come together are reported side by side (a host's report
 * waits for its store: reports in a row would add up), each exactly once,
 * with its output whole. The host here takes 100 ms per report and the
 * tick is not run. */
static void ends_are_reported_side_by_side(void **st)
{
    (void)st;
    enum { N = 8 };
    char *slow = xt_config(root, "\"uid_min\":29000,\"uid_max\":29499,\"user_prefix\":\""
                                 PREFIX "\",\"group_prefix\":\"" PREFIX "p-\",\"poll_ms\":1000");
    void *s = NULL;
    char ids[N][XL_ID_LEN];
    assert_int_equal(cube_mock_init(cube_plugin_executor_local(), slow, &s), CUBE_OK);
    cube_mock_set_exit_delay(100, NULL);
    long long t0 = xt_now_ms();
    for (int i = 0; i < N; i++) {
        char name[32], cmd[96];
        snprintf(name, sizeof name, "t-side-%d", i);
        snprintf(cmd, sizeof cmd, "[\"sh\",\"-c\",\"echo side-%d; exit %d\"]", i, i % 3);
        char *doc = xt_replica("alice", "demo", name, cmd, "");
        xt_start(s, doc, ids[i], sizeof ids[i]);
        free(doc);
    }
    int n = 0;
    while (n < N && xt_now_ms() - t0 < 5000) {
        xt_sleep_ms(5);
        cube_mock_exits(&n);
    }
    long long took = xt_now_ms() - t0;
    int most = 0;
    cube_mock_set_exit_delay(0, &most);
    print_message("%d ends of 100 ms reports in %lld ms, at most %d at once\n", n, took, most);
    assert_int_equal(n, N);
    assert_true(most > 1);   /* side by side; how long it took is printed, not asserted */
    xt_sleep_ms(100);   /* nothing is reported twice */
    cube_mock_exits(&n);
    assert_int_equal(n, N);
    for (int i = 0; i < N; i++) {
        const struct cube_mock_exit *e = xt_exit_of(ids[i]);
        assert_non_null(e);
        assert_int_equal(e->exit_code, i % 3);
        char name[32], want[32];
        snprintf(name, sizeof name, "t-side-%d", i);
        snprintf(want, sizeof want, "side-%d\n", i);
        char *log = xt_log(s, "demo", name);
        assert_string_equal(log, want);
        free(log);
    }
    cube_mock_reset(cube_plugin_executor_local(), s);
    free(slow);
}

static void exit_code_is_reported(void **st)
{
    (void)st;
    char id[XL_ID_LEN];
    run("t-exit3", "[\"/bin/sh\",\"-c\",\"exit 3\"]", "", id);
    const struct cube_mock_exit *e = xt_wait_exit(id, 5000);
    assert_int_equal(e->exit_code, 3);
    assert_string_equal(e->reason, CUBE_EXIT_COMPLETED);
    assert_string_equal(e->message, "exited with code 3");
    int n;
    cube_mock_exits(&n);
    assert_int_equal(n, 1);
    /* Its run directory is gone once reported. */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/run/%s", root, strrchr(id, ':') + 1);
    assert_int_equal(access(path, F_OK), -1);
}

static void stdout_and_stderr_reach_the_log(void **st)
{
    (void)st;
    char id[XL_ID_LEN];
    run("t-log", "[\"sh\",\"-c\",\"echo to-out; echo to-err >&2; echo $0 $1\",\"a b\",\"c\"]",
        "", id);
    xt_wait_exit(id, 5000);
    char *log = xt_log(state, "demo", "t-log");
    assert_non_null(strstr(log, "to-out\n"));
    assert_non_null(strstr(log, "to-err\n"));
    assert_non_null(strstr(log, "a b c\n"));   /* argv kept apart: no shell splits it */
    assert_int_equal(cube_mock_log_closed("Job", "demo", "t-log", "replica-0"), 1);
    free(log);
}

static void output_is_prompt(void **st)
{
    (void)st;
    char id[XL_ID_LEN];
    long long t0 = xt_now_ms();
    run("t-prompt", "[\"sh\",\"-c\",\"echo first; sleep 3; echo second\"]", "", id);
    char *log = NULL;
    long long seen = 0;
    while (xt_now_ms() - t0 < 2000) {
        cube_mock_run_timers();
        free(log);
        log = xt_log(state, "demo", "t-prompt");
        if (strstr(log, "first")) {
            seen = xt_now_ms() - t0;
            break;
        }
        xt_sleep_ms(10);   /* as the 10 ms poll_ms of this config */
    }
    /* Prompt means the first line is there long before the 3 s sleep
     * ends, not a figure: how soon is printed, not asserted (a loaded
     * machine stretches it). */
    assert_true(seen > 0);
    print_message("first line in the log %lld ms after start\n", seen);
    assert_null(strstr(log, "second"));
    assert_null(xt_exit_of(id));
    free(log);
    assert_int_equal(cube_mock_executor()->stop(state, id, 0), CUBE_OK);
    assert_string_equal(xt_wait_exit(id, 5000)->reason, CUBE_EXIT_STOPPED);
}

static void stop_lets_it_finish_within_grace(void **st)
{
    (void)st;
    char id[XL_ID_LEN];
    run("t-stop", "[\"sh\",\"-c\",\"trap 'echo bye; exit 0' TERM; echo up; "
                  "while :; do sleep 0.05; done\"]", "", id);
    char *log = NULL;
    for (long long end = xt_now_ms() + 3000; xt_now_ms() < end; xt_sleep_ms(10)) {
        cube_mock_run_timers();
        free(log);
        log = xt_log(state, "demo", "t-stop");
        if (strstr(log, "up"))
            break;
    }
    free(log);
    long long t0 = xt_now_ms();
    assert_int_equal(cube_mock_executor()->stop(state, id, 5), CUBE_OK);
    const struct cube_mock_exit *e = xt_wait_exit(id, 6000);
    assert_string_equal(e->reason, CUBE_EXIT_STOPPED);
    assert_true(xt_now_ms() - t0 < 4500);   /* well before the 5 s grace ran out */
    log = xt_log(state, "demo", "t-stop");
    assert_non_null(strstr(log, "bye"));
    free(log);
}

static void stop_kills_after_grace(void **st)
{
    (void)st;
    char id[XL_ID_LEN];
    run("t-kill", "[\"sh\",\"-c\",\"trap '' TERM; echo up; sleep 30\"]", "", id);
    xt_sleep_ms(200);
    long long t0 = xt_now_ms();
    assert_int_equal(cube_mock_executor()->stop(state, id, 1), CUBE_OK);
    const struct cube_mock_exit *e = xt_wait_exit(id, 6000);
    long long took = xt_now_ms() - t0;
    assert_string_equal(e->reason, CUBE_EXIT_STOPPED);
    assert_int_equal(e->exit_code, -1);
    assert_non_null(strstr(e->message, "SIGKILL"));
    print_message("SIGKILL after %lld ms (grace 1 s)\n", took);
    assert_true(took >= 900);   /* not before the grace; the upper bound is xt_wait_exit's */
    assert_int_equal(cube_mock_executor()->stop(state, id, 1), CUBE_ENOTFOUND);
}

static void timeout_is_reported(void **st)
{
    (void)st;
    char id[XL_ID_LEN];
    long long t0 = xt_now_ms();
    run("t-timeout", "[\"sleep\",\"30\"]", "\"timeoutSeconds\":1", id);
    const struct cube_mock_exit *e = xt_wait_exit(id, 6000);
    long long took = xt_now_ms() - t0;
    assert_string_equal(e->reason, CUBE_EXIT_TIMEOUT);
    assert_non_null(strstr(e->message, "timeoutSeconds (1 s)"));
    print_message("timed out after %lld ms (timeoutSeconds 1)\n", took);
    assert_true(took >= 900);   /* not before; the upper bound is xt_wait_exit's */
}

static void start_errors_are_returned(void **st)
{
    (void)st;
    const struct cube_executor_desc *ex = cube_mock_executor();
    char id[XL_ID_LEN], msg[512];
    char *doc = xt_replica("alice", "demo", "t-err", "[\"no-such-command-xl\"]", "");
    assert_int_equal(ex->start(state, doc, id, sizeof id, msg, sizeof msg), CUBE_EINVAL);
    assert_non_null(strstr(msg, "not found in PATH"));
    free(doc);
    doc = xt_replica("alice", "demo", "t-err", "[\"true\"]", "\"workdir\":\"/no/such/dir\"");
    assert_int_equal(ex->start(state, doc, id, sizeof id, msg, sizeof msg), CUBE_EINVAL);
    assert_non_null(strstr(msg, "workdir"));
    free(doc);
    int n;
    cube_mock_exits(&n);
    assert_int_equal(n, 0);
    /* A file that exists but cannot be executed: the start call returned
     * before the exec(); the end says StartError and which step failed. */
    char script[PATH_MAX];
    snprintf(script, sizeof script, "%s/noexec.sh", root);
    assert_int_equal(xl_write_file(script, "#!/bin/sh\n"), 0);
    chmod(script, 0644);
    char *cmd = xt_fmt("[\"./noexec.sh\"]");
    char *extra = xt_fmt("\"workdir\":\"%s\"", root);
    doc = xt_replica("alice", "demo", "t-err", cmd, extra);
    assert_int_equal(ex->start(state, doc, id, sizeof id, msg, sizeof msg), CUBE_OK);
    const struct cube_mock_exit *e = xt_wait_exit(id, 5000);
    assert_string_equal(e->reason, CUBE_EXIT_FAILED);
    if (!strstr(e->message, "cannot exec the command: Permission denied"))
        fail_msg("StartError message: %s", e->message);
    free(doc), free(cmd), free(extra);
    /* Nothing is left behind in the run directory. */
    char *ls = xt_fmt("test -z \"$(ls -A '%s/run' | grep -vx '" XL_ENDS_FIFO "')\"", root);
    assert_int_equal(xt_sh("%s", ls), 0);
    free(ls);
}

/* ABI 1.5: a started replica reports its endpoints from inside start: the
 * node's address and each port the host allocated; none without ports. */
static void endpoints_are_reported_at_start(void **st)
{
    (void)st;
    char id[XL_ID_LEN], id6[XL_ID_LEN], none[XL_ID_LEN];
    run("t-ep", "[\"/bin/true\"]", "\"address\":\"127.0.0.1\","
        "\"ports\":{\"http\":30001,\"rdzv\":30002}", id);
    char *got = cube_mock_replica_endpoints(id);
    assert_non_null(got);
    assert_string_equal(got, "{\"http\":\"127.0.0.1:30001\",\"rdzv\":\"127.0.0.1:30002\"}");
    free(got);
    run("t-ep6", "[\"/bin/true\"]", "\"address\":\"::1\",\"ports\":{\"http\":30003}", id6);
    got = cube_mock_replica_endpoints(id6);
    assert_non_null(got);
    assert_string_equal(got, "{\"http\":\"[::1]:30003\"}");
    free(got);
    run("t-ep0", "[\"/bin/true\"]", "", none);
    assert_null(cube_mock_replica_endpoints(none));
    xt_wait_exit(id, 5000);
    xt_wait_exit(id6, 5000);
    xt_wait_exit(none, 5000);
}

static void home_env_and_workdir(void **st)
{
    (void)st;
    char id[XL_ID_LEN];
    run("t-env", "[\"sh\",\"-c\",\"pwd; echo home=$HOME; echo foo=$FOO; "
                 "echo proj=$CUBE_PROJECT_DIR; echo path=$PATH\"]",
        "\"env\":{\"FOO\":\"bar baz\"},\"image\":\"python:3.11\"", id);
    assert_int_equal(xt_wait_exit(id, 5000)->exit_code, 0);
    char *log = xt_log(state, "demo", "t-env");
    char *want = xt_fmt("%s/home/alice\nhome=%s/home/alice\n", root, root);
    assert_non_null(strstr(log, want));
    assert_non_null(strstr(log, "foo=bar baz\n"));
    free(want);
    want = xt_fmt("proj=%s/projects/demo\n", root);
    assert_non_null(strstr(log, want));
    assert_non_null(strstr(log, "path=/usr/local/bin:/usr/bin:/bin\n"));
    assert_non_null(strstr(log, "image \"python:3.11\" is not used"));
    free(want);
    free(log);
}

/* Nonzero when the supervisor of engine id is a zombie: ended, not waited for. */
static int is_zombie(const char *id)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", atol(id + 4));
    if (xl_read_file(path, buf, sizeof buf) <= 0)
        return 0;
    const char *st = strrchr(buf, ')');
    return st && st[1] == ' ' && st[2] == 'Z';
}

static void many_replicas_at_once(void **st)
{
    (void)st;
    enum { N = 24 };
    char ids[N][XL_ID_LEN];
    for (int i = 0; i < N; i++) {
        char name[32], cmd[128];
        snprintf(name, sizeof name, "t-many-%d", i);
        snprintf(cmd, sizeof cmd, "[\"sh\",\"-c\",\"echo replica-%d; exit %d\"]", i, i % 4);
        run(name, cmd, "", ids[i]);
    }
    for (int i = 0; i < N; i++) {
        const struct cube_mock_exit *e = xt_wait_exit(ids[i], 10000);
        assert_int_equal(e->exit_code, i % 4);
        char name[32], want[32];
        snprintf(name, sizeof name, "t-many-%d", i);
        snprintf(want, sizeof want, "replica-%d\n", i);
        char *log = xt_log(state, "demo", name);
        assert_string_equal(log, want);
        free(log);
    }
    /* The supervisors are this process's children: all waited for. */
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 100 && is_zombie(ids[i]); k++) {
            cube_mock_run_timers();
            xt_sleep_ms(10);
        }
        if (is_zombie(ids[i]))
            fail_msg("the supervisor of %s was left a zombie", ids[i]);
    }
}

/* The run directory of an engine id. */
static void run_dir_of(const char *id, char *out, size_t len)
{
    snprintf(out, len, "%s/run/%s", root, strrchr(id, ':') + 1);
}

/* Waits (without the fake host's timers) for a replica's status file. */
static void wait_status_file(const char *id)
{
    char dir[PATH_MAX], path[PATH_MAX + 16];
    run_dir_of(id, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/status", dir);
    for (long long end = xt_now_ms() + 5000; xt_now_ms() < end; xt_sleep_ms(10))
        if (access(path, F_OK) == 0)
            return;
    fail_msg("no status file for %s", id);
}

/* A "restart": the plugin is finalised and initialised again; the running
 * replica is adopted and its end reported, the one that ended meanwhile
 * is reported with its real exit code and output. */
static void readopted_after_restart(void **st)
{
    (void)st;
    char a[XL_ID_LEN], b[XL_ID_LEN], c[XL_ID_LEN];
    char *doc_a = xt_replica("alice", "demo", "t-adopt-a", "[\"sh\",\"-c\",\"echo early; "
                             "sleep 1; echo late; exit 7\"]", "");
    char *doc_b = xt_replica("bob", "other", "t-adopt-b", "[\"sh\",\"-c\",\"sleep 0.5; "
                             "echo quick; exit 5\"]", "");
    xt_start(state, doc_a, a, sizeof a);
    xt_start(state, doc_b, b, sizeof b);
    run("t-adopt-c", "[\"sleep\",\"30\"]", "", c);
    cube_mock_reset(cube_plugin_executor_local(), state);   /* "cubed" is gone */
    wait_status_file(b);   /* b ends meanwhile: nobody hears its announcement */
    assert_int_equal(cube_mock_init(cube_plugin_executor_local(), config, &state), CUBE_OK);
    const struct cube_executor_desc *ex = cube_mock_executor();
    assert_int_equal(ex->adopt(state, a, doc_a), CUBE_OK);
    assert_int_equal(ex->adopt(state, a, doc_a), CUBE_OK);   /* twice is harmless */
    assert_int_equal(ex->adopt(state, b, NULL), CUBE_OK);    /* log target from meta.json */
    /* A replica whose supervisor died without a status is not adoptable. */
    pid_t pid = (pid_t)atol(c + 4);
    assert_int_equal(kill(pid, SIGKILL), 0);
    for (int i = 0; i < 200 && xl_proc_start_time(pid); i++)
        xt_sleep_ms(5);
    assert_int_equal(ex->adopt(state, c, NULL), CUBE_ENOTFOUND);
    const struct cube_mock_exit *eb = xt_wait_exit(b, 5000);
    assert_int_equal(eb->exit_code, 5);
    char *log = xt_log(state, "other", "t-adopt-b");
    assert_string_equal(log, "quick\n");
    free(log);
    const struct cube_mock_exit *ea = xt_wait_exit(a, 5000);
    assert_int_equal(ea->exit_code, 7);
    assert_string_equal(ea->reason, CUBE_EXIT_COMPLETED);
    log = xt_log(state, "demo", "t-adopt-a");
    assert_non_null(strstr(log, "late\n"));
    free(log);
    free(doc_a);
    free(doc_b);
}

/* The real thing: the process that started a replica is killed with
 * SIGKILL; the replica keeps running and a new process adopts it. */
static void survives_kill_9_of_the_host(void **st)
{
    (void)st;
    cube_mock_reset(cube_plugin_executor_local(), state);
    state = NULL;
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t host = fork();
    if (host == 0) {   /* a short-lived "cubed" */
        void *s;
        char id[XL_ID_LEN], msg[256];
        if (cube_mock_init(cube_plugin_executor_local(), config, &s) != CUBE_OK)
            _exit(2);
        char *doc = xt_replica("carol", "demo", "t-kill9", "[\"sh\",\"-c\",\"echo before; "
                               "sleep 1; echo after; exit 4\"]", "");
        if (cube_mock_executor()->start(s, doc, id, sizeof id, msg, sizeof msg) != CUBE_OK)
            _exit(3);
        cube_mock_run_timers();
        (void)!write(p[1], id, strlen(id) + 1);
        pause();
        _exit(0);
    }
    close(p[1]);
    char id[XL_ID_LEN] = "";
    assert_true(read(p[0], id, sizeof id) > 0);
    close(p[0]);
    kill(host, SIGKILL);
    waitpid(host, NULL, 0);
    assert_int_equal(cube_mock_init(cube_plugin_executor_local(), config, &state), CUBE_OK);
    assert_int_equal(cube_mock_executor()->adopt(state, id, NULL), CUBE_OK);
    const struct cube_mock_exit *e = xt_wait_exit(id, 5000);
    assert_int_equal(e->exit_code, 4);
    char *log = xt_log(state, "demo", "t-kill9");
    assert_non_null(strstr(log, "after\n"));
    free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(true_exits_zero, setup, teardown),
        cmocka_unit_test(ends_are_reported_without_waiting_for_the_tick),
        cmocka_unit_test(ends_are_reported_side_by_side),
        cmocka_unit_test_setup_teardown(exit_code_is_reported, setup, teardown),
        cmocka_unit_test_setup_teardown(stdout_and_stderr_reach_the_log, setup, teardown),
        cmocka_unit_test_setup_teardown(output_is_prompt, setup, teardown),
        cmocka_unit_test_setup_teardown(stop_lets_it_finish_within_grace, setup, teardown),
        cmocka_unit_test_setup_teardown(stop_kills_after_grace, setup, teardown),
        cmocka_unit_test_setup_teardown(timeout_is_reported, setup, teardown),
        cmocka_unit_test_setup_teardown(start_errors_are_returned, setup, teardown),
        cmocka_unit_test_setup_teardown(endpoints_are_reported_at_start, setup, teardown),
        cmocka_unit_test_setup_teardown(home_env_and_workdir, setup, teardown),
        cmocka_unit_test_setup_teardown(many_replicas_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(readopted_after_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(survives_kill_9_of_the_host, setup, teardown),
    };
    return cmocka_run_group_tests_name("executor-local (real replicas)", tests, group_setup,
                                       group_teardown);
}
