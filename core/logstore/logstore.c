/* logstore.c — append-only log streams and their followers (logstore.h).
 *
 * A stream is the file <data>/logs/<project or _cluster>/<kind>/<name>/
 * <stream>.log. Whether it is finished is kept in the file's mode: 0440
 * once closed, 0640 while open, so it survives a restart (a follower of a
 * stream finished before the restart still ends). A stream finished
 * without a byte has no file: it is listed instead (logstore_empty.c).
 *
 * Streams in use sit in a table keyed by path (ls->mu guards the table and
 * each stream's refs). A stream's own mutex guards its fd, size, closed
 * flag and followers. A stream stays in the table, its fd cached, while it
 * is referenced (an operation in progress, a follower) or while it is open
 * and the table is small; idle ones are dropped when it grows.
 *
 * Lock order: ls->mu, then a stream's mu, then the HTTP layer's stream_mu
 * (cube_http_stream_wake, called with a stream's mu held; it never calls
 * back into the store). The HTTP layer calls a follower's read and close
 * callbacks without holding its own locks. */
#include "logstore_priv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "http/http_req.h"
#include "base/log.h"
#include "base/fs.h"

#define CLUSTER_DIR "_cluster"
#define STREAM_MAX_BYTES 251   /* with ".log", a whole file name */
#define TABLE_KEEP 256          /* idle open streams kept with their fd */
#define FREE_WAIT_MS 5000       /* how long free waits for followers to go */
#define MODE_OPEN 0640
#define MODE_DONE 0440

static const char *project_dir(const char *project)
{
    return project && *project ? project : CLUSTER_DIR;
}

/* <logs>/<project>/<kind>/<name>, or NULL with *rc. */
static char *object_dir(struct cube_logstore *ls, const char *kind,
                        const char *project, const char *name, int *rc)
{
    if (!cube_fs_name_ok(kind) || !cube_fs_name_ok(name) ||
        (project && *project && !cube_fs_name_ok(project))) {
        *rc = CUBE_EINVAL;
        return NULL;
    }
    char *out = NULL;
    if (asprintf(&out, "%s/%s/%s/%s", ls->logs_dir, project_dir(project), kind,
                 name) < 0) {
        *rc = CUBE_ENOMEM;
        return NULL;
    }
    return out;
}

char *cube_ls_stream_path(struct cube_logstore *ls, const char *kind,
                         const char *project, const char *name,
                         const char *stream, int *rc)
{
    /* "<stream>.log" must fit a file name (NAME_MAX 255): 251 bytes */
    if (!cube_fs_name_ok(stream) || strlen(stream) > STREAM_MAX_BYTES) {
        *rc = CUBE_EINVAL;
        return NULL;
    }
    char *dir = object_dir(ls, kind, project, name, rc);
    if (!dir)
        return NULL;
    char *out = NULL;
    if (asprintf(&out, "%s/%s.log", dir, stream) < 0) {
        out = NULL;
        *rc = CUBE_ENOMEM;
    }
    free(dir);
    return out;
}

int cube_ls_open_locked(struct cube_logstore *ls, const char *kind, const char *project,
                        const char *name, const char *stream, int pending_ok,
                        struct cube_ls_stream **out)
{
    int rc = CUBE_OK;
    char *path = cube_ls_stream_path(ls, kind, project, name, stream, &rc);
    if (!path)
        return rc;
    rc = cube_ls_acquire_locked(ls, path, pending_ok, out);
    free(path);
    return rc;
}

