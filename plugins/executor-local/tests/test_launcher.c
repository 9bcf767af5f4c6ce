/* test_launcher.c — supervisors forked by the launcher (launcher.c,
 * spawn.c): they come from it, not from cubed, unless `launcher: false`;
 * starts go on when it was killed (by exec(), then through a new one); a
 * plan too big for one request is exec()ed; the launcher refuses bad
 * requests and keeps serving, and ends with cubed's end of its socket.
 * Works as any user (as root, replicas get accounts, removed at the end). */
#include "xl_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define PREFIX "cxl-"

static char root[256];
static char *config;
static void *state;

static int group_setup(void **st)
{
    (void)st;
    assert_true(snprintf(root, sizeof root, "%s", xt_tmpdir("launch", 0755)) <
                (int)sizeof root);
    config = xt_config(root, "\"uid_min\":29500,\"uid_max\":29599,\"user_prefix\":\"" PREFIX
                             "\",\"group_prefix\":\"" PREFIX "p-\"");
    return 0;
}

static int group_teardown(void **st)
{
    (void)st;
    if (geteuid() == 0)
        xt_sh("userdel -f " PREFIX "alice >/dev/null 2>&1; groupdel " PREFIX "p-demo "
              ">/dev/null 2>&1");
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

/* The parent pid and state letter of pid from /proc (0 when gone). */
static pid_t parent_of(pid_t pid, char *state_out)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    if (xl_read_file(path, buf, sizeof buf) <= 0)
        return 0;
    const char *p = strrchr(buf, ')');
    char st;
    long ppid;
    if (!p || sscanf(p + 1, " %c %ld", &st, &ppid) != 2)
        return 0;
    if (state_out)
        *state_out = st;
    return (pid_t)ppid;
}

/* Starts `command` for alice (extra: more replica members); returns the
 * supervisor's parent, read while the replica still runs. */
static pid_t start_in(void *s, const char *name, const char *command, const char *extra,
                      char *id)
{
    char *doc = xt_replica("alice", "demo", name, command, extra);
    xt_start(s, doc, id, XL_ID_LEN);
    free(doc);
    return parent_of((pid_t)atol(id + 4), NULL);
}

static void supervisors_come_from_the_launcher(void **st)
{
    (void)st;
    struct xl *x = state;
    char id[XL_ID_LEN];
    pid_t parent = start_in(state, "t-launched", "[\"sleep\",\"0.3\"]", "", id);
    assert_true(x->launcher.pid > 0);
    if (parent != x->launcher.pid)
        fail_msg("the supervisor's parent is %ld, not the launcher %ld", (long)parent,
                 (long)x->launcher.pid);
    assert_int_equal(xt_wait_exit(id, 5000)->exit_code, 0);
}

/* Without setup: an instance of its own, with `launcher: false`. */
static void without_the_launcher_cubed_execs_them(void **st)
{
    (void)st;
    char id[XL_ID_LEN];
    char *off = xt_fmt("%.*s,\"launcher\":false}", (int)strlen(config) - 1, config);
    void *s = NULL;
    assert_int_equal(cube_mock_init(cube_plugin_executor_local(), off, &s), CUBE_OK);
    pid_t parent = start_in(s, "t-execd", "[\"sleep\",\"0.3\"]", "", id);
    if (parent != getpid())
        fail_msg("with launcher: false the supervisor's parent is %ld, not cubed (%ld)",
                 (long)parent, (long)getpid());
    assert_int_equal(((struct xl *)s)->launcher.pid, 0);
    assert_int_equal(xt_wait_exit(id, 5000)->exit_code, 0);
    cube_mock_reset(cube_plugin_executor_local(), s);
    free(off);
}

static void a_killed_launcher_is_replaced(void **st)
{
    (void)st;
    struct xl *x = state;
    char a[XL_ID_LEN], b[XL_ID_LEN], c[XL_ID_LEN];
    start_in(state, "t-before", "[\"true\"]", "", a);
    pid_t old = x->launcher.pid;
    assert_true(old > 0);
    assert_int_equal(kill(old, SIGKILL), 0);
    char s = 0;
    for (int i = 0; i < 400 && parent_of(old, &s) && s != 'Z'; i++)
        xt_sleep_ms(5);
    assert_int_equal(s, 'Z');   /* dead; reaped by the plugin, not here */
    pid_t parent = start_in(state, "t-fallback", "[\"sleep\",\"0.3\"]", "", b);
    if (parent != getpid())
        fail_msg("with its launcher dead the supervisor's parent is %ld, not cubed (%ld)",
                 (long)parent, (long)getpid());
    assert_int_equal(x->launcher.fd, -1);
    xt_sleep_ms(1100);   /* LAUNCHER_RETRY_MS */
    parent = start_in(state, "t-again", "[\"sleep\",\"0.3\"]", "", c);
    assert_true(x->launcher.pid > 0 && x->launcher.pid != old);
    assert_int_equal(parent, x->launcher.pid);
    assert_int_equal(xt_wait_exit(a, 5000)->exit_code, 0);
    assert_int_equal(xt_wait_exit(b, 5000)->exit_code, 0);
    assert_int_equal(xt_wait_exit(c, 5000)->exit_code, 0);
}

