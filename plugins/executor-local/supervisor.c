/* supervisor.c — the per-replica supervisor and the replica child, in
 * the supervisor program (cube-xl-supervisor, supervisor_main.c) that
 * cubed exec()s for each replica.
 *
 * The supervisor lives in its own session (surviving cubed), waits for the
 * replica, enforces stop requests and the timeout (SIGTERM to the
 * replica's process group, SIGKILL after grace), and writes how the replica
 * ended to <run dir>/status. The replica child shares the supervisor's
 * memory until it exec()s (a vfork-style clone), so it makes only
 * async-signal-safe calls: raw system calls, no malloc, no stdio.
 *
 * Its file descriptors: 0-2 /dev/null, 3 the output file, 4 the run
 * directory. Start errors after cubed's start call returned (the command
 * cannot be exec()ed, the cgroup not joined ...) are recorded in the status
 * file with verdict "starterror" and the failed step, like any end. */
#include "executor_local.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { FD_OUT = XL_SUP_FD_OUT, FD_DIR = XL_SUP_FD_DIR, FD_FIRST_FREE = XL_SUP_FD_DIR + 1 };
enum { V_NONE, V_STOPPED, V_TIMEOUT, V_STARTERROR };
static const char *const VERDICT[] = {"none", "stopped", "timeout", "starterror"};
/* -- async-signal-safe helpers ------------------------------------------- */

static size_t slen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

/* Appends s at p (never past end); returns the new end of text. */
static char *put_s(char *p, char *end, const char *s)
{
    while (*s && p < end)
        *p++ = *s++;
    return p;
}

/* Appends v in decimal. */
static char *put_n(char *p, char *end, long long v)
{
    char tmp[24];
    int n = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do
        tmp[n++] = (char)('0' + u % 10);
    while ((u /= 10) && n < 23);
    if (v < 0 && p < end)
        *p++ = '-';
    while (n && p < end)
        *p++ = tmp[--n];
    return p;
}

static void write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return;
        s += k;
        n -= (size_t)k;
    }
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

/* Reads a small file (path, or name relative to dirfd) into buf; bytes or -1. */
static ssize_t read_small(int dirfd, const char *path, char *buf, size_t len)
{
    int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return n;
}

/* The number at the start of text; -1 when there is none. */
static long long leading_number(const char *text)
{
    long long v = -1;
    for (; *text >= '0' && *text <= '9'; text++)
        v = (v < 0 ? 0 : v * 10) + (*text - '0');
    return v;
}

/* The number after "key " at the start of a line of text; -1 when absent. */
static long long find_counter(const char *text, const char *key)
{
    size_t k = slen(key);
    for (const char *p = text; *p; p++) {
        if ((p == text || p[-1] == '\n') && strncmp(p, key, k) == 0 && p[k] == ' ') {
            long long v = 0;
            for (p += k + 1; *p >= '0' && *p <= '9'; p++)
                v = v * 10 + (*p - '0');
            return v;
        }
    }
    return -1;
}

/* -- the replica child --------------------------------------------------- */

/* Tells the supervisor which step failed (and says so in the output). */
__attribute__((noreturn)) static void child_fail(int pipe_fd, int step, int err)
{
    int m[2] = {step, err};
    write_all(pipe_fd, (const char *)m, sizeof m);
    char line[256], *p = line, *end = line + sizeof line - 1;
    p = put_s(p, end, "executor-local: cannot ");
    p = put_s(p, end, xl_step_name(step));
    p = put_s(p, end, " (errno ");
    p = put_n(p, end, err);
    p = put_s(p, end, ")\n");
    write_all(2, line, (size_t)(p - line));
    _exit(127);
}

/* Writes "0" (this process) into each cgroup.procs file. */
static int join_cgroups(const struct xl_plan *p)
{
    for (int i = 0; i < p->nprocs; i++) {
        int fd = open(p->procs[i], O_WRONLY | O_CLOEXEC);
        if (fd < 0)
            return -1;
        ssize_t k = write(fd, "0", 1);
        close(fd);
        if (k != 1)
            return -1;
    }
    return 0;
}

