/* rundirs.c — who may write a run's files. Files one user's task hands to
 * the next must be that user's alone (or be verified by checksum before a
 * code-bearing format is loaded: the built-in templates do, templates/).
 *
 * The project's shared directory is writable by every member (root's,
 * 03770: setgid, sticky; executor-local). Under it:
 *   pipeline-runs/        root's and sticky, made and repaired here before
 *                         a run's Jobs are created: every member adds runs,
 *                         only a run's owner (or root) removes or renames
 *                         it (03770 with the project dir's group; 01777
 *                         while that is still root's, before the project's
 *                         first replica).
 *   pipeline-runs/<run>/  made by the run's first task, as the account the
 *                         run's tasks run as (its wrapper, taskjob.c; umask
 *                         022: drwxr-sr-x), like everything below it.
 * A member may make a directory named like someone else's run before that
 * run's first task does (scheduled runs' names are predictable): the
 * wrapper refuses to run a task in a run directory that is not a real
 * directory of its own account (PL_RUN_DIR_CHECK).
 *
 * The plugin itself (root) makes directories in a run's directory, and
 * lets a task run without the wrapper (taskdirs.c, taskjob.c), only once
 * the directory is vouched for: a task of the run that ran through the
 * wrapper (which checked) succeeded, and the directory is still the same
 * one (device, inode, owner) and writable by its owner only. Vouchers are
 * kept in memory, at most PL_VOUCH_SLOTS (a restart or an eviction
 * forgets them: the run's next tasks go through the wrapper again). A run
 * made before this (umask 002: group-writable) is made private when it is
 * vouched for: write bits of group and others are cleared throughout and
 * what other accounts put there is taken over (links and special files
 * are removed). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pipeline.h"

#define DIR_OPEN (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define RUNS "pipeline-runs"
#define TIGHTEN_DEPTH 32   /* an old run's tree, at most this deep */

/* The project's directory (made root's, 0750, as the core's project files
 * make it, when missing and create is set); -1 when it cannot be opened. */
static int open_project(struct pl *p, const char *project, int create)
{
    int root = open(p->files_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return -1;
    int fd = openat(root, project, DIR_OPEN);
    if (fd < 0 && errno == ENOENT && create && mkdirat(root, project, 0750) == 0)
        fd = openat(root, project, DIR_OPEN);
    close(root);
    return fd;
}

/* The mode of pipeline-runs in a project directory of group gid. */
static mode_t runs_mode(gid_t gid)
{
    return gid != 0 ? 03770 : 01777;
}

/* Opens pipeline-runs in project dir pd, making it (under a temporary
 * name, renamed into place once it has its owner and mode) when missing
 * and moving aside what is there instead of a directory; -1 on failure. */
static int open_or_make_runs(int pd, const struct stat *ps)
{
    char tmp[64];
    struct stat st;
    if (fstatat(pd, RUNS, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode)) {
        snprintf(tmp, sizeof tmp, ".%s.moved-%lld", RUNS, (long long)time(NULL));
        if (renameat(pd, RUNS, pd, tmp) < 0)   /* a member's link or file */
            return -1;
    }
    int fd = openat(pd, RUNS, DIR_OPEN);
    if (fd >= 0 || errno != ENOENT)
        return fd;
    snprintf(tmp, sizeof tmp, ".%s.cube-%ld", RUNS, (long)getpid());
    if (mkdirat(pd, tmp, 0700) < 0)
        return -1;
    fd = openat(pd, tmp, DIR_OPEN);
    if (fd < 0 || fchown(fd, 0, ps->st_gid) < 0 || fchmod(fd, runs_mode(ps->st_gid)) < 0 ||
        renameat2(pd, tmp, pd, RUNS, RENAME_NOREPLACE) < 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        unlinkat(pd, tmp, AT_REMOVEDIR);
        return err == EEXIST ? openat(pd, RUNS, DIR_OPEN) : -1;
    }
    return fd;
}

int pl_runs_dir_prepare(struct pl *p, const char *project)
{
    struct stat ps, st;
    if (geteuid() != 0)
        return 0;   /* every task runs as cubed's own user */
    int pd = open_project(p, project, 1), fd = -1, rc = -1;
    if (pd >= 0 && fstat(pd, &ps) == 0 && (fd = open_or_make_runs(pd, &ps)) >= 0 &&
        fstat(fd, &st) == 0) {
        rc = 0;
        if (st.st_uid != 0 || st.st_gid != ps.st_gid)
            rc = fchown(fd, 0, ps.st_gid);   /* made by a task: taken back */
        if (rc == 0 && (st.st_mode & 07777) != runs_mode(ps.st_gid))
            rc = fchmod(fd, runs_mode(ps.st_gid));
    }
    if (fd >= 0)
        close(fd);
    if (pd >= 0)
        close(pd);
    return rc;
}

/* Opens the run's directory (a real directory in a pipeline-runs that is
 * root's when we are root) with its status in *st; -1 otherwise. */
static int open_run(struct pl *p, const char *project, const char *run, struct stat *st)
{
    struct stat rs;
    int pd = open_project(p, project, 0);
    int runs = pd >= 0 ? openat(pd, RUNS, DIR_OPEN) : -1;
    int fd = -1;
    if (runs >= 0 && fstat(runs, &rs) == 0 && (geteuid() != 0 || rs.st_uid == 0))
        fd = openat(runs, run, DIR_OPEN);
    if (fd >= 0 && fstat(fd, st) < 0) {
        close(fd);
        fd = -1;
    }
    if (runs >= 0)
        close(runs);
    if (pd >= 0)
        close(pd);
    return fd;
}

/* The voucher slot of a run, or -1. Caller holds vouch_mu. */
static int slot_of(struct pl *p, const char *project, const char *run)
{
    for (int i = 0; i < PL_VOUCH_SLOTS; i++)
        if (p->vouch[i].used > 0 && !strcmp(p->vouch[i].project, project) &&
            !strcmp(p->vouch[i].name, run))
            return i;
    return -1;
}

int pl_run_dir_vouched(struct pl *p, const char *project, const char *run, struct stat *out)
{
    struct pl_vouch v = {0};
    struct stat st;
    pthread_mutex_lock(&p->vouch_mu);
    int i = slot_of(p, project, run);
    if (i >= 0) {
        p->vouch[i].used = pl_clock();
        v = p->vouch[i];
    }
    pthread_mutex_unlock(&p->vouch_mu);
    if (i < 0)
        return 0;
    int fd = open_run(p, project, run, &st);
    if (fd < 0)
        return 0;
    close(fd);
    if (st.st_dev != v.dev || st.st_ino != v.ino || st.st_uid != v.uid ||
        (st.st_mode & 022))
        return 0;
    if (out)
        *out = st;
    return 1;
}

/* Nonzero when the Job's command is the task wrapper (taskjob.c), which
 * ran PL_RUN_DIR_CHECK before the task's own command. */
static int ran_the_check(const cJSON *job)
{
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "spec"), "command");
    const char *a0 = cJSON_GetStringValue(cJSON_GetArrayItem(cmd, 0));
    const char *a2 = cJSON_GetStringValue(cJSON_GetArrayItem(cmd, 2));
    const char *a3 = cJSON_GetStringValue(cJSON_GetArrayItem(cmd, 3));
    return a0 && a2 && a3 && !strcmp(a0, "/bin/sh") && !strcmp(a3, "cube-task") &&
           strstr(a2, PL_RUN_DIR_CHECK);
}

