/* spawn.c — cubed's side of starting a replica's supervisor, and engine
 * ids. Two ways, with the same argv, environment and fds:
 *
 * Through the launcher (executor_local.h, launcher.c), by default: one
 * request on its socket and the answer with the supervisor's pid; the
 * launcher forks it. It is started on first use, and after it failed (it
 * was killed, it did not answer within LAUNCH_REPLY_MS) started again on a
 * later start, not before LAUNCHER_RETRY_MS; meanwhile, and for a plan too
 * big for one request, supervisors are exec()ed as below.
 *
 * By exec(): a vfork-style clone (CLONE_VM|CLONE_VFORK: no copy of cubed's
 * large address space) puts the output file and the run directory on fds
 * 3 and 4 and exec()s the supervisor program with the plan on its command
 * line (plan_codec.c). cubed waits only for that exec(), not for the
 * replica. Forking the supervisor out of cubed used to cost page-table
 * copies and copy-on-write faults (with TLB shootdowns across cubed's
 * threads) for as long as a supervisor lived.
 *
 * Either way a start call does not wait for the replica: whatever fails
 * later (the command cannot be exec()ed, the cgroup not joined) reaches
 * the status file as a start error, like any end. An exec()ed supervisor
 * stays cubed's child (xl_reap_supervisors collects it after its end); a
 * launched one is the launcher's. An engine id,
 * "pid:<pid>:<starttime>:<slot>", names the supervisor robustly (a reused
 * pid has another start time) and the run directory its status goes to. */
#include "executor_local.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHILD_STACK (64u << 10)
#define LAUNCH_REPLY_MS 5000      /* a launcher that does not answer is replaced */
#define LAUNCHER_RETRY_MS 1000    /* no new launcher sooner after a failure */

/* What the exec child needs (it shares cubed's memory). */
struct exec_arg {
    const char *program;
    char *const *argv, *const *envp;
    int fd[2];   /* to become XL_SUP_FD_OUT and XL_SUP_FD_DIR */
    int err;     /* set by the child when it could not exec() */
};

/* The child: fds 3 and 4 in place (not close-on-exec), then the
 * supervisor. It runs on its own stack in cubed's memory while the calling
 * thread is suspended, with all signals blocked; async-signal-safe calls
 * only. The fd table is its own (no CLONE_FILES): cubed's fds are
 * untouched, and its close-on-exec ones never reach the supervisor.
 * Not instrumented by AddressSanitizer: the child never returns, so the
 * poison of its frame would stay on memory cubed maps again later. */
__attribute__((no_sanitize_address))
static int exec_main(void *arg)
{
    struct exec_arg *e = arg;
    /* above 4 first: a source may sit on 3 or 4; dup2 clears close-on-exec */
    int out = fcntl(e->fd[0], F_DUPFD_CLOEXEC, 10), dir = fcntl(e->fd[1], F_DUPFD_CLOEXEC, 10);
    if (out >= 0 && dir >= 0 && dup2(out, XL_SUP_FD_OUT) >= 0 && dup2(dir, XL_SUP_FD_DIR) >= 0)
        execve(e->program, e->argv, e->envp);
    e->err = errno ? errno : EIO;   /* cubed reads it once this child ended */
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

/* -- the launcher --------------------------------------------------------- */

static long long mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void xl_launcher_init(struct xl_launcher *l)
{
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->mu, NULL);
    l->fd = -1;
}

/* Closes cubed's end (the launcher then ends) and reaps the launcher,
 * killing it after a second. Caller holds l->mu. */
static void launcher_close(struct xl_launcher *l)
{
    if (l->fd >= 0)
        close(l->fd);
    l->fd = -1;
    pid_t got = 0;   /* 0 while it runs; then never signal the pid again */
    for (int i = 0; l->pid > 0 && i < 200 && (got = waitpid(l->pid, NULL, WNOHANG)) == 0; i++)
        nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
    if (l->pid > 0 && got == 0 && kill(l->pid, SIGKILL) == 0)
        while (waitpid(l->pid, NULL, 0) < 0 && errno == EINTR) {}
    l->pid = 0;
}

void xl_launcher_stop(struct xl_launcher *l)
{
    pthread_mutex_lock(&l->mu);
    launcher_close(l);
    pthread_mutex_unlock(&l->mu);
    pthread_mutex_destroy(&l->mu);
}

/* Starts the launcher (program: the supervisor program); 0 or -1. Caller
 * holds l->mu. */
static int launcher_open(struct xl_launcher *l, const char *program)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return -1;
    int size = 2 * XL_LAUNCH_MAX;   /* room for the largest request; best effort */
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    char *argv[] = {(char *)program, XL_LAUNCHER_ARG, NULL}, *envp[] = {NULL};
    struct exec_arg e = {.program = program, .argv = argv, .envp = envp, .fd = {sv[1], sv[1]}};
    pid_t pid = clone_exec(&e);
    close(sv[1]);
    if (pid > 0 && e.err)
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
    if (pid < 0 || e.err) {
        close(sv[0]);
        return -1;
    }
    l->fd = sv[0];
    l->pid = pid;
    return 0;
}

