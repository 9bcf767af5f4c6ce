/* files_fs.c — see files_fs.h. Nothing here is logged: paths come from
 * users. */
#include "files_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cube/cube.h>

#include "files_priv.h"
#include "base/fs.h"
#include "base/random.h"

#define FILE_MODE 0664
#define DIR_MODE 02775
#define ROOT_MODE 02770   /* as executor-local makes it: members only */
#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define MAY_R 4u
#define MAY_W 2u
#define MAY_X 1u

/* One walk through a project's tree. */
struct tree {
    const char *path;     /* as asked, for messages */
    char *copy;           /* path, cut at each '/' as the walk goes */
    uid_t self;           /* cubed's: what it owns is the platform's */
    gid_t group;          /* the project directory's */
    char *why;
    size_t why_len;
};

/* An open directory of the walk; `at` is the length of the path prefix
 * naming it (0: the project directory). */
struct dir {
    int fd;
    struct stat st;
    size_t at;
};

/* Fills why about the entry named by the first `at` bytes of the path
 * (0: the project directory) and returns rc. */
static int fail(struct tree *t, int rc, size_t at, const char *what)
{
    if (at)
        snprintf(t->why, t->why_len, "\"%.*s\" %s", at > 300 ? 300 : (int)at, t->path, what);
    else
        snprintf(t->why, t->why_len, "the project directory %s", what);
    return rc;
}

/* 1 when a project member who does not own st may `want` (MAY_*) on it. */
static int member_may(const struct tree *t, const struct stat *st, unsigned want)
{
    if (st->st_uid == t->self)
        return 1;
    unsigned bits = st->st_gid == t->group ? ((unsigned)st->st_mode >> 3) & 7u
                                           : (unsigned)st->st_mode & 7u;
    return (bits & want) == want;
}

static int mode_fail(struct tree *t, size_t at, const struct stat *st, const char *verb)
{
    char what[120];
    snprintf(what, sizeof what, "may not be %s by the project's members (mode %04o)",
             verb, (unsigned)st->st_mode & 07777);
    return fail(t, CUBE_EPERM, at, what);
}

/* The CUBE_E code (and why) for a failed open or make of name in dirfd. */
static int open_error(struct tree *t, int dirfd, const char *name, int err, size_t at,
                      int writing)
{
    struct stat sb;
    if (err == ELOOP || (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
                         S_ISLNK(sb.st_mode)))
        return fail(t, CUBE_EPERM, at, "is a symbolic link (links are not followed)");
    switch (err) {
    case ENOENT: return fail(t, CUBE_ENOTFOUND, at, "does not exist");
    case ENOTDIR:
        return fail(t, writing ? CUBE_ECONFLICT : CUBE_ENOTFOUND, at,
                    "is a file, not a directory");
    case EISDIR: return fail(t, CUBE_ECONFLICT, at, "is a directory");
    case EACCES: case EPERM: return fail(t, CUBE_EPERM, at, "may not be opened");
    case ENAMETOOLONG: return fail(t, CUBE_EINVAL, at, "is too long");
    case ENOSPC: case EDQUOT: return fail(t, CUBE_EUNAVAIL, at, "cannot be made: no space left");
    case ENOMEM: return fail(t, CUBE_ENOMEM, at, "cannot be opened: out of memory");
    default: return fail(t, CUBE_EIO, at, strerror(err));
    }
}

static int tree_begin(struct tree *t, const char *project, const char *path,
                      char *why, size_t why_len)
{
    *t = (struct tree){.path = path, .self = geteuid(), .why = why, .why_len = why_len};
    if (why_len)
        why[0] = '\0';
    if (!cube_fs_name_ok(project))
        return fail(t, CUBE_EINVAL, 0, "has a name that is not valid");
    if (*path && !cube_files_path_ok(path))
        return fail(t, CUBE_EINVAL, strlen(path), "is not a valid project file path");
    if (!(t->copy = strdup(path)))
        return fail(t, CUBE_ENOMEM, 0, "cannot be read: out of memory");
    return CUBE_OK;
}