static unsigned hash_path(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* ---- the table ---------------------------------------------------- */

/* Frees a stream nobody references. Caller holds ls->mu. */
static void drop_locked(struct cube_logstore *ls, struct cube_ls_stream *st)
{
    if (st->in_table) {
        struct cube_ls_stream **p = &ls->buckets[st->hash % CUBE_LS_BUCKETS];
        while (*p && *p != st)
            p = &(*p)->next;
        if (*p)
            *p = st->next;
        st->in_table = 0;
        ls->count--;
    }
    if (st->fd >= 0)
        close(st->fd);
    pthread_mutex_destroy(&st->mu);
    free(st->path);
    free(st);
}

/* Drops a reference; keeps an idle stream only while it is open for
 * appends. Caller holds ls->mu. */
void cube_ls_release_locked(struct cube_logstore *ls, struct cube_ls_stream *st)
{
    if (--st->refs > 0)
        return;
    /* refs 0: nobody else can touch the fields without ls->mu */
    if (!st->in_table || st->fd < 0 || st->closed)
        drop_locked(ls, st);
}

void cube_ls_release(struct cube_logstore *ls, struct cube_ls_stream *st)
{
    pthread_mutex_lock(&ls->mu);
    cube_ls_release_locked(ls, st);
    pthread_mutex_unlock(&ls->mu);
}

static void evict_idle_locked(struct cube_logstore *ls)
{
    for (size_t b = 0; b < CUBE_LS_BUCKETS; b++) {
        struct cube_ls_stream *st = ls->buckets[b], *nx;
        for (; st; st = nx) {
            nx = st->next;
            if (st->refs == 0)
                drop_locked(ls, st);
        }
    }
    ls->evict_at = ls->count * 2 > TABLE_KEEP ? ls->count * 2 : TABLE_KEEP;
}

/* Opens an existing stream file read-only. 0, or a CUBE_E code. */
static int open_existing(const char *path, int *fd_out, uint64_t *size,
                         int *closed)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR ? CUBE_ENOTFOUND : CUBE_EIO;
    struct stat sb;
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return CUBE_EIO;
    }
    *fd_out = fd;
    *size = (uint64_t)sb.st_size;
    *closed = !(sb.st_mode & S_IWUSR);
    return CUBE_OK;
}

/* Finds or makes the table entry for path and takes a reference. A missing
 * file gives CUBE_ENOTFOUND unless pending_ok (then an entry without a
 * file, for a follower waiting for the first append). */
static int acquire(struct cube_logstore *ls, const char *path, int pending_ok,
                   struct cube_ls_stream **out)
{
    unsigned h = hash_path(path);
    pthread_mutex_lock(&ls->mu);
    for (struct cube_ls_stream *st = ls->buckets[h % CUBE_LS_BUCKETS]; st;
         st = st->next)
        if (st->hash == h && strcmp(st->path, path) == 0) {
            st->refs++;
            pthread_mutex_unlock(&ls->mu);
            *out = st;
            return CUBE_OK;
        }
    int fd = -1, closed = 0;
    uint64_t size = 0;
    int rc = open_existing(path, &fd, &size, &closed);
    if (rc == CUBE_ENOTFOUND && cube_ls_empty_has(ls, path))
        rc = CUBE_OK, closed = 1;   /* finished without a byte */
    else if (rc == CUBE_ENOTFOUND && pending_ok)
        rc = CUBE_OK;
    struct cube_ls_stream *st = NULL;
    if (rc == CUBE_OK && (!(st = calloc(1, sizeof *st)) ||
                          !(st->path = strdup(path)))) {
        free(st);
        st = NULL;
        rc = CUBE_ENOMEM;
    }
    if (rc != CUBE_OK) {
        pthread_mutex_unlock(&ls->mu);
        if (fd >= 0)
            close(fd);
        return rc;
    }
    if (ls->count >= ls->evict_at)
        evict_idle_locked(ls);
    pthread_mutex_init(&st->mu, NULL);
    st->hash = h;
    st->fd = fd;
    st->size = size;
    st->closed = closed;
    st->refs = 1;
    st->in_table = 1;
    st->next = ls->buckets[h % CUBE_LS_BUCKETS];
    ls->buckets[h % CUBE_LS_BUCKETS] = st;
    ls->count++;
    pthread_mutex_unlock(&ls->mu);
    *out = st;
    return CUBE_OK;
}

/* acquire, then locks the stream's mu; retries when the entry was removed
 * with its object meanwhile, so the caller works on the current one. */