/* The request for argv and envp (malloc()ed into *buf); its length, or 0
 * when it would pass XL_LAUNCH_MAX or memory ran out. */
static size_t build_request(char *const *argv, char *const *envp, char **buf)
{
    struct xl_launch_req h = {.magic = XL_LAUNCH_MAGIC};
    size_t n = sizeof h;
    for (h.argc = 0; argv[h.argc] && n <= XL_LAUNCH_MAX; h.argc++)
        n += strlen(argv[h.argc]) + 1;
    for (h.envc = 0; envp && envp[h.envc] && n <= XL_LAUNCH_MAX; h.envc++)
        n += strlen(envp[h.envc]) + 1;
    if (n > XL_LAUNCH_MAX || !(*buf = malloc(n)))
        return 0;
    memcpy(*buf, &h, sizeof h);
    char *p = *buf + sizeof h;
    for (uint32_t i = 0; i < h.argc; i++)
        p = stpcpy(p, argv[i]) + 1;
    for (uint32_t i = 0; i < h.envc; i++)
        p = stpcpy(p, envp[i]) + 1;
    return n;
}

/* Sends a request with the two fds and reads the answer: 0, 1 when the
 * request is too big for the socket, -1 when the launcher failed. Caller
 * holds l->mu. */
static int exchange(struct xl_launcher *l, const char *req, size_t n, int out_fd, int dir_fd,
                    struct xl_launch_reply *r)
{
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int) * 2)];
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = {.iov_base = (void *)req, .iov_len = n};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                       .msg_controllen = sizeof ctl.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * 2);
    memcpy(CMSG_DATA(c), (int[2]){out_fd, dir_fd}, sizeof(int) * 2);
    ssize_t k;
    while ((k = sendmsg(l->fd, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
    if (k < 0 && errno == EMSGSIZE)
        return 1;
    if (k != (ssize_t)n)
        return -1;
    struct pollfd pfd = {.fd = l->fd, .events = POLLIN};
    long long end = mono_ms() + LAUNCH_REPLY_MS, left;
    int ready = -1;
    while ((left = end - mono_ms()) > 0 &&
           (ready = poll(&pfd, 1, (int)left)) < 0 && errno == EINTR) {}
    if (ready <= 0)
        return -1;
    while ((k = recv(l->fd, r, sizeof *r, 0)) < 0 && errno == EINTR) {}
    return k == (ssize_t)sizeof *r ? 0 : -1;
}

/* Has the launcher start the supervisor: 0 with *out, -1 when it should be
 * exec()ed instead (no launcher, a plan too big, the launcher failed or
 * could not fork). */
static int spawn_launched(struct xl_launcher *l, const char *program, char *const *argv,
                          const struct xl_plan *p, struct xl_spawned *out)
{
    char *req = NULL;
    size_t n = build_request(argv, p->envp, &req);
    if (!n)
        return -1;
    struct xl_launch_reply r = {.pid = -1};
    pthread_mutex_lock(&l->mu);
    long long now = mono_ms();
    if (l->fd < 0 && now >= l->retry_ms && launcher_open(l, program) < 0)
        l->retry_ms = now + LAUNCHER_RETRY_MS;
    int ex = l->fd >= 0 ? exchange(l, req, n, p->out_fd, p->dir_fd, &r) : 1;
    if (ex < 0) {
        launcher_close(l);
        l->retry_ms = now + LAUNCHER_RETRY_MS;
    }
    pthread_mutex_unlock(&l->mu);
    free(req);
    if (ex != 0 || r.pid <= 0)
        return -1;
    out->sup_pid = r.pid;
    out->sup_start = r.start;
    out->launched = 1;
    return 0;
}

/* -- engine ids ------------------------------------------------------------ */

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

int xl_spawn(const char *program, struct xl_launcher *l, const struct xl_plan *p,
             struct xl_spawned *out, char *msg, size_t len)
{
    char **argv = xl_plan_encode(p, program);
    if (!argv)
        return snprintf(msg, len, "out of memory"), CUBE_ENOMEM;
    memset(out, 0, sizeof *out);
    if (l && spawn_launched(l, program, argv, p, out) == 0) {
        xl_strv_free(argv);
        return CUBE_OK;
    }
    struct exec_arg e = {.program = program, .argv = argv, .envp = p->envp,
                         .fd = {p->out_fd, p->dir_fd}};
    pid_t pid = clone_exec(&e);
    int err = errno;
    xl_strv_free(argv);
    if (pid < 0)
        return snprintf(msg, len, "clone: %s", strerror(err)), CUBE_EIO;
    if (e.err) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        return snprintf(msg, len, "cannot exec the supervisor %s: %s", program,
                        strerror(e.err)), CUBE_EIO;
    }
    out->sup_pid = pid;
    out->sup_start = xl_proc_start_time(pid);
    return CUBE_OK;
}
