/* taskdirs.c — a task's result directory made before its Job is created,
 * so that its wrapper finds it and need not exec mkdir (tens of ms of a
 * task's run on a loaded machine, and a process per task).
 *
 * Only once the run's directory is vouched for (rundirs.c: a task that
 * ran through the wrapper, which checked that it is its account's, has
 * succeeded; it is still that directory and its owner's alone) and its
 * work directory exists: the first tasks of a run make them with their
 * wrapper's `mkdir -p`, as the account the run's tasks run as. A directory
 * made here gets the run directory's owner and group and its mode without
 * write bits for group and others: what the task's own `mkdir -p` would
 * have given it (umask 022). Anything unexpected (not vouched for, a
 * directory of another owner or writable by others, a symlink or a
 * non-directory on the way, an error) leaves the rest to the wrapper.
 *
 * A plugin thread makes them, in batches a pass hands over, so that the
 * inode creation (costly on some filesystems: ext4 without a journal skips
 * recently deleted inodes one by one) stays off the run's passes, which
 * sit on the critical path of each layer of a DAG. A Job created before
 * its directories exist runs with the wrapper (taskjob.c looks on disk),
 * so a late batch costs time, never correctness. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cube/util/queue.h>

#include "pipeline.h"

#define DIR_OPEN (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* 1 when fd is a directory of like's owner that only they may write to. */
static int private_dir(int fd, const struct stat *like)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == like->st_uid &&
           !(st.st_mode & 022);
}

/* Opens dir/name, making it like `like` when missing; -1 on failure or
 * when it is not like's owner's alone. The directory is made under a
 * temporary name and renamed into place once it has its owner and mode: a
 * task that starts meanwhile (its wrapper makes what it misses) never
 * finds one it cannot write to; when the task's was first, it is kept and
 * ours goes. */
static int open_or_make(int dir, const char *name, const struct stat *like)
{
    char tmp[96];
    int fd = openat(dir, name, DIR_OPEN);
    if (fd >= 0 && !private_dir(fd, like)) {
        close(fd);
        return -1;
    }
    if (fd >= 0 || errno != ENOENT)
        return fd;
    snprintf(tmp, sizeof tmp, ".%s.cube-%ld", name, (long)getpid());
    if (mkdirat(dir, tmp, 0700) < 0)
        return -1;
    fd = openat(dir, tmp, DIR_OPEN);
    if (fd < 0 || fchown(fd, like->st_uid, like->st_gid) < 0 ||
        fchmod(fd, like->st_mode & 07777) < 0 ||
        renameat2(dir, tmp, dir, name, RENAME_NOREPLACE) < 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        unlinkat(dir, tmp, AT_REMOVEDIR);   /* ours, still empty */
        if (err != EEXIST || (fd = openat(dir, name, DIR_OPEN)) < 0)
            return -1;
        if (!private_dir(fd, like)) {
            close(fd);
            return -1;
        }
    }
    return fd;
}