int cube_ls_acquire_locked(struct cube_logstore *ls, const char *path,
                          int pending_ok, struct cube_ls_stream **out)
{
    for (;;) {
        struct cube_ls_stream *st = NULL;
        int rc = acquire(ls, path, pending_ok, &st);
        if (rc != CUBE_OK)
            return rc;
        pthread_mutex_lock(&st->mu);
        if (!st->dead) {
            *out = st;
            return CUBE_OK;
        }
        pthread_mutex_unlock(&st->mu);
        cube_ls_release(ls, st);
    }
}

/* Wakes every follower. Caller holds st->mu. */
static void wake_followers_locked(struct cube_ls_stream *st)
{
    for (struct ls_follower *f = st->followers; f; f = f->next) {
        if (f->handle)
            cube_http_stream_wake(f->handle);
        else
            f->wakes_missed++;
    }
}

/* Makes st->fd an O_RDWR|O_APPEND descriptor, creating the file and its
 * directories as needed. Caller holds st->mu. */
static int make_writable(struct cube_ls_stream *st)
{
    if (st->writable)
        return CUBE_OK;
    /* st->path is read under ls->mu alone (acquire's lookup), so it must
     * never change, not even for a moment: work on a copy of the dir */
    char *dir = strndup(st->path, (size_t)(strrchr(st->path, '/') - st->path));
    if (!dir)
        return CUBE_ENOMEM;
    int mk = cube_mkdir_p(dir, 0750);
    free(dir);
    if (mk < 0)
        return CUBE_EIO;
    int flags = O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC;
    int fd = open(st->path, flags, MODE_OPEN);
    if (fd < 0 && errno == EACCES) {
        /* finished (0440) and we are not root: open it up first */
        int ro = open(st->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (ro >= 0) {
            if (fchmod(ro, MODE_OPEN) == 0)
                fd = open(st->path, flags, MODE_OPEN);
            close(ro);
        }
    }
    if (fd < 0)
        return CUBE_EIO;
    struct stat sb;
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return CUBE_EIO;
    }
    if (st->fd < 0) {
        st->fd = fd;
        st->size = (uint64_t)sb.st_size;
        st->closed = !(sb.st_mode & S_IWUSR);
    } else {
        /* replace the read-only fd in place: readers may be using the
         * number outside the lock, and both name the same file */
        if (dup3(fd, st->fd, O_CLOEXEC) < 0) {
            close(fd);
            return CUBE_EIO;
        }
        close(fd);
    }
    st->writable = 1;
    return CUBE_OK;
}

/* ---- public API --------------------------------------------------- */

struct cube_logstore *cube_logstore_new(const char *data_dir,
                                        uint64_t max_stream_bytes)
{
    if (!data_dir || !*data_dir)
        return NULL;
    struct cube_logstore *ls = calloc(1, sizeof *ls);
    if (!ls)
        return NULL;
    ls->data_dir = strdup(data_dir);
    ls->logs_dir = cube_path_join(data_dir, "logs");
    if (!ls->data_dir || !ls->logs_dir) {
        free(ls->data_dir);
        free(ls->logs_dir);
        free(ls);
        return NULL;
    }
    ls->max_stream_bytes = max_stream_bytes;
    ls->evict_at = TABLE_KEEP;
    pthread_mutex_init(&ls->mu, NULL);
    pthread_mutex_init(&ls->empty_mu, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&ls->idle_cv, &attr);
    pthread_condattr_destroy(&attr);
    return ls;
}

