/* cmd.c — runs Slurm's commands (sbatch, squeue, scontrol, scancel) with a
 * clean environment and a deadline, optionally as a mapped account, and
 * captures what they print. Nothing of cubed's environment (its tokens,
 * passwords) reaches them.
 *
 * A command is started vfork-style (clone CLONE_VM|CLONE_VFORK, as
 * posix_spawn does, and as executor-local starts its supervisors): the
 * child runs on a stack of its own in cubed's memory until it exec()s,
 * while the calling thread waits. fork() copied cubed's page tables for
 * every squeue and sbatch and left copy-on-write faults (with TLB
 * shootdowns across cubed's threads) behind: most of cubed's CPU time under
 * a burst of Jobs. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slurm.h"

#define CMD_CAP (16u << 20)   /* at most 16 MiB of output kept per stream */
#define CHILD_STACK (64u << 10)

struct buf { char *p; size_t n, cap; };

static int buf_read(struct buf *b, int fd)
{
    if (b->cap - b->n < 4097) {
        size_t cap = b->cap ? 2 * b->cap : 8192;
        char *p = cap <= CMD_CAP + 8192 ? realloc(b->p, cap) : NULL;
        if (!p) {   /* past the cap: drain and drop */
            char sink[4096];
            return (int)read(fd, sink, sizeof sink);
        }
        b->p = p, b->cap = cap;
    }
    ssize_t r = read(fd, b->p + b->n, b->cap - b->n - 1);
    if (r > 0)
        b->n += (size_t)r;
    return (int)r;
}

static char *buf_take(struct buf *b)
{
    if (!b->p)
        return strdup("");
    b->p[b->n] = '\0';
    return b->p;
}

/* What the child needs, prepared before the clone (the child shares
 * cubed's memory: it only reads this, and makes raw system calls). */
struct prep {
    char path[400], conf[600], prog[512];
    char *env[6];
    gid_t groups[64];
    int ngroups;
    char *const *argv;
    uid_t uid;
    gid_t gid;
    int out, err;
    sigset_t mask;               /* the caller's, restored before exec */
};

/* The program argv[0] names into p->prog: the first directory of p->path
 * (bin_dir first) that has it, "" when none has (found before the clone:
 * the child makes no PATH search). */
static void find_prog(struct prep *p, const char *name)
{
    const char *dir = p->path + 5;   /* after "PATH=" */
    if (strchr(name, '/')) {
        snprintf(p->prog, sizeof p->prog, "%s", name);
        return;
    }
    while (*dir) {
        size_t n = strcspn(dir, ":");
        snprintf(p->prog, sizeof p->prog, "%.*s/%s", (int)n, dir, name);
        if (n && access(p->prog, X_OK) == 0)
            return;
        dir += n + (dir[n] == ':');
    }
    p->prog[0] = '\0';
}

static void prepare(struct prep *p, const struct sl_conf *c, char *const argv[], gid_t gid,
                    const char *user)
{
    snprintf(p->path, sizeof p->path, "PATH=%s%s/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
             c->bin_dir, c->bin_dir[0] ? ":" : "");
    snprintf(p->conf, sizeof p->conf, "SLURM_CONF=%s", c->slurm_conf);
    find_prog(p, argv[0]);
    char **e = p->env;
    *e++ = p->path, *e++ = "LANG=C", *e++ = "LC_ALL=C", *e++ = "HOME=/";
    if (c->slurm_conf[0])
        *e++ = p->conf;
    *e = NULL;
    p->ngroups = 64;
    if (!user || getgrouplist(user, gid, p->groups, &p->ngroups) < 0)
        p->groups[0] = gid, p->ngroups = 1;
}

static void child_say(const char *m)
{
    (void)!write(2, m, strlen(m));
}

/* The child: cubed's signal handlers off, stdio on the pipes, the account's
 * ids (raw system calls: glibc's set*id would ask cubed's other threads
 * to change theirs too), the caller's signal mask back, exec. It runs in
 * cubed's memory while the caller waits (all signals blocked until just
 * before exec); it never returns. Not instrumented by AddressSanitizer: the
 * poison of its frame would stay on memory cubed maps again later. */
