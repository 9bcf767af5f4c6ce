/* spawn.c — cubed's side of starting a replica's supervisor, and engine
 * ids. A vfork-style clone (CLONE_VM|CLONE_VFORK: no copy of cubed's large
 * address space) puts the output file and the run directory on fds 3 and 4
 * and exec()s the supervisor program with the plan on its command line
 * (plan_codec.c). cubed waits only for that exec(), not for the replica:
 * a start call costs a clone and an exec, and whatever fails later (the
 * command cannot be exec()ed, the cgroup not joined) reaches the status
 * file as a start error, like any end. Forking the supervisor out of cubed
 * used to cost page-table copies and copy-on-write faults (with TLB
 * shootdowns across cubed's threads) for as long as a supervisor lived,
 * and waiting for the replica's exec() held a Job worker per start.
 *
 * The supervisor stays cubed's child; xl_reap_supervisors collects it
 * after its end. An engine id, "pid:<pid>:<starttime>:<slot>", names the
 * supervisor robustly (a reused pid has another start time) and the run
 * directory its status goes to. */
#include "executor_local.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_STACK (64u << 10)

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

unsigned long long xl_stat_start_time(const char *stat)
{
    const char *p = strrchr(stat, ')');
    if (!p)
        return 0;
    /* The k-th space after ')' precedes field k + 2: 20 spaces to field 22. */
    for (int k = 0; k < 20; k++)
        if (!(p = strchr(p + 1, ' ')))
            return 0;
    unsigned long long v = 0;
    for (p++; *p >= '0' && *p <= '9'; p++)
        v = v * 10 + (unsigned long long)(*p - '0');
    return v;
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

int xl_spawn(const char *program, const struct xl_plan *p, struct xl_spawned *out, char *msg,
             size_t len)
{
    char **argv = xl_plan_encode(p, program);
    if (!argv)
        return snprintf(msg, len, "out of memory"), CUBE_ENOMEM;
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
