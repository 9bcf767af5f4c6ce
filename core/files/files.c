/* files.c — project files under <data>/projects/<project>/ (files.h).
 *
 * A path is walked from the project dir with openat(), one segment at a
 * time and each with O_NOFOLLOW, so no symlink inside a project dir (nor
 * the project dir itself being one) can lead outside it: a symlink met on
 * the way is refused with CUBE_EPERM. Writes go to a hidden temp file in
 * the target's directory that is then renamed over the target, so readers
 * see the old or the new contents, never a part. Segments may not start
 * with '.', so the temp files never clash with a user's file and are not
 * listed. Nothing here is logged: paths and names come from users. */
#include "files_priv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/fs.h"
#include "base/random.h"

#define PATH_MAX_BYTES 1024
#define FILE_MODE 0640
#define DIR_MODE CUBE_FILES_DIR_MODE
#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* relative, '/'-separated, no empty segment, none starting with '.' (so no
 * "." or ".." either), at most PATH_MAX_BYTES. */
static int path_ok(const char *path)
{
    if (!path || !*path || strnlen(path, PATH_MAX_BYTES + 1) > PATH_MAX_BYTES)
        return 0;
    for (const char *seg = path;;) {
        const char *end = strchr(seg, '/');
        if (seg[0] == '.' || seg[0] == '/' || seg[0] == '\0')
            return 0;
        if (!end)
            return 1;
        seg = end + 1;
    }
}

int cube_files_path_ok(const char *path)
{
    return path_ok(path);
}

/* The CUBE_E code for a failed open or stat of `name` in dirfd: a symlink
 * is refused; a file where a directory is wanted is "not found" when
 * reading and "exists" when writing. */
int cube_files_seg_error(int dirfd, const char *name, int err, int writing)
{
    struct stat sb;
    if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(sb.st_mode))
        return CUBE_EPERM;
    switch (err) {
    case ENOENT: return CUBE_ENOTFOUND;
    case ELOOP: return CUBE_EPERM;
    case EACCES: return CUBE_EPERM;
    case ENOTDIR: return writing ? CUBE_EEXIST : CUBE_ENOTFOUND;
    case EISDIR: return CUBE_EEXIST;
    case ENAMETOOLONG: return CUBE_EINVAL;
    case ENOMEM: return CUBE_ENOMEM;
    case ENOSPC: case EDQUOT: return CUBE_EUNAVAIL;
    default: return CUBE_EIO;
    }
}

#define seg_error cube_files_seg_error

int cube_files_open_dir(const char *dir, int create, int *rc)
{
    if (create && cube_mkdir_p(dir, DIR_MODE) < 0) {
        *rc = errno == ENOSPC || errno == EDQUOT ? CUBE_EUNAVAIL : CUBE_EIO;
        return -1;
    }
    int fd = open(dir, OPEN_DIR);
    if (fd < 0)
        *rc = errno == ENOENT ? CUBE_ENOTFOUND
              : errno == ELOOP || errno == ENOTDIR ? CUBE_EPERM : CUBE_EIO;
    return fd;
}

int cube_files_open_project(struct cube_files *files, const char *project, int create,
                            int *rc)
{
    if (!cube_fs_name_ok(project)) {
        *rc = CUBE_EINVAL;
        return -1;
    }
    char *root = cube_path_join(files->projects_dir, project);
    if (!root) {
        *rc = CUBE_ENOMEM;
        return -1;
    }
    int fd = cube_files_open_dir(root, create, rc);
    free(root);
    return fd;
}

int cube_files_walk_from(int cur, char *path, int create, char **last, int *rc)
{
    char *seg = path;
    for (char *slash; (slash = strchr(seg, '/')) != NULL; seg = slash + 1) {
        *slash = '\0';
        int next = openat(cur, seg, OPEN_DIR);
        if (next < 0 && errno == ENOENT && create) {
            if (mkdirat(cur, seg, DIR_MODE) < 0 && errno != EEXIST) {
                *rc = seg_error(cur, seg, errno, create);
                close(cur);
                return -1;
            }
            next = openat(cur, seg, OPEN_DIR);
        }
        if (next < 0) {
            *rc = seg_error(cur, seg, errno, create);
            close(cur);
            return -1;
        }
        close(cur);
        cur = next;
    }
    *last = seg;
    return cur;
}

/* Walks path (a writable copy) from the project dir down to the directory
 * holding its last segment, creating missing directories when `create`.
 * Returns that directory's fd and sets *last to the last segment, or -1
 * with *rc. */