__attribute__((no_sanitize_address))
static int child(void *arg)
{
    const struct prep *p = arg;
    struct sigaction dfl = {.sa_handler = SIG_DFL}, sa;
    for (int sig = 1; sig < NSIG; sig++)
        if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN &&
            sa.sa_handler != SIG_DFL)
            sigaction(sig, &dfl, NULL);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(p->out, 1) < 0 || dup2(p->err, 2) < 0)
        _exit(126);
    if (p->uid != (uid_t)-1 &&
        (syscall(SYS_setgroups, (size_t)p->ngroups, p->groups) != 0 ||
         syscall(SYS_setresgid, p->gid, p->gid, p->gid) != 0 ||
         syscall(SYS_setresuid, p->uid, p->uid, p->uid) != 0 ||
         syscall(SYS_setresuid, 0, 0, 0) == 0)) {
        child_say("cannot switch to the job's account\n");
        _exit(126);
    }
    sigprocmask(SIG_SETMASK, &p->mask, NULL);
    if (p->prog[0])
        execve(p->prog, p->argv, p->env);
    child_say("cannot run the Slurm command\n");
    _exit(127);
}

/* Starts the child vfork-style; its pid, or -1. */
static pid_t spawn(struct prep *p)
{
    void *stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        return -1;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &p->mask);
    pid_t pid = clone(child, (char *)stack + CHILD_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, p);
    int err = errno;
    pthread_sigmask(SIG_SETMASK, &p->mask, NULL);
    munmap(stack, CHILD_STACK);   /* CLONE_VFORK: the child exec()ed or ended */
    errno = err;
    return pid;
}

/* Reads both pipes until they close or the deadline passes. */
static int gather(int fo, int fe, struct buf *bo, struct buf *be, int64_t deadline)
{
    struct pollfd p[2] = {{fo, POLLIN, 0}, {fe, POLLIN, 0}};
    while (p[0].fd >= 0 || p[1].fd >= 0) {
        int64_t left = deadline - sl_mono_ms();
        if (left <= 0)
            return -1;
        int r = poll(p, 2, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        for (int i = 0; i < 2; i++)
            if (p[i].fd >= 0 && p[i].revents) {
                if (buf_read(i ? be : bo, p[i].fd) <= 0) {
                    close(p[i].fd);
                    p[i].fd = -1;
                }
            }
    }
    return 0;
}

int sl_cmd(const struct sl_conf *c, char *const argv[], uid_t uid, gid_t gid,
           const char *user, struct sl_cmd_out *o)
{
    int po[2] = {-1, -1}, pe[2] = {-1, -1};
    struct buf bo = {0}, be = {0};
    memset(o, 0, sizeof *o);
    o->status = -1;
    struct prep prep;
    prepare(&prep, c, argv, gid, uid != (uid_t)-1 ? user : NULL);
    if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0)
        goto fail;
    prep.argv = argv, prep.uid = uid, prep.gid = gid, prep.out = po[1], prep.err = pe[1];
    pid_t pid = spawn(&prep);
    if (pid < 0)
        goto fail;
    close(po[1]);
    close(pe[1]);
    int64_t deadline = sl_mono_ms() + c->cmd_timeout_ms;
    int late = gather(po[0], pe[0], &bo, &be, deadline);
    if (late < 0) {
        kill(pid, SIGKILL);
        o->timed_out = 1;
        close(po[0]);   /* gather closed the ones that ended */
        close(pe[0]);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    o->status = !late && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    o->out = buf_take(&bo);
    o->err = buf_take(&be);
    return CUBE_OK;
fail:
    for (int i = 0; i < 2; i++) {
        if (po[i] >= 0)
            close(po[i]);
        if (pe[i] >= 0)
            close(pe[i]);
    }
    o->out = strdup("");
    o->err = strdup(strerror(errno));
    return CUBE_EIO;
}

void sl_cmd_free(struct sl_cmd_out *o)
{
    free(o->out);
    free(o->err);
    o->out = o->err = NULL;
}

void sl_cmd_why(const struct sl_cmd_out *o, char *msg, size_t len)
{
    const char *t = o->err && *o->err ? o->err : o->out ? o->out : "";
    size_t n = strcspn(t, "\n");
    if (o->timed_out)
        snprintf(msg, len, "no answer within the command timeout");
    else if (n == 0)
        snprintf(msg, len, "exit status %d", o->status);
    else
        snprintf(msg, len, "%.*s", (int)(n < len ? n : len - 1), t);
}
