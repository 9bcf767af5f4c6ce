/* taskdirs.c — a task's result directory made before its Job is created,
 * so that its wrapper finds it and need not exec mkdir (tens of ms of a
 * task's run on a loaded machine, and a process per task).
 *
 * Only once the run's work directory exists: the first tasks of a run
 * make it with their wrapper's `mkdir -p`, as the account the run's tasks
 * run as, in the project's (setgid) directory. A directory made here gets
 * that directory's owner, group and mode: what the task's own `mkdir -p`
 * would have given it. Anything unexpected (no work directory yet, a
 * symlink or a non-directory on the way, an error) leaves the rest to the
 * wrapper, as before. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline.h"

#define DIR_OPEN (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* Opens dir/name, making it like `like` when missing; -1 on failure. The
 * directory is made under a temporary name and renamed into place once it
 * has its owner and mode: a task that starts meanwhile (its wrapper makes
 * what it misses) never finds one it cannot write to; when the task's was
 * first, it is kept and ours goes. */
static int open_or_make(int dir, const char *name, const struct stat *like)
{
    char tmp[96];
    int fd = openat(dir, name, DIR_OPEN);
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
        return err == EEXIST ? openat(dir, name, DIR_OPEN) : -1;
    }
    return fd;
}

int pl_task_dirs(struct pl *p, const char *project, const char *run, const char *task)
{
    char rel[512], abs[PATH_MAX + 600];
    struct stat work;
    snprintf(rel, sizeof rel, "pipeline-runs/%s", run);
    pl_abs_path(p, project, rel, abs, sizeof abs);
    int fd = open(abs, DIR_OPEN);
    if (fd < 0)
        return 0;   /* no task of the run has run yet */
    if (fstatat(fd, "work", &work, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(work.st_mode)) {
        close(fd);
        return 0;
    }
    const char *steps[] = {"tasks", task, "results"};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0] && fd >= 0; i++) {
        int next = open_or_make(fd, steps[i], &work);
        close(fd);
        fd = next;
    }
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}