/* mkdir of every ancestor of path and path itself (existing ones kept). */
static int mkdir_all(const char *path)
{
    char tmp[PATH_MAX];
    size_t n = slen(path);
    if (n >= sizeof tmp)
        return -1;
    memcpy(tmp, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (tmp[i] != '/' && tmp[i] != '\0')
            continue;
        char c = tmp[i];
        tmp[i] = '\0';
        if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
            return -1;
        tmp[i] = c;
    }
    return 0;
}

/* The private mount view: tmpfs over closed directories, own dirs back. */
static int setup_view(const struct xl_view *v)
{
    int fds[XL_VIEW_MAX];
    if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
        return -1;
    /* Opened in the new namespace: a bind's source must be one of its mounts. */
    for (int i = 0; i < v->nbind; i++)
        if ((fds[i] = open(v->bind[i], O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
            return -1;
    for (int i = 0; i < v->nhide; i++)
        if (mount("tmpfs", v->hide[i], "tmpfs", MS_NOSUID | MS_NODEV,
                  "mode=0755,size=1m") < 0)
            return -1;
    for (int i = 0; i < v->nbind; i++) {
        char src[64], *p = put_s(src, src + 40, "/proc/self/fd/");
        *put_n(p, src + 63, fds[i]) = '\0';
        if (mkdir_all(v->bind[i]) < 0 || mount(src, v->bind[i], NULL, MS_BIND | MS_REC, NULL) < 0)
            return -1;
        close(fds[i]);
    }
    return 0;
}

/* Switches to the replica's account with raw system calls (only this
 * thread exists; glibc's wrappers would signal threads that do not). */
static int drop_privileges(const struct xl_plan *p, int *step)
{
    *step = XL_STEP_GROUPS;
    if (syscall(SYS_setgroups, (size_t)p->ngroups, p->groups) < 0)
        return -1;
    *step = XL_STEP_GID;
    if (syscall(SYS_setresgid, p->gid, p->gid, p->gid) < 0)
        return -1;
    *step = XL_STEP_UID;
    return syscall(SYS_setresuid, p->uid, p->uid, p->uid) < 0 ? -1 : 0;
}

/* Sets up and execs the replica; never returns. */
__attribute__((noreturn)) static void replica_child(const struct xl_plan *p, int pipe_fd)
{
    sigset_t none;
    sigemptyset(&none);
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* What the replica writes is its account's alone to change: readable
     * by the project group, never writable by it (a pipeline run's files
     * are handed from task to task; another member replacing one would
     * run code as this account). The project dir itself stays writable
     * by the group (accounts.c). */
    umask(022);
    if (setsid() < 0)
        child_fail(pipe_fd, XL_STEP_FDS, errno);
    if (join_cgroups(p) < 0)
        child_fail(pipe_fd, XL_STEP_CGROUP, errno);
    if (p->view && p->view->nhide && setup_view(p->view) < 0)
        child_fail(pipe_fd, XL_STEP_VIEW, errno);
    if (dup2(FD_OUT, 1) < 0 || dup2(FD_OUT, 2) < 0)
        child_fail(pipe_fd, XL_STEP_FDS, errno);
    int step = XL_STEP_UID;
    if (p->drop && drop_privileges(p, &step) < 0)
        child_fail(pipe_fd, step, errno);
    if (chdir(p->workdir) < 0)
        child_fail(pipe_fd, XL_STEP_CHDIR, errno);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        child_fail(pipe_fd, XL_STEP_NNP, errno);
    int err = ENOENT;
    for (char *const *c = p->exec_paths; *c; c++) {
        execve(*c, p->argv, p->envp);
        if (errno != ENOENT && errno != ENOTDIR) {
            err = errno;
            break;
        }
    }
    child_fail(pipe_fd, XL_STEP_EXEC, err);
}

/* What replica_main needs; it shares the supervisor's memory. */
struct child_arg {
    const struct xl_plan *plan;
    int pipe_fd;
};

static int replica_main(void *arg)
{
    const struct child_arg *c = arg;
    replica_child(c->plan, c->pipe_fd);
}

/* Starts the replica child vfork-style (CLONE_VM|CLONE_VFORK, as
 * posix_spawn does: no copy of the address space; the supervisor waits
 * until it exec()ed or ended). Its pid, or -1 with errno. */
static pid_t clone_replica(const struct xl_plan *p, int pipe_fd)
{
    static char stack[64 << 10] __attribute__((aligned(64)));
    struct child_arg c = {.plan = p, .pipe_fd = pipe_fd};
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);   /* no handler runs on the child's stack */
    pid_t pid = clone(replica_main, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &c);
    int e = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return pid;
}

/* -- the supervisor ------------------------------------------------------ */

/* Tells cubed's executor the run ended (ends.c): its slot and a newline
 * into the FIFO beside the run directory, one atomic write. Nobody
 * reading, or a full FIFO: skipped (cubed's tick finds the status). */
static void announce_end(const struct xl_plan *p)
{
    if (!p->slot[0])
        return;
    char line[80], *o = put_s(line, line + sizeof line - 1, p->slot);
    *o++ = '\n';
    int fd = openat(FD_DIR, "../" XL_ENDS_FIFO, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
        (void)!write(fd, line, (size_t)(o - line));
    close(fd);
}

/* Writes <run dir>/status atomically (rename; no fsync: only a crash of
 * the machine could lose it, and that ends the replica's story anyway). */
static void write_status(const struct xl_plan *p, int wstatus, int verdict, int step, int err)
{
    char buf[512], text[256], *o = text, *end = text + sizeof text;
    long long oom = -1, failcnt = -1;
    if (*p->oom_file && read_small(AT_FDCWD, p->oom_file, buf, sizeof buf) > 0)
        oom = find_counter(buf, "oom_kill");
    if (*p->failcnt_file && read_small(AT_FDCWD, p->failcnt_file, buf, sizeof buf) > 0)
        failcnt = leading_number(buf);
    o = put_s(o, end, "status "), o = put_n(o, end, wstatus);
    o = put_s(o, end, "\nverdict "), o = put_s(o, end, VERDICT[verdict]);
    o = put_s(o, end, "\noom "), o = put_n(o, end, oom);
    o = put_s(o, end, "\nfailcnt "), o = put_n(o, end, failcnt);
    o = put_s(o, end, "\nstep "), o = put_n(o, end, step);
    o = put_s(o, end, "\nerrno "), o = put_n(o, end, err);
    o = put_s(o, end, "\n");
    int fd = openat(FD_DIR, "status.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    write_all(fd, text, (size_t)(o - text));
    close(fd);
    renameat(FD_DIR, "status.tmp", FD_DIR, "status");
    announce_end(p);
}

/* The grace period of a stop request (<run dir>/stop), in ms. */
static long long stop_grace_ms(void)
{
    char buf[32];
    if (read_small(FD_DIR, "stop", buf, sizeof buf) <= 0)
        return 10000;
    long long v = leading_number(buf);
    return v < 0 ? 10000 : v * 1000;
}

/* Keeps 3 and 4 (close-on-exec: the replica gets the output on 1 and 2),
 * closes every other fd, and puts /dev/null on 0-2. */
static int arrange_fds(void)
{
    if (fcntl(FD_OUT, F_SETFD, FD_CLOEXEC) < 0 || fcntl(FD_DIR, F_SETFD, FD_CLOEXEC) < 0)
        return -1;
    if (syscall(SYS_close_range, FD_FIRST_FREE, ~0U, 0) < 0)
        for (int fd = FD_FIRST_FREE; fd < 65536; fd++)
            close(fd);
    int null = open("/dev/null", O_RDWR);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
        return -1;
    if (null > 2)
        close(null);
    return 0;
}

/* The supervisor's state while the replica runs. */
struct watch {
    pid_t rpid;
    int verdict, status;
    long long deadline, kill_at;   /* monotonic ms; 0: none */
    long long grace_ms;
    int killed;                    /* SIGKILL was sent */
};

/* Signals the replica's process group: SIGTERM now, SIGKILL at kill_at. */
static void terminate(struct watch *w, long long now, long long grace_ms)
{
    if (grace_ms <= 0) {
        kill(-w->rpid, SIGKILL);
        w->killed = 1;
        w->kill_at = now + 1000;
        return;
    }
    kill(-w->rpid, SIGTERM);
    if (!w->kill_at || now + grace_ms < w->kill_at)
        w->kill_at = now + grace_ms;
}

/* Handles the deadlines that passed; returns ms until the next one. */
static long long due(struct watch *w, long long now)
{
    if (w->deadline && now >= w->deadline) {
        w->deadline = 0;
        if (w->verdict == V_NONE) {
            w->verdict = V_TIMEOUT;
            terminate(w, now, w->grace_ms);
        }
    }
    if (w->kill_at && now >= w->kill_at) {
        kill(-w->rpid, SIGKILL);
        w->killed = 1;
        w->kill_at = now + 1000;   /* again, for anything that slipped by */
    }
    long long next = 1000;
    if (w->deadline && w->deadline - now < next)
        next = w->deadline - now;
    if (w->kill_at && w->kill_at - now < next)
        next = w->kill_at - now;
    return next < 1 ? 1 : next;
}

/* Waits for the replica, acting on stop requests and the timeout. */
static void watch_replica(struct watch *w)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGTERM);
    for (;;) {
        pid_t r = waitpid(w->rpid, &w->status, WNOHANG);
        if (r == w->rpid || (r < 0 && errno == ECHILD))
            break;
        long long now = now_ms(), wait = due(w, now);
        struct timespec ts = {wait / 1000, (wait % 1000) * 1000000L};
        if (sigtimedwait(&set, NULL, &ts) == SIGTERM) {   /* cubed asks to stop */
            if (w->verdict == V_NONE)
                w->verdict = V_STOPPED;
            terminate(w, now_ms(), stop_grace_ms());
        }
    }
    /* The main process ended during a grace period: what is left of its
     * group gets the rest of it, then SIGKILL. */
    while (w->kill_at && !w->killed && kill(-w->rpid, 0) == 0 && now_ms() < w->kill_at)
        sleep_ms(50);
    kill(-w->rpid, SIGKILL);
}

/* Resets signal handling: defaults, SIGPIPE ignored, SIGCHLD and SIGTERM
 * blocked (cubed blocked them before fork; they are taken synchronously). */
static void reset_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            sigaction(s, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_SETMASK, &set, NULL);
}

/* Forks the replica; waits until it exec()ed or failed. The replica's pid,
 * or -1 after recording the failure. */
static pid_t launch(const struct xl_plan *p)
{
    int ep[2], m[2] = {0, 0};
    if (pipe2(ep, O_CLOEXEC) < 0) {
        write_status(p, 0, V_STARTERROR, XL_STEP_FORK, errno);
        return -1;
    }
    pid_t rpid = clone_replica(p, ep[1]);
    int e = errno;
    close(ep[1]);
    ssize_t n = rpid < 0 ? -1 : 0;
    while (rpid > 0 && (n = read(ep[0], m, sizeof m)) < 0 && errno == EINTR) {}
    close(ep[0]);
    if (rpid < 0 || n == (ssize_t)sizeof m) {
        int st = 0, step = rpid < 0 ? XL_STEP_FORK : m[0], err = rpid < 0 ? e : m[1];
        if (rpid > 0)
            while (waitpid(rpid, &st, 0) < 0 && errno == EINTR) {}
        write_status(p, st, V_STARTERROR, step, err);
        return -1;
    }
    return rpid;
}

void xl_supervise_refuse(const struct xl_plan *p, int step, int err)
{
    write_status(p, 0, V_STARTERROR, step, err);
    _exit(1);
}

void xl_supervise(const struct xl_plan *p)
{
    setsid();
    if (arrange_fds() < 0)
        xl_supervise_refuse(p, XL_STEP_FDS, errno);
    reset_signals();
    pid_t rpid = launch(p);
    if (rpid < 0)
        _exit(1);
    struct watch w = {.rpid = rpid, .verdict = V_NONE, .grace_ms = (long long)p->grace_s * 1000};
    if (p->timeout_s)
        w.deadline = now_ms() + (long long)p->timeout_s * 1000;
    watch_replica(&w);
    write_status(p, w.status, w.verdict, 0, 0);
    _exit(0);
}