/* Opens the project directory into d (made when create and missing). */
static int open_root(struct cube_files *files, const char *project, struct tree *t,
                     int create, struct dir *d)
{
    char *root = cube_path_join(files->projects_dir, project);
    if (!root)
        return fail(t, CUBE_ENOMEM, 0, "cannot be opened: out of memory");
    int made = create && cube_mkdir_p(files->projects_dir, 0750) == 0 &&
               mkdir(root, ROOT_MODE & 0777) == 0;
    d->fd = open(root, OPEN_DIR);
    int err = errno;
    free(root);
    d->at = 0;
    if (d->fd < 0)
        return err == ENOENT ? fail(t, CUBE_ENOTFOUND, 0, "does not exist yet")
               : err == ELOOP || err == ENOTDIR ? fail(t, CUBE_EPERM, 0, "is not a directory")
               : fail(t, CUBE_EIO, 0, strerror(err));
    if (made) {
        int ignored = fchmod(d->fd, ROOT_MODE); /* else mkdir's: members only too */
        (void)ignored;
    }
    if (fstat(d->fd, &d->st) < 0) {
        close(d->fd);
        d->fd = -1;
        return fail(t, CUBE_EIO, 0, strerror(errno));
    }
    t->group = d->st.st_gid;
    return CUBE_OK;
}

/* Gives the new entry fd the project's group, then (fchown may clear
 * set-id bits) the mode. Failures leave what the kernel gave: cubed not
 * root and not in that group keeps its own group; the umask'ed mode. */
static void stamp(const struct tree *t, int fd, mode_t mode)
{
    struct stat st;
    int ignored = 0;
    if (fstat(fd, &st) == 0 && st.st_gid != t->group)
        ignored = fchown(fd, (uid_t)-1, t->group);
    ignored = fchmod(fd, mode);
    (void)ignored;
}

/* Enters the subdirectory name (the first `at` bytes of the path) of d,
 * making it when create and missing; d becomes it. */
static int enter(struct tree *t, struct dir *d, const char *name, size_t at, int create)
{
    if (!member_may(t, &d->st, MAY_X))
        return mode_fail(t, d->at, &d->st, "entered");
    int fd = openat(d->fd, name, OPEN_DIR);
    if (fd < 0 && errno == ENOENT && create) {
        if (!member_may(t, &d->st, MAY_W | MAY_X))
            return mode_fail(t, d->at, &d->st, "written");
        if (mkdirat(d->fd, name, DIR_MODE & 0777) < 0 && errno != EEXIST)
            return open_error(t, d->fd, name, errno, at, 1);
        fd = openat(d->fd, name, OPEN_DIR);
        if (fd >= 0)
            stamp(t, fd, DIR_MODE);
    }
    if (fd < 0)
        return open_error(t, d->fd, name, errno, at, create);
    struct stat st;
    if (fstat(fd, &st) < 0) {
        close(fd);
        return fail(t, CUBE_EIO, at, strerror(errno));
    }
    close(d->fd);
    *d = (struct dir){.fd = fd, .st = st, .at = at};
    return CUBE_OK;
}

/* Walks from the project directory in d to the directory holding the
 * path's last segment (*last); d is then that directory. */
static int walk(struct tree *t, struct dir *d, int create, char **last)
{
    char *seg = t->copy;
    for (char *slash; (slash = strchr(seg, '/')) != NULL; seg = slash + 1) {
        *slash = '\0';
        int rc = enter(t, d, seg, (size_t)(slash - t->copy), create);
        if (rc != CUBE_OK)
            return rc;
    }
    *last = seg;
    return CUBE_OK;
}

/* Opens root and walks to the parent of the last segment. */
static int reach(struct cube_files *files, const char *project, struct tree *t,
                 int create, struct dir *d, char **last)
{
    int rc = open_root(files, project, t, create, d);
    if (rc != CUBE_OK)
        return rc == CUBE_ENOTFOUND && *t->path
                   ? fail(t, CUBE_ENOTFOUND, strcspn(t->path, "/"), "does not exist")
                   : rc;
    return walk(t, d, create, last);
}