int pl_task_dirs_ready(struct pl *p, const char *project, const char *run)
{
    char rel[512], abs[PATH_MAX + 600];
    struct stat st;
    if (!pl_run_dir_vouched(p, project, run, NULL))
        return 0;
    snprintf(rel, sizeof rel, "pipeline-runs/%s/work", run);
    pl_abs_path(p, project, rel, abs, sizeof abs);
    return lstat(abs, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Makes dir/name like `like` (open_or_make) and closes it; 0 or -1. */
static int make_closed(int dir, const char *name, const struct stat *like)
{
    int fd = open_or_make(dir, name, like);
    if (fd >= 0)
        close(fd);
    return fd >= 0 ? 0 : -1;
}

/* 1 when the run directory open on fd is still the one vouched for
 * (vouched: its status then); like gets what directories made in it get. */
static int still_vouched(int fd, const struct stat *vouched, struct stat *like)
{
    struct stat work;
    if (fstat(fd, like) < 0 || like->st_dev != vouched->st_dev ||
        like->st_ino != vouched->st_ino || like->st_uid != vouched->st_uid ||
        (like->st_mode & 022))
        return 0;
    like->st_mode &= 07755;
    return fstatat(fd, "work", &work, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(work.st_mode) &&
           work.st_uid == like->st_uid && !(work.st_mode & 022);
}

/* Makes the directories of the tasks of the run in run_dir (absolute,
 * vouched for: its status then), in the run's layout (pipeline.h); each
 * that fails is left to its wrapper. */
static void make_batch(const char *run_dir, const struct stat *vouched, int layout,
                       char *const *tasks, int n)
{
    struct stat like;
    int fd = open(run_dir, DIR_OPEN), top = -1;
    if (fd >= 0 && still_vouched(fd, vouched, &like))
        top = layout == 2 && make_closed(fd, "outputs", &like) < 0 ? -1
              : open_or_make(fd, layout == 2 ? "results" : "tasks", &like);
    for (int i = 0; i < n && top >= 0; i++) {
        if (layout == 2) {   /* results/<task> */
            make_closed(top, tasks[i], &like);
            continue;
        }
        int t = open_or_make(top, tasks[i], &like);   /* tasks/<task>/results */
        if (t >= 0) {
            make_closed(t, "results", &like);
            close(t);
        }
    }
    if (top >= 0)
        close(top);
    if (fd >= 0)
        close(fd);
}

/* -- the thread that makes them ------------------------------------------- */

#define DIRS_QUEUED 1024   /* batches waiting at most; past that, made inline */

/* A batch: the run's directory and its tasks' names, in one allocation. */
struct dir_job {
    char *run_dir;
    struct stat vouched;   /* the run directory as vouched for */
    int layout;
    int n;
    char *task[];
};

/* The queue's worker: makes a batch and frees it (the queue hands it over). */
static void make_job(void *ctx, void *item)
{
    struct dir_job *j = item;
    (void)ctx;
    make_batch(j->run_dir, &j->vouched, j->layout, j->task, j->n);
    free(j);
}

void pl_task_dirs_make(struct pl *p, const char *project, const char *run, int layout,
                       const char *const *tasks, int n)
{
    char rel[512], abs[PATH_MAX + 600];
    struct stat vouched;
    if (!pl_run_dir_vouched(p, project, run, &vouched))
        return;   /* the wrappers make them, after their check */
    snprintf(rel, sizeof rel, "pipeline-runs/%s", run);
    pl_abs_path(p, project, rel, abs, sizeof abs);
    size_t size = sizeof(struct dir_job) + sizeof(char *) * (size_t)n + strlen(abs) + 1;
    for (int i = 0; i < n; i++)
        size += strlen(tasks[i]) + 1;
    struct dir_job *j = malloc(size);
    if (!j)
        return;   /* the wrappers make them */
    char *text = (char *)(j->task + n);
    j->vouched = vouched;
    j->layout = layout;
    j->n = n;
    j->run_dir = text;
    text = stpcpy(text, abs) + 1;
    for (int i = 0; i < n; i++) {
        j->task[i] = text;
        text = stpcpy(text, tasks[i]) + 1;
    }
    /* One worker, started on first use; when it cannot start or has no
     * room, the batch is made here. */
    pthread_mutex_lock(&p->dirs_mu);
    if (!p->dirs)
        p->dirs = cu_queue_new(DIRS_QUEUED, 1, make_job, NULL);
    int queued = p->dirs && cu_queue_push(p->dirs, j) == 0;
    pthread_mutex_unlock(&p->dirs_mu);
    if (!queued)
        make_job(NULL, j);
}

void pl_task_dirs_stop(struct pl *p)
{
    cu_queue_stop(p->dirs, 1, NULL);   /* it makes what is queued first */
    p->dirs = NULL;
}