/* Three 50 KB variables: more than XL_LAUNCH_MAX in one request. */
static void a_plan_too_big_is_execd(void **st)
{
    (void)st;
    size_t n = 50000;
    char *big = malloc(n + 1);
    memset(big, 'x', n);
    big[n] = '\0';
    char *extra = xt_fmt("\"env\":{\"B1\":\"%s\",\"B2\":\"%s\",\"B3\":\"%s\"}", big, big, big);
    char id[XL_ID_LEN];
    pid_t parent = start_in(state, "t-big", "[\"sh\",\"-c\",\"test ${#B1}${#B2}${#B3} = "
                            "500005000050000; sleep 0.3\"]", extra, id);
    if (parent != getpid())
        fail_msg("a plan of 150 KB should be exec()ed by cubed (%ld), not by %ld",
                 (long)getpid(), (long)parent);
    const struct cube_mock_exit *e = xt_wait_exit(id, 5000);
    if (e->exit_code != 0)
        fail_msg("the big variables did not reach the replica whole: %s", e->message);
    free(extra);
    free(big);
}

/* -- the launcher program on its own -------------------------------------- */

/* Starts the supervisor program as a launcher on a socketpair; our end. */
static int start_launcher(pid_t *pid)
{
    const char *program = ((struct xl *)state)->conf.supervisor;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
    *pid = fork();
    assert_true(*pid >= 0);
    if (*pid == 0) {
        if (dup2(sv[1], XL_SUP_FD_OUT) < 0 || dup2(sv[1], XL_SUP_FD_DIR) < 0)
            _exit(126);
        execl(program, program, XL_LAUNCHER_ARG, (char *)NULL);
        _exit(127);
    }
    close(sv[1]);
    return sv[0];
}

/* Sends len bytes with nfds fds (the same fd twice) and reads the reply. */
static struct xl_launch_reply ask(int sock, const void *msg, size_t len, int fd, int nfds)
{
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int) * 2)];
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = {.iov_base = (void *)msg, .iov_len = len};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds) {
        m.msg_control = ctl.buf;
        m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        for (int i = 0; i < nfds; i++)
            memcpy(CMSG_DATA(c) + (size_t)i * sizeof(int), &fd, sizeof fd);
    }
    assert_int_equal(sendmsg(sock, &m, 0), (ssize_t)len);
    struct xl_launch_reply r = {0};
    assert_int_equal(recv(sock, &r, sizeof r, 0), (ssize_t)sizeof r);
    return r;
}

/* A request of header h followed by strings (each with its NUL). */
static size_t request(char *buf, struct xl_launch_req h, const char *strings, size_t slen)
{
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, strings, slen);
    return sizeof h + slen;
}

static void bad_requests_are_refused_and_the_launcher_serves_on(void **st)
{
    (void)st;
    pid_t lp;
    int sock = start_launcher(&lp);
    const char *dir = xt_tmpdir("launch-run", 0700);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(dfd >= 0);
    char buf[512];
    static const char plan[] = "prog\0--plan-v1\0";   /* argv of a bad plan */
    const struct xl_launch_req good = {XL_LAUNCH_MAGIC, 2, 0};
    struct {
        const char *what;
        struct xl_launch_req h;
        const char *strings;
        size_t slen;
        int nfds;
    } bad[] = {
        {"no fds", good, plan, sizeof plan - 1, 0},
        {"one fd", good, plan, sizeof plan - 1, 1},
        {"another magic", {0x12345678u, 2, 0}, plan, sizeof plan - 1, 2},
        {"fewer strings than argc + envc", {XL_LAUNCH_MAGIC, 2, 1}, plan, sizeof plan - 1, 2},
        {"no NUL at the end", good, "prog\0--plan-v1", 14, 2},
        {"argc below 2", {XL_LAUNCH_MAGIC, 1, 1}, plan, sizeof plan - 1, 2},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t n = request(buf, bad[i].h, bad[i].strings, bad[i].slen);
        struct xl_launch_reply r = ask(sock, buf, n, dfd, bad[i].nfds);
        if (r.pid != -1 || r.err != EINVAL)
            fail_msg("a request with %s was answered pid %d err %d, not -1 EINVAL",
                     bad[i].what, r.pid, r.err);
    }
    assert_int_equal(ask(sock, "short", 5, dfd, 2).err, EINVAL);
    /* Still serving: a well-formed request of a plan the supervisor refuses
     * forks a supervisor, which records the start error in the run dir. */
    size_t n = request(buf, good, plan, sizeof plan - 1);
    struct xl_launch_reply r = ask(sock, buf, n, dfd, 2);
    assert_true(r.pid > 0);
    assert_true(r.start > 0);
    char path[PATH_MAX + 16], text[512] = "";
    snprintf(path, sizeof path, "%s/status", dir);
    for (int i = 0; i < 400 && xl_read_file(path, text, sizeof text) <= 0; i++)
        xt_sleep_ms(5);
    assert_non_null(strstr(text, "verdict starterror"));
    char want[32];
    snprintf(want, sizeof want, "step %d\n", XL_STEP_PLAN);
    assert_non_null(strstr(text, want));
    /* Our end closes: the launcher ends by itself. */
    close(sock);
    int status = -1;
    long long end = xt_now_ms() + 3000;
    while (waitpid(lp, &status, WNOHANG) == 0 && xt_now_ms() < end)
        xt_sleep_ms(5);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        fail_msg("the launcher did not end cleanly when its socket closed (status %d)",
                 status);
    close(dfd);
    xt_sh("rm -rf '%s'", dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(supervisors_come_from_the_launcher, setup, teardown),
        cmocka_unit_test(without_the_launcher_cubed_execs_them),
        cmocka_unit_test_setup_teardown(a_killed_launcher_is_replaced, setup, teardown),
        cmocka_unit_test_setup_teardown(a_plan_too_big_is_execd, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_requests_are_refused_and_the_launcher_serves_on,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