/* What a member may read: a directory they may list, a file they may read
 * (cubed's own only with one name). */
static int readable(struct tree *t, const struct stat *st, size_t at)
{
    if (S_ISDIR(st->st_mode))
        return member_may(t, st, MAY_R | MAY_X) ? CUBE_OK : mode_fail(t, at, st, "listed");
    if (!S_ISREG(st->st_mode))
        return fail(t, CUBE_EPERM, at, "is not a regular file");
    if (!member_may(t, st, MAY_R))
        return mode_fail(t, at, st, "read");
    if (st->st_uid == t->self && st->st_nlink > 1)
        return fail(t, CUBE_EPERM, at, "has other names (hard links) and is not served");
    return CUBE_OK;
}

/* Opens the last segment of t->path in the directory d for reading. */
static int open_in(struct tree *t, const struct dir *d, const char *last, int *fd,
                   struct stat *st)
{
    size_t at = strlen(t->path);
    if (!member_may(t, &d->st, MAY_X))
        return mode_fail(t, d->at, &d->st, "entered");
    /* O_NONBLOCK: a FIFO planted there must not hang the open (it is
     * refused below; regular files ignore the flag) */
    int f = openat(d->fd, last, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (f < 0)
        return open_error(t, d->fd, last, errno, at, 0);
    int rc = fstat(f, st) < 0 ? fail(t, CUBE_EIO, at, strerror(errno)) : readable(t, st, at);
    if (rc == CUBE_OK)
        *fd = f;
    else
        close(f);
    return rc;
}

int cube_ffs_open(struct cube_files *files, const char *project, const char *path,
                  int *fd, struct stat *st, char *why, size_t why_len)
{
    struct tree t;
    struct dir d = {.fd = -1};
    char *last;
    *fd = -1;
    int rc = tree_begin(&t, project, path, why, why_len);
    if (rc == CUBE_OK && *path) {
        if ((rc = reach(files, project, &t, 0, &d, &last)) == CUBE_OK)
            rc = open_in(&t, &d, last, fd, st);
    } else if (rc == CUBE_OK && (rc = open_root(files, project, &t, 0, &d)) == CUBE_OK &&
               (rc = readable(&t, &d.st, 0)) == CUBE_OK) {
        *fd = d.fd;   /* the project directory itself */
        *st = d.st;
        d.fd = -1;
    }
    if (d.fd >= 0)
        close(d.fd);
    free(t.copy);
    return rc;
}

/* May a member replace or remove the entry old (NULL: none yet) of d? */
static int changeable(struct tree *t, const struct dir *d, const struct stat *old, size_t at)
{
    if (!member_may(t, &d->st, MAY_W | MAY_X))
        return mode_fail(t, d->at, &d->st, "written");
    if (old && (d->st.st_mode & S_ISVTX) && old->st_uid != t->self)
        return fail(t, CUBE_EPERM, at, "belongs to a member's job in a sticky directory");
    return CUBE_OK;
}

/* Writes data to a temp file in d and renames it to last. */
static int put(struct tree *t, const struct dir *d, const char *last, const void *data,
               size_t len, struct stat *st)
{
    size_t at = strlen(t->path);
    char tmp[40] = ".tmp-";
    cube_id_hex(tmp + 5, 12);
    int fd = openat(d->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    FILE_MODE);
    if (fd < 0)
        return open_error(t, d->fd, tmp, errno, d->at, 1);
    stamp(t, fd, FILE_MODE);
    int rc = CUBE_OK;
    if (cube_files_write_all(fd, data, len) < 0 || fsync(fd) < 0)
        rc = errno == ENOSPC || errno == EDQUOT
                 ? fail(t, CUBE_EUNAVAIL, at, "cannot be written: no space left")
                 : fail(t, CUBE_EIO, at, strerror(errno));
    else if (fstat(fd, st) < 0)
        rc = fail(t, CUBE_EIO, at, strerror(errno));
    if (close(fd) < 0 && rc == CUBE_OK)
        rc = fail(t, CUBE_EIO, at, strerror(errno));
    if (rc == CUBE_OK && renameat(d->fd, tmp, d->fd, last) < 0)
        rc = errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST
                 ? fail(t, CUBE_ECONFLICT, at, "is a directory")
                 : fail(t, CUBE_EIO, at, strerror(errno));
    if (rc != CUBE_OK)
        unlinkat(d->fd, tmp, 0);
    return rc;
}

int cube_ffs_write(struct cube_files *files, const char *project, const char *path,
                   const void *data, size_t len, int *created, struct stat *st,
                   char *why, size_t why_len)
{
    struct tree t;
    struct dir d = {.fd = -1};
    char *last;
    *created = 0;
    int rc = tree_begin(&t, project, path, why, why_len);
    if (rc == CUBE_OK && !*path)
        rc = fail(&t, CUBE_EINVAL, 0, "cannot be written as a file");
    if (rc == CUBE_OK && files->max_file_bytes && len > files->max_file_bytes) {
        char what[96];
        snprintf(what, sizeof what, "would be larger than the %llu bytes a project file may be",
                 (unsigned long long)files->max_file_bytes);
        rc = fail(&t, CUBE_ETOOBIG, strlen(path), what);
    }
    if (rc == CUBE_OK)
        rc = reach(files, project, &t, 1, &d, &last);
    if (rc == CUBE_OK) {
        size_t at = strlen(path);
        struct stat old;
        int exists = fstatat(d.fd, last, &old, AT_SYMLINK_NOFOLLOW) == 0;
        if (exists && S_ISLNK(old.st_mode))
            rc = fail(&t, CUBE_EPERM, at, "is a symbolic link (links are not followed)");
        else if (exists && S_ISDIR(old.st_mode))
            rc = fail(&t, CUBE_ECONFLICT, at, "is a directory");
        else if (exists && !S_ISREG(old.st_mode))
            rc = fail(&t, CUBE_EPERM, at, "is not a regular file");
        else
            rc = changeable(&t, &d, exists ? &old : NULL, at);
        if (rc == CUBE_OK && (rc = put(&t, &d, last, data, len, st)) == CUBE_OK)
            *created = !exists;
    }
    if (d.fd >= 0)
        close(d.fd);
    free(t.copy);
    return rc;
}

int cube_ffs_delete(struct cube_files *files, const char *project, const char *path,
                    struct stat *st, char *why, size_t why_len)
{
    struct tree t;
    struct dir d = {.fd = -1};
    char *last;
    int rc = tree_begin(&t, project, path, why, why_len);
    if (rc == CUBE_OK && !*path)
        rc = fail(&t, CUBE_EINVAL, 0, "cannot be deleted");
    if (rc == CUBE_OK)
        rc = reach(files, project, &t, 0, &d, &last);
    if (rc == CUBE_OK) {
        size_t at = strlen(path);
        if (!member_may(&t, &d.st, MAY_X))
            rc = mode_fail(&t, d.at, &d.st, "entered");
        else if (fstatat(d.fd, last, st, AT_SYMLINK_NOFOLLOW) < 0)
            rc = open_error(&t, d.fd, last, errno, at, 0);
        else
            rc = changeable(&t, &d, st, at);
        /* a symlink is removed itself, never its target */
        if (rc == CUBE_OK &&
            unlinkat(d.fd, last, S_ISDIR(st->st_mode) ? AT_REMOVEDIR : 0) < 0)
            rc = errno == ENOTEMPTY || errno == EEXIST
                     ? fail(&t, CUBE_ECONFLICT, at, "is a directory that is not empty")
                     : errno == ENOENT ? fail(&t, CUBE_ENOTFOUND, at, "does not exist")
                                       : fail(&t, CUBE_EIO, at, strerror(errno));
    }
    if (d.fd >= 0)
        close(d.fd);
    free(t.copy);
    return rc;
}