void cube_logstore_free(struct cube_logstore *ls)
{
    if (!ls)
        return;
    pthread_mutex_lock(&ls->mu);
    /* end every follower: closed in memory only, the files stay open */
    for (size_t b = 0; b < CUBE_LS_BUCKETS; b++)
        for (struct cube_ls_stream *st = ls->buckets[b]; st; st = st->next) {
            pthread_mutex_lock(&st->mu);
            st->closed = 1;
            wake_followers_locked(st);
            pthread_mutex_unlock(&st->mu);
        }
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += FREE_WAIT_MS / 1000;
    while (ls->followers > 0)
        if (pthread_cond_timedwait(&ls->idle_cv, &ls->mu, &until) == ETIMEDOUT)
            break;
    if (ls->followers > 0) {
        /* their close callbacks will still use the store: keep it */
        size_t n = ls->followers;
        pthread_mutex_unlock(&ls->mu);
        cube_log(CUBE_LOG_WARN, "core",
                 "log store: %zu followers still open at shutdown; not freed", n);
        return;
    }
    for (size_t b = 0; b < CUBE_LS_BUCKETS; b++)
        while (ls->buckets[b])
            drop_locked(ls, ls->buckets[b]);
    pthread_mutex_unlock(&ls->mu);
    pthread_cond_destroy(&ls->idle_cv);
    pthread_mutex_destroy(&ls->mu);
    cube_ls_empty_free(ls);
    pthread_mutex_destroy(&ls->empty_mu);
    free(ls->data_dir);
    free(ls->logs_dir);
    free(ls);
}

/* Appends at the end (at_offset 0) or as the bytes from offset on (see
 * cube_logstore_append_at). */
static int append(struct cube_logstore *ls, const char *kind, const char *project,
                  const char *name, const char *stream, int at_offset,
                  uint64_t offset, const void *data, size_t len)
{
    if (!ls || (!data && len))
        return CUBE_EINVAL;
    int rc = CUBE_OK;
    char *path = cube_ls_stream_path(ls, kind, project, name, stream, &rc);
    if (!path)
        return rc;
    if (len == 0) {
        free(path);
        return CUBE_OK;
    }
    struct cube_ls_stream *st = NULL;
    rc = cube_ls_acquire_locked(ls, path, 1, &st);
    free(path);
    if (rc != CUBE_OK)
        return rc;
    uint64_t max = ls->max_stream_bytes;
    if (at_offset)   /* len may become 0: every byte was there already */
        rc = cube_ls_resume_trim(st, offset, &data, &len);
    if (rc == CUBE_OK && len && max && (st->size > max || len > max - st->size))
        rc = CUBE_ETOOBIG;
    if (rc == CUBE_OK && len)
        rc = make_writable(st);
    if (rc == CUBE_OK && len && st->closed) {
        if (fchmod(st->fd, MODE_OPEN) < 0)
            rc = CUBE_EIO;
        else
            st->closed = 0;
    }
    if (rc == CUBE_OK && len) {
        const char *p = data;
        size_t done = 0;
        while (done < len) {
            ssize_t n = write(st->fd, p + done, len - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                rc = CUBE_EIO;
                break;
            }
            done += (size_t)n;
        }
        st->size += done;
        if (done)
            wake_followers_locked(st);
    }
    pthread_mutex_unlock(&st->mu);
    cube_ls_release(ls, st);
    return rc;
}

int cube_logstore_append(struct cube_logstore *ls, const char *kind,
                         const char *project, const char *name,
                         const char *stream, const void *data, size_t len)
{
    return append(ls, kind, project, name, stream, 0, 0, data, len);
}

int cube_logstore_append_at(struct cube_logstore *ls, const char *kind,
                            const char *project, const char *name,
                            const char *stream, uint64_t offset,
                            const void *data, size_t len)
{
    return append(ls, kind, project, name, stream, 1, offset, data, len);
}

