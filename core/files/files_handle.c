/* files_handle.c — files of the store as open handles, for plugins (ABI
 * 1.5: file_open, file_size, file_pread, file_write_at, file_commit,
 * file_abort, file_close; resp_file is in files_bytes.c). A store is a
 * project's directory (as files.c's) or the plugin's own area,
 * <plugin data dir>/files; paths are walked as files.c walks them, one
 * segment at a time with O_NOFOLLOW.
 *
 * Writing never touches the published file. A WRITE handle writes the
 * path's pending upload, <store>/.uploads/<sha256 of the path in hex>: a
 * hidden name no path reaches and no listing shows. file_commit renames it
 * over the path (readers see the old file or the whole new one); abort
 * unlinks it. It outlives its handle (a later WRITE open resumes it). Its
 * handle holds an exclusive flock on it, so one writer at a time; an
 * opener checks, once it holds the lock, that the name still is the file
 * it locked (a commit or abort may have moved it meanwhile).
 *
 * cubed may run as root and members' jobs write into project directories:
 * the .uploads directory and each pending file must be cubed's own, a
 * pending file have one name only (no hard link planted there), and a
 * file cubed owns is read only when it has one name (files_fs.h's rule).
 *
 * The SHA-256 is computed beside the writes (files_digest.c), whose thread
 * also hands the bytes to the disk as they come, and finished at commit. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctx/ctx.h"
#include "files.h"
#include "files_priv.h"
#include "base/fs.h"
#include "base/hash.h"

#define UPLOADS ".uploads"
#define PENDING_MODE 0640
#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define MAX_OFFSET ((uint64_t)INT64_MAX)

enum file_state { FILE_READING, FILE_PENDING, FILE_COMMITTED, FILE_ABORTED };

struct cube_file {
    int fd;
    int root;                    /* the store's directory (WRITE handles) */
    int uploads;                 /* <store>/.uploads (WRITE handles) */
    enum file_state state;
    char pending[65];            /* the pending upload's name in uploads */
    char *path;                  /* the target, relative to the store */
    struct cube_files_digest *dg;   /* WRITE handles */
};

static int errno_rc(int err)
{
    switch (err) {
    case ENOSPC: case EDQUOT: return CUBE_EUNAVAIL;
    case EFBIG: return CUBE_ETOOBIG;
    case ENOMEM: return CUBE_ENOMEM;
    default: return CUBE_EIO;
    }
}

/* Opens the store's directory: a project's, or the plugin's area. */
static int open_store(cube_plugin *self, const char *project, int create, int *rc)
{
    if (project)
        return cube_files_open_project(self->ctx->files, project, create, rc);
    char *area = cube_path_join(self->data_dir, "files");
    if (!area) {
        *rc = CUBE_ENOMEM;
        return -1;
    }
    int fd = cube_files_open_dir(area, create, rc);
    free(area);
    return fd;
}

/* CUBE_OK when st is a regular file cubed may use: with one name when it
 * is cubed's own, and cubed's own when it is to be written. */
static int usable(const struct stat *st, int writing)
{
    int own = st->st_uid == geteuid();
    if (!S_ISREG(st->st_mode) || (own && st->st_nlink != 1) || (writing && !own))
        return CUBE_EPERM;
    return CUBE_OK;
}

static int open_reader(cube_file *f, int root, int *rc)
{
    char *copy = strdup(f->path), *last;
    if (!copy) {
        close(root);
        return (*rc = CUBE_ENOMEM);
    }
    int dfd = cube_files_walk_from(root, copy, 0, &last, rc);
    if (dfd >= 0) {
        /* O_NONBLOCK: a FIFO planted there must not hang the open */
        f->fd = openat(dfd, last, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        struct stat st;
        if (f->fd < 0)
            *rc = cube_files_seg_error(dfd, last, errno, 0);
        else
            *rc = fstat(f->fd, &st) < 0 ? CUBE_EIO : usable(&st, 0);
        close(dfd);
    }
    free(copy);
    return *rc;
}

/* Opens <store>/.uploads, made (0700) when missing; cubed's own only. */
static int open_uploads(int root, int *rc)
{
    int fd = openat(root, UPLOADS, OPEN_DIR);
    if (fd < 0 && errno == ENOENT && (mkdirat(root, UPLOADS, 0700) == 0 || errno == EEXIST))
        fd = openat(root, UPLOADS, OPEN_DIR);
    struct stat st;
    if (fd < 0) {
        *rc = cube_files_seg_error(root, UPLOADS, errno, 1);
        return -1;
    }
    if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
        close(fd);
        *rc = CUBE_EPERM;
        return -1;
    }
    return fd;
}

