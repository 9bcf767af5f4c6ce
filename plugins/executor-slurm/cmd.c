/* cmd.c — runs Slurm's commands (sbatch, squeue, scontrol, scancel) with a
 * clean environment and a deadline, optionally as a mapped account, and
 * captures what they print. Nothing of cubed's environment (its tokens,
 * passwords) reaches them. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slurm.h"

#define CMD_CAP (16u << 20)   /* at most 16 MiB of output kept per stream */

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

/* What the child needs, prepared before fork (only async-signal-safe calls
 * run between fork and exec). */
struct prep {
    char path[400], conf[600], prog[512];
    char *env[6];
    gid_t groups[64];
    int ngroups;
};

static void prepare(struct prep *p, const struct sl_conf *c, char *const argv[], gid_t gid,
                    const char *user)
{
    snprintf(p->path, sizeof p->path, "PATH=%s%s/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
             c->bin_dir, c->bin_dir[0] ? ":" : "");
    snprintf(p->conf, sizeof p->conf, "SLURM_CONF=%s", c->slurm_conf);
    p->prog[0] = '\0';
    if (c->bin_dir[0] && !strchr(argv[0], '/'))
        snprintf(p->prog, sizeof p->prog, "%s/%s", c->bin_dir, argv[0]);
    char **e = p->env;
    *e++ = p->path, *e++ = "LANG=C", *e++ = "LC_ALL=C", *e++ = "HOME=/";
    if (c->slurm_conf[0])
        *e++ = p->conf;
    *e = NULL;
    p->ngroups = 64;
    if (!user || getgrouplist(user, gid, p->groups, &p->ngroups) < 0)
        p->groups[0] = gid, p->ngroups = 1;
}

/* The child: drops to the account, execs the command. Never returns. */
static void child(const struct prep *p, char *const argv[], uid_t uid, gid_t gid, int out,
                  int err)
{
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
        _exit(126);
    if (uid != (uid_t)-1 &&
        (setgroups((size_t)p->ngroups, p->groups) < 0 || setgid(gid) < 0 || setuid(uid) < 0 ||
         setuid(0) == 0)) {
        static const char m[] = "cannot switch to the job's account\n";
        (void)!write(2, m, sizeof m - 1);
        _exit(126);
    }
    if (p->prog[0])
        execve(p->prog, argv, p->env);
    execvpe(argv[0], argv, p->env);
    static const char m[] = "cannot run the Slurm command\n";
    (void)!write(2, m, sizeof m - 1);
    _exit(127);
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
    pid_t pid = fork();
    if (pid < 0)
        goto fail;
    if (pid == 0)
        child(&prep, argv, uid, gid, po[1], pe[1]);
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