/* What is in directory fd of an old run becomes its owner's alone: write
 * bits of group and others cleared, other accounts' files and
 * directories taken over (set-id bits cleared), their links, special
 * files and files with more than one name removed (a link to a file
 * elsewhere must not bring that file along). */
static void tighten(int fd, uid_t uid, int depth)
{
    int dup_fd = dup(fd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    struct dirent *e;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        return;
    }
    while ((e = readdir(d))) {
        struct stat ls, st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            fstatat(fd, e->d_name, &ls, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        int dir = S_ISDIR(ls.st_mode), mine = ls.st_uid == uid;
        if (!dir && !(S_ISREG(ls.st_mode) && (mine || ls.st_nlink == 1))) {
            if (!mine)
                unlinkat(fd, e->d_name, 0);
            continue;
        }
        int f = openat(fd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
                                          (dir ? O_DIRECTORY : 0));
        if (f < 0 || fstat(f, &st) < 0 || st.st_ino != ls.st_ino || st.st_dev != ls.st_dev ||
            st.st_uid != ls.st_uid || st.st_nlink != ls.st_nlink) {
            if (f >= 0)
                close(f);
            continue;   /* changed meanwhile */
        }
        if (!mine && fchown(f, uid, (gid_t)-1) == 0)
            fchmod(f, st.st_mode & (dir ? 07755 : 0755));
        else if (st.st_mode & 022)
            fchmod(f, st.st_mode & 07755);
        if (dir && depth < TIGHTEN_DEPTH)
            tighten(f, uid, depth + 1);
        close(f);
    }
    closedir(d);
}

/* Keeps the voucher of run in the slot used longest ago (or its own). */
static void keep(struct pl *p, const char *project, const char *run, const struct stat *st)
{
    pthread_mutex_lock(&p->vouch_mu);
    int i = slot_of(p, project, run);
    for (int k = 0; i < 0 && k < PL_VOUCH_SLOTS; k++)
        if (i < 0 || p->vouch[k].used < p->vouch[i].used)
            i = k;
    struct pl_vouch *v = &p->vouch[i];
    snprintf(v->project, sizeof v->project, "%s", project);
    snprintf(v->name, sizeof v->name, "%s", run);
    v->dev = st->st_dev;
    v->ino = st->st_ino;
    v->uid = st->st_uid;
    v->used = pl_clock();
    pthread_mutex_unlock(&p->vouch_mu);
}

void pl_run_dir_forget(struct pl *p, const char *project, const char *run)
{
    pthread_mutex_lock(&p->vouch_mu);
    int i = slot_of(p, project, run);
    if (i >= 0)
        memset(&p->vouch[i], 0, sizeof p->vouch[i]);
    pthread_mutex_unlock(&p->vouch_mu);
}

void pl_run_dir_vouch(struct pl *p, const char *project, const char *run, const cJSON *job)
{
    struct stat st;
    if (!ran_the_check(job) || pl_run_dir_vouched(p, project, run, NULL))
        return;
    int fd = open_run(p, project, run, &st);
    if (fd < 0)
        return;
    /* the wrapper ran as the run's account: never root; without root, as us */
    int ok = geteuid() == 0 ? st.st_uid != 0 : st.st_uid == geteuid();
    if (ok && (st.st_mode & 022)) {   /* a run made before: made private now */
        p->host->log(p->self, CUBE_LOG_INFO, "run %s/%s: its directory was writable by "
                     "others; it is made its owner's alone", project, run);
        tighten(fd, st.st_uid, 0);
        ok = fchmod(fd, st.st_mode & 07755) == 0 && fstat(fd, &st) == 0;
    }
    close(fd);
    if (ok)
        keep(p, project, run, &st);
}