/* Opens and locks the pending upload (see the file comment). */
static int open_pending(cube_file *f, unsigned flags, int *rc)
{
    for (int tries = 0; tries < 8; tries++) {
        int fd = openat(f->uploads, f->pending,
                        O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, PENDING_MODE);
        if (fd < 0)
            return (*rc = cube_files_seg_error(f->uploads, f->pending, errno, 1));
        struct stat held, named;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
            close(fd);
            return (*rc = errno == EWOULDBLOCK ? CUBE_ECONFLICT : CUBE_EIO);
        }
        if (fstat(fd, &held) < 0 ||
            fstatat(f->uploads, f->pending, &named, AT_SYMLINK_NOFOLLOW) < 0 ||
            held.st_ino != named.st_ino || held.st_dev != named.st_dev) {
            close(fd);   /* committed or aborted meanwhile: a new one */
            continue;
        }
        if ((*rc = usable(&held, 1)) == CUBE_OK &&
            (fchmod(fd, PENDING_MODE) < 0 ||
             ((flags & CUBE_FILE_TRUNCATE) && ftruncate(fd, 0) < 0)))
            *rc = errno_rc(errno);
        if (*rc != CUBE_OK) {
            close(fd);
            return *rc;
        }
        f->fd = fd;
        return (*rc = CUBE_OK);
    }
    return (*rc = CUBE_ECONFLICT);
}

static int open_writer(cube_file *f, unsigned flags, int *rc)
{
    uint8_t digest[32];
    struct stat st;
    if (cube_sha256(f->path, strlen(f->path), digest) < 0)
        return (*rc = CUBE_ENOMEM);
    cube_hex(digest, sizeof digest, f->pending);
    if ((f->uploads = open_uploads(f->root, rc)) < 0)
        return *rc;
    f->state = FILE_PENDING;
    if (open_pending(f, flags, rc) != CUBE_OK)
        return *rc;
    if (fstat(f->fd, &st) < 0)
        return (*rc = CUBE_EIO);
    if (!(f->dg = cube_files_digest_new(f->fd, (uint64_t)st.st_size)))
        return (*rc = CUBE_ENOMEM);
    return CUBE_OK;
}

void cube_slot_file_close(cube_file *f)
{
    if (!f)
        return;
    cube_files_digest_free(f->dg);   /* its thread reads fd */
    if (f->fd >= 0)
        close(f->fd);   /* releases the lock; a pending upload stays */
    if (f->root >= 0)
        close(f->root);
    if (f->uploads >= 0)
        close(f->uploads);
    free(f->path);
    free(f);
}

cube_file *cube_slot_file_open(cube_plugin *self, const char *project, const char *path,
                               unsigned flags, int *rc)
{
    int dummy;
    if (!rc)
        rc = &dummy;
    unsigned mode = flags & (CUBE_FILE_READ | CUBE_FILE_WRITE);
    if (!self || (flags & ~(CUBE_FILE_READ | CUBE_FILE_WRITE | CUBE_FILE_TRUNCATE)) ||
        (mode != CUBE_FILE_READ && mode != CUBE_FILE_WRITE) ||
        ((flags & CUBE_FILE_TRUNCATE) && mode != CUBE_FILE_WRITE) ||
        !cube_files_path_ok(path) || (project && !cube_fs_name_ok(project))) {
        *rc = CUBE_EINVAL;
        return NULL;
    }
    cube_file *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        *rc = CUBE_ENOMEM;
        return NULL;
    }
    f->fd = f->root = f->uploads = -1;
    int root = open_store(self, project, mode == CUBE_FILE_WRITE, rc);
    if (root >= 0 && mode == CUBE_FILE_READ) {
        open_reader(f, root, rc);   /* takes root over */
    } else if (root >= 0) {
        f->root = root;
        open_writer(f, flags, rc);
    }
    if (root < 0 || *rc != CUBE_OK) {
        cube_slot_file_close(f);
        return NULL;
    }
    return f;
}

int cube_slot_file_size(cube_file *f, uint64_t *size)
{
    struct stat st;
    if (!f || !size)
        return CUBE_EINVAL;
    if (f->state == FILE_ABORTED)
        return CUBE_ESTATE;
    if (fstat(f->fd, &st) < 0)
        return CUBE_EIO;
    *size = (uint64_t)st.st_size;
    return CUBE_OK;
}