static int walk(struct cube_files *files, const char *project, char *path,
                int create, char **last, int *rc)
{
    int cur = cube_files_open_project(files, project, create, rc);
    return cur < 0 ? -1 : cube_files_walk_from(cur, path, create, last, rc);
}

struct cube_files *cube_files_new(const char *data_dir, uint64_t max_file_bytes)
{
    if (!data_dir || !*data_dir)
        return NULL;
    struct cube_files *files = calloc(1, sizeof *files);
    if (!files)
        return NULL;
    files->projects_dir = cube_path_join(data_dir, "projects");
    if (!files->projects_dir) {
        free(files);
        return NULL;
    }
    files->max_file_bytes = max_file_bytes;
    return files;
}

void cube_files_free(struct cube_files *files)
{
    if (!files)
        return;
    free(files->projects_dir);
    free(files);
}

int cube_files_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int cube_files_write(struct cube_files *files, const char *project,
                     const char *path, const void *data, size_t len)
{
    if (!files || (!data && len) || !cube_fs_name_ok(project) || !path_ok(path))
        return CUBE_EINVAL;
    if (files->max_file_bytes && len > files->max_file_bytes)
        return CUBE_ETOOBIG;
    char *copy = strdup(path);
    if (!copy)
        return CUBE_ENOMEM;
    int rc = CUBE_OK;
    char *last;
    int dfd = walk(files, project, copy, 1, &last, &rc);
    if (dfd < 0) {
        free(copy);
        return rc;
    }
    char tmp[40] = ".tmp-";
    cube_id_hex(tmp + 5, 12);
    int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    FILE_MODE);
    if (fd < 0) {
        rc = seg_error(dfd, tmp, errno, 1);
    } else {
        int bad = fchmod(fd, FILE_MODE) < 0 || cube_files_write_all(fd, data, len) < 0 ||
                  fsync(fd) < 0;
        if (close(fd) < 0)
            bad = 1;
        struct stat sb;
        if (bad)
            rc = CUBE_EIO;
        else if (fstatat(dfd, last, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
                 S_ISLNK(sb.st_mode))
            rc = CUBE_EPERM; /* rename would not follow it, but refuse */
        else if (renameat(dfd, tmp, dfd, last) < 0)
            rc = errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST
                     ? CUBE_EEXIST : CUBE_EIO;
        if (rc != CUBE_OK)
            unlinkat(dfd, tmp, 0);
    }
    close(dfd);
    free(copy);
    return rc;
}

char *cube_files_read(struct cube_files *files, const char *project,
                      const char *path, size_t *len, int *rc)
{
    int dummy;
    if (!rc)
        rc = &dummy;
    if (len)
        *len = 0;
    if (!files || !cube_fs_name_ok(project) || !path_ok(path)) {
        *rc = CUBE_EINVAL;
        return NULL;
    }
    char *copy = strdup(path);
    if (!copy) {
        *rc = CUBE_ENOMEM;
        return NULL;
    }
    char *last, *buf = NULL;
    int dfd = walk(files, project, copy, 0, &last, rc);
    if (dfd < 0) {
        free(copy);
        return NULL;
    }
    /* O_NONBLOCK: a FIFO planted there must not hang the open */
    int fd = openat(dfd, last, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        *rc = seg_error(dfd, last, errno, 0);
        goto out;
    }
    struct stat sb;
    if (fstat(fd, &sb) < 0) {
        *rc = CUBE_EIO;
        goto out;
    }
    if (S_ISDIR(sb.st_mode)) {
        *rc = CUBE_EINVAL;
        goto out;
    }
    if (!S_ISREG(sb.st_mode)) {
        *rc = CUBE_EPERM;
        goto out;
    }
    uint64_t size = (uint64_t)sb.st_size;
    if ((files->max_file_bytes && size > files->max_file_bytes) || size >= SIZE_MAX) {
        *rc = CUBE_ETOOBIG;
        goto out;
    }
    if (!(buf = malloc((size_t)size + 1))) {
        *rc = CUBE_ENOMEM;
        goto out;
    }
    size_t got = 0;
    while (got < (size_t)size) {
        ssize_t n = read(fd, buf + got, (size_t)size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(buf);
            buf = NULL;
            *rc = CUBE_EIO;
            goto out;
        }
        if (n == 0)
            break; /* shrank meanwhile */
        got += (size_t)n;
    }
    buf[got] = '\0';
    if (len)
        *len = got;
    *rc = CUBE_OK;
out:
    if (fd >= 0)
        close(fd);
    close(dfd);
    free(copy);
    return buf;
}