char *cube_logstore_read(struct cube_logstore *ls, const char *kind,
                         const char *project, const char *name,
                         const char *stream, uint64_t offset, size_t max,
                         size_t *len, int *rc)
{
    int dummy;
    if (!rc)
        rc = &dummy;
    if (len)
        *len = 0;
    if (!ls) {
        *rc = CUBE_EINVAL;
        return NULL;
    }
    struct cube_ls_stream *st = NULL;
    if ((*rc = cube_ls_open_locked(ls, kind, project, name, stream, 0, &st)) != CUBE_OK)
        return NULL;
    int fd = st->fd, closed = st->closed;
    uint64_t size = st->size;
    pthread_mutex_unlock(&st->mu);
    char *buf = NULL;
    if (fd < 0 && closed) {   /* finished without a byte */
        *rc = (buf = strdup("")) ? CUBE_OK : CUBE_ENOMEM;
        goto out;
    }
    if (fd < 0) {
        *rc = CUBE_ENOTFOUND; /* only a follower waits for it */
        goto out;
    }
    size_t want = offset >= size ? 0
                  : (size - offset < (uint64_t)max ? (size_t)(size - offset)
                                                   : max);
    if (want == SIZE_MAX || !(buf = malloc(want + 1))) {
        *rc = CUBE_ENOMEM;
        goto out;
    }
    size_t got = 0;
    while (got < want) {
        ssize_t n = pread(fd, buf + got, want - got, (off_t)(offset + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(buf);
            buf = NULL;
            *rc = CUBE_EIO;
            goto out;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    if (len)
        *len = got;
    *rc = CUBE_OK;
out:
    cube_ls_release(ls, st);
    return buf;
}

int cube_logstore_close(struct cube_logstore *ls, const char *kind,
                        const char *project, const char *name,
                        const char *stream)
{
    if (!ls)
        return CUBE_EINVAL;
    struct cube_ls_stream *st = NULL;
    int rc = cube_ls_open_locked(ls, kind, project, name, stream, 1, &st);
    if (rc != CUBE_OK)
        return rc;
    /* a stream closed before any append becomes an empty finished one:
     * listed, without a file (a file when it cannot be listed) */
    if (st->fd < 0 && !st->closed && cube_ls_empty_mark(ls, st->path) == CUBE_OK)
        st->closed = 1;
    if (st->fd < 0 && st->closed) {
        wake_followers_locked(st);
        pthread_mutex_unlock(&st->mu);
        cube_ls_release(ls, st);
        return CUBE_OK;
    }
    if (st->fd < 0)
        rc = make_writable(st);
    if (rc == CUBE_OK && fchmod(st->fd, MODE_DONE) < 0)
        rc = CUBE_EIO;
    if (rc == CUBE_OK) {
        st->closed = 1;
        wake_followers_locked(st);
    }
    pthread_mutex_unlock(&st->mu);
    cube_ls_release(ls, st);
    return rc;
}

int cube_logstore_remove_object(struct cube_logstore *ls, const char *kind,
                                const char *project, const char *name)
{
    if (!ls)
        return CUBE_EINVAL;
    int rc = CUBE_OK;
    char *dir = object_dir(ls, kind, project, name, &rc);
    if (!dir)
        return rc;
    size_t dlen = strlen(dir);
    pthread_mutex_lock(&ls->mu);
    /* take the object's streams out of the table: their followers drain
     * what was written and end; later appends start new files */
    for (size_t b = 0; b < CUBE_LS_BUCKETS; b++) {
        struct cube_ls_stream *st = ls->buckets[b], *nx;
        for (; st; st = nx) {
            nx = st->next;
            if (strncmp(st->path, dir, dlen) != 0 || st->path[dlen] != '/')
                continue;
            pthread_mutex_lock(&st->mu);
            st->dead = 1;
            st->closed = 1;
            wake_followers_locked(st);
            pthread_mutex_unlock(&st->mu);
            if (st->refs == 0) {
                drop_locked(ls, st);
            } else {
                struct cube_ls_stream **p = &ls->buckets[b];
                while (*p != st)
                    p = &(*p)->next;
                *p = st->next;
                st->in_table = 0;
                ls->count--;
            }
        }
    }
    /* delete the files while no new entry can be made */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        if (errno != ENOENT)
            rc = CUBE_EIO;
    } else {
        DIR *d = fdopendir(dfd);
        if (!d) {
            close(dfd);
            rc = CUBE_EIO;
        } else {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                    continue;
                if (unlinkat(dirfd(d), e->d_name, 0) < 0 && errno != ENOENT)
                    rc = CUBE_EIO;
            }
            closedir(d);
            if (rmdir(dir) < 0 && errno != ENOENT)
                rc = CUBE_EIO;
        }
    }
    cube_ls_empty_forget(ls, dir);
    pthread_mutex_unlock(&ls->mu);
    free(dir);
    return rc;
}