int cube_slot_file_pread(cube_file *f, uint64_t offset, void *buf, size_t max, size_t *got)
{
    if (!f || (!buf && max) || !got || offset > MAX_OFFSET)
        return CUBE_EINVAL;
    *got = 0;
    if (f->state == FILE_ABORTED)
        return CUBE_ESTATE;
    if (max > (size_t)1 << 30)
        max = (size_t)1 << 30;
    for (;;) {
        ssize_t n = pread(f->fd, buf, max, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno_rc(errno);
        *got = (size_t)n;
        return CUBE_OK;
    }
}

int cube_slot_file_write_at(cube_file *f, uint64_t offset, const void *data, size_t len)
{
    if (!f || (!data && len))
        return CUBE_EINVAL;
    if (f->state != FILE_PENDING)
        return CUBE_ESTATE;
    if (offset > MAX_OFFSET || len > MAX_OFFSET - offset)
        return CUBE_ETOOBIG;
    const char *p = data;
    int rc = CUBE_OK;
    cube_files_digest_write_begin(f->dg, offset);
    for (size_t done = 0; done < len && rc == CUBE_OK;) {
        ssize_t n = pwrite(f->fd, p + done, len - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            rc = n < 0 ? errno_rc(errno) : CUBE_EIO;
        else
            done += (size_t)n;
    }
    cube_files_digest_write_end(f->dg, offset, len, rc == CUBE_OK);
    if (rc != CUBE_OK)
        return rc;
    return CUBE_OK;
}

static int hex64(const char *s)
{
    size_t i = 0;
    for (; s[i] && i <= 64; i++)
        if (!strchr("0123456789abcdefABCDEF", s[i]))
            return 0;
    return i == 64;
}

/* Renames the pending upload over the path, making its directories. */
static int publish(cube_file *f)
{
    char *copy = strdup(f->path), *last;
    int rc = CUBE_OK, root = copy ? dup(f->root) : -1;
    if (root < 0) {
        free(copy);
        return copy ? CUBE_EIO : CUBE_ENOMEM;
    }
    int dfd = cube_files_walk_from(root, copy, 1, &last, &rc);
    if (dfd >= 0) {
        struct stat sb;
        if (fstatat(dfd, last, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode))
            rc = CUBE_EPERM;   /* rename would not follow it, but refuse */
        else if (renameat(f->uploads, f->pending, dfd, last) < 0)
            rc = errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST ||
                 errno == ENOTDIR ? CUBE_EEXIST : errno_rc(errno);
        else
            fsync(dfd);   /* the new name is durable too */
        close(dfd);
    }
    free(copy);
    return rc;
}

int cube_slot_file_commit(cube_file *f, const char *expect, char *sha256_out)
{
    char hex[CUBE_SHA256_HEX_SIZE];
    if (!f || (expect && *expect && !hex64(expect)))
        return CUBE_EINVAL;
    if (f->state != FILE_PENDING)
        return CUBE_ESTATE;
    struct stat st;
    if (fstat(f->fd, &st) < 0)
        return CUBE_EIO;
    int rc = cube_files_digest_finish(f->dg, (uint64_t)st.st_size, hex);
    if (rc != CUBE_OK)
        return rc;
    if (sha256_out)
        memcpy(sha256_out, hex, sizeof hex);
    if (expect && *expect && strcasecmp(expect, hex) != 0)
        return CUBE_EDIGEST;
    if (fdatasync(f->fd) < 0)   /* the bytes and what finds them; not times */
        return errno_rc(errno);
    if ((rc = publish(f)) == CUBE_OK)
        f->state = FILE_COMMITTED;
    return rc;
}

int cube_slot_file_abort(cube_file *f)
{
    if (!f)
        return CUBE_EINVAL;
    if (f->state != FILE_PENDING)
        return CUBE_ESTATE;
    /* the lock holds the name to this file: nobody moved it */
    if (unlinkat(f->uploads, f->pending, 0) < 0 && errno != ENOENT)
        return errno_rc(errno);
    f->state = FILE_ABORTED;
    return CUBE_OK;
}

int cube_files_handle_fd(const cube_file *f)
{
    return f && (f->state == FILE_READING || f->state == FILE_COMMITTED) ? f->fd : -1;
}
