/* spawn.c — cubed's side of starting a replica's supervisor, and engine
 * ids. A vfork-style clone (CLONE_VM|CLONE_VFORK: no copy of cubed's large
 * address space) puts the output file, run directory and report pipe on
 * fds 3-5 and exec()s the supervisor program with the plan on its command
 * line (plan_codec.c); that program forks once more so that it is nobody's
 * child (init reaps it, as it would after cubed died) and tells cubed
 * through the pipe that the replica was exec()ed, or which step failed.
 * Nothing of cubed is copied: forking the supervisor out of cubed used to
 * cost page-table copies and copy-on-write faults (with TLB shootdowns
 * across cubed's threads) for as long as a supervisor lived.
 *
 * An engine id, "pid:<pid>:<starttime>:<slot>", names the supervisor
 * robustly (a reused pid has another start time) and the run directory its
 * status goes to. */
#include "executor_local.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPORT_TIMEOUT_MS 30000
#define CHILD_STACK (64u << 10)

/* What the exec child needs (it shares cubed's memory). */
struct exec_arg {
    const char *program;
    char *const *argv, *const *envp;
    int fd[3];   /* to become XL_SUP_FD_OUT, _DIR, _REPORT */
};

/* Writes "err <step> <errno>\n" with async-signal-safe calls only. */
static void child_report(int fd, int step, int err)
{
    char buf[32];
    int n = 0, d[12], k = 0;
    buf[n++] = 'e', buf[n++] = 'r', buf[n++] = 'r', buf[n++] = ' ';
    buf[n++] = (char)('0' + step / 10), buf[n++] = (char)('0' + step % 10), buf[n++] = ' ';
    unsigned u = err < 0 ? 0u : (unsigned)err;
    do
        d[k++] = (int)(u % 10);
    while ((u /= 10) && k < 12);
    while (k)
        buf[n++] = (char)('0' + d[--k]);
    buf[n++] = '\n';
    (void)!write(fd, buf, (size_t)n);
}

/* The child: fds 3-5 in place (not close-on-exec), then the supervisor.
 * It runs on its own stack in cubed's memory while the calling thread is
 * suspended, with all signals blocked; async-signal-safe calls only. The
 * fd table is its own (no CLONE_FILES), so cubed's fds are untouched. */
static int exec_main(void *arg)
{
    const struct exec_arg *e = arg;
    int tmp[3] = {-1, -1, -1};
    for (int i = 0; i < 3; i++)   /* above 5 first: a source may sit on 3-5 */
        if ((tmp[i] = fcntl(e->fd[i], F_DUPFD_CLOEXEC, 10)) < 0)
            goto fail;
    for (int i = 0; i < 3; i++)
        if (dup2(tmp[i], XL_SUP_FD_OUT + i) < 0)   /* dup2 clears close-on-exec */
            goto fail;
    execve(e->program, e->argv, e->envp);
fail:
    child_report(e->fd[2], XL_STEP_SUPEXEC, errno);
    _exit(127);
}

/* Starts exec_main as a vfork-style child; its pid, or -1 with errno. */
static pid_t clone_exec(struct exec_arg *e)
{
    void *stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        return -1;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = clone(exec_main, (char *)stack + CHILD_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD,
                      e);
    int err = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    munmap(stack, CHILD_STACK);   /* CLONE_VFORK: the child exec()ed or ended */
    errno = err;
    return pid;
}

int xl_engine_id_format(char *out, size_t len, pid_t pid, unsigned long long start,
                        const char *slot)
{
    int n = snprintf(out, len, "pid:%ld:%llu:%s", (long)pid, start, slot);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int xl_engine_id_parse(const char *id, pid_t *pid, unsigned long long *start, char *slot,
                       size_t slot_len)
{
    long p;
    unsigned long long s;
    int used = 0;
    char sl[64];
    if (!id || strncmp(id, "pid:", 4) != 0 ||
        sscanf(id, "pid:%ld:%llu:%63[0-9a-z-]%n", &p, &s, sl, &used) != 3 ||
        id[used] != '\0' || p <= 1 || p > 4194304 || s == 0 || !xl_slot_valid(sl) ||
        strlen(sl) >= slot_len)
        return -1;
    /* Only the canonical spelling: no leading zeros or signs sneak in. */
    char again[XL_ID_LEN];
    if (xl_engine_id_format(again, sizeof again, (pid_t)p, s, sl) < 0 || strcmp(again, id))
        return -1;
    *pid = (pid_t)p;
    *start = s;
    snprintf(slot, slot_len, "%s", sl);
    return 0;
}

unsigned long long xl_proc_start_time(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    if (xl_read_file(path, buf, sizeof buf) <= 0)
        return 0;
    const char *state = strrchr(buf, ')');
    if (!state || state[1] != ' ' || state[2] == 'Z' || state[2] == 'X')
        return 0;   /* a zombie has ended, even if nobody reaped it yet */
    return xl_stat_start_time(buf);
}

/* Reads the supervisor's report line (or EOF) within the timeout. */
static int read_report(int fd, char *buf, size_t len)
{
    size_t got = 0;
    for (;;) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int r = poll(&pfd, 1, REPORT_TIMEOUT_MS);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        ssize_t n = read(fd, buf + got, len - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        buf[got] = '\0';
        if (strchr(buf, '\n') || got == len - 1)
            break;
    }
    buf[got] = '\0';
    return (int)got;
}

/* Turns the report into out or an error message. */
static int parse_report(const char *line, struct xl_spawned *out, char *msg, size_t len)
{
    long a;
    unsigned long long b;
    long c;
    int step, err;
    if (sscanf(line, "ok %ld %llu %ld", &a, &b, &c) == 3 && a > 1 && c > 1) {
        out->sup_pid = (pid_t)a;
        out->sup_start = b;
        out->rep_pid = (pid_t)c;
        return CUBE_OK;
    }
    if (sscanf(line, "err %d %d", &step, &err) == 2) {
        snprintf(msg, len, "cannot %s: %s", xl_step_name(step), strerror(err));
        return CUBE_EIO;
    }
    snprintf(msg, len, "the supervisor ended without a report");
    return CUBE_EIO;
}

int xl_spawn(const char *program, const struct xl_plan *p, struct xl_spawned *out, char *msg,
             size_t len)
{
    char **argv = xl_plan_encode(p, program);
    if (!argv)
        return snprintf(msg, len, "out of memory"), CUBE_ENOMEM;
    int rp[2];
    if (pipe2(rp, O_CLOEXEC) < 0) {
        xl_strv_free(argv);
        return snprintf(msg, len, "pipe: %s", strerror(errno)), CUBE_EIO;
    }
    struct exec_arg e = {.program = program, .argv = argv, .envp = p->envp,
                         .fd = {p->out_fd, p->dir_fd, rp[1]}};
    pid_t pid = clone_exec(&e);
    int err = errno;
    close(rp[1]);
    xl_strv_free(argv);
    if (pid < 0) {
        close(rp[0]);
        return snprintf(msg, len, "clone: %s", strerror(err)), CUBE_EIO;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}   /* it forks and ends at once */
    char line[256];
    int got = read_report(rp[0], line, sizeof line);
    close(rp[0]);
    if (got < 0)
        return snprintf(msg, len, "the supervisor did not report within %d s",
                        REPORT_TIMEOUT_MS / 1000), CUBE_EIO;
    return parse_report(line, out, msg, len);
}