int cube_files_delete(struct cube_files *files, const char *project,
                      const char *path)
{
    if (!files || !cube_fs_name_ok(project) || !path_ok(path))
        return CUBE_EINVAL;
    char *copy = strdup(path);
    if (!copy)
        return CUBE_ENOMEM;
    int rc = CUBE_OK;
    char *last;
    int dfd = walk(files, project, copy, 0, &last, &rc);
    if (dfd < 0) {
        free(copy);
        return rc;
    }
    struct stat sb;
    if (fstatat(dfd, last, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
        rc = seg_error(dfd, last, errno, 0);
    } else if (S_ISDIR(sb.st_mode)) {
        /* only an empty directory */
        if (unlinkat(dfd, last, AT_REMOVEDIR) < 0)
            rc = errno == ENOTEMPTY || errno == EEXIST ? CUBE_ECONFLICT
                                                        : CUBE_EIO;
    } else if (unlinkat(dfd, last, 0) < 0) {
        /* a symlink found here is removed itself, never its target */
        rc = errno == ENOENT ? CUBE_ENOTFOUND : CUBE_EIO;
    }
    close(dfd);
    free(copy);
    return rc;
}

struct list_entry {
    char *name;
    uint64_t size;
    int dir;
};

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const struct list_entry *)a)->name,
                  ((const struct list_entry *)b)->name);
}

/* Lists the open directory dfd (taken over) as the JSON array. */
static char *list_fd(int dfd, int *rc)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        *rc = CUBE_EIO;
        return NULL;
    }
    struct list_entry *ents = NULL;
    size_t n = 0, cap = 0;
    char *out = NULL;
    *rc = CUBE_ENOMEM;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue; /* ".", "..", temp files: never a user's name */
        struct stat sb;
        if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        if (!S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
            continue; /* symlinks and the like are not project files */
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            struct list_entry *grown = realloc(ents, ncap * sizeof *ents);
            if (!grown)
                goto done;
            ents = grown;
            cap = ncap;
        }
        if (!(ents[n].name = strdup(e->d_name)))
            goto done;
        ents[n].dir = S_ISDIR(sb.st_mode);
        ents[n].size = ents[n].dir ? 0 : (uint64_t)sb.st_size;
        n++;
    }
    if (n)
        qsort(ents, n, sizeof *ents, entry_cmp);
    cJSON *arr = cJSON_CreateArray();
    if (!arr)
        goto done;
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddStringToObject(o, "name", ents[i].name) ||
            !cJSON_AddNumberToObject(o, "size", (double)ents[i].size) ||
            !cJSON_AddBoolToObject(o, "dir", ents[i].dir)) {
            cJSON_Delete(o);
            cJSON_Delete(arr);
            goto done;
        }
        cJSON_AddItemToArray(arr, o);
    }
    out = cJSON_PrintUnformatted(arr);
    cJSON_Delete(arr);
    if (out)
        *rc = CUBE_OK;
done:
    for (size_t i = 0; i < n; i++)
        free(ents[i].name);
    free(ents);
    closedir(d);
    return out;
}

char *cube_files_list(struct cube_files *files, const char *project,
                      const char *dir, int *rc)
{
    int dummy;
    if (!rc)
        rc = &dummy;
    if (!files || !cube_fs_name_ok(project) || (dir && *dir && !path_ok(dir))) {
        *rc = CUBE_EINVAL;
        return NULL;
    }
    if (!dir || !*dir) {
        int fd = cube_files_open_project(files, project, 0, rc);
        if (fd < 0) {
            if (*rc != CUBE_ENOTFOUND)
                return NULL;
            char *empty = strdup("[]"); /* a project without files yet */
            *rc = empty ? CUBE_OK : CUBE_ENOMEM;
            return empty;
        }
        return list_fd(fd, rc);
    }
    char *copy = strdup(dir);
    if (!copy) {
        *rc = CUBE_ENOMEM;
        return NULL;
    }
    char *last;
    int pfd = walk(files, project, copy, 0, &last, rc);
    if (pfd < 0) {
        free(copy);
        return NULL;
    }
    int fd = openat(pfd, last, OPEN_DIR);
    if (fd < 0)
        *rc = seg_error(pfd, last, errno, 0);
    close(pfd);
    free(copy);
    return fd < 0 ? NULL : list_fd(fd, rc);
}

char *cube_files_path(struct cube_files *files, const char *project, const char *path)
{
    if (!path_ok(path) || !project || strchr(project, '/') || !*project)
        return NULL;
    size_t n = strlen(files->projects_dir) + strlen(project) + strlen(path) + 3;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s/%s/%s", files->projects_dir, project, path);
    return out;
}
