/* cube_mock_files.c — the fake host's log streams and project files (ABI
 * 1.1), in memory. See cube_mock.h. Test-only code: global state is fine. */
#include "cube_mock.h"
#include "cube_mock_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

struct mstream { char *kind, *project, *name, *stream, *data; size_t len; int closed; };
struct mfile { char *project, *path, *data; size_t len; };

static struct {
    const struct cube_host *host;
    struct mstream *logs;
    int n_logs, cap_logs;
    struct mfile *files;
    int n_files, cap_files;
} F;

static char *copy_bytes(const void *data, size_t len)
{
    char *p = malloc(len + 1);
    if (p) {
        if (len)
            memcpy(p, data, len);
        p[len] = '\0';
    }
    return p;
}

/* A log store name part: non-empty, no '/', not starting with '.'. */
static int name_ok(const char *s)
{
    return s && *s && s[0] != '.' && !strchr(s, '/') && strlen(s) <= 255;
}

static int log_names_ok(const char *kind, const char *project, const char *name,
                        const char *stream)
{
    return name_ok(kind) && name_ok(name) && (!project || !*project || name_ok(project)) &&
           name_ok(stream) && strlen(stream) <= 251;
}

static struct mstream *find_log(const char *kind, const char *project, const char *name,
                                const char *stream)
{
    for (int i = 0; i < F.n_logs; i++) {
        struct mstream *s = &F.logs[i];
        if (!strcmp(s->kind, kind) && !strcmp(s->project, project ? project : "") &&
            !strcmp(s->name, name) && !strcmp(s->stream, stream))
            return s;
    }
    return NULL;
}

static struct mstream *find_or_add_log(const char *kind, const char *project,
                                       const char *name, const char *stream)
{
    struct mstream *s = find_log(kind, project, name, stream);
    if (s)
        return s;
    struct mstream *grown = mock_grow(F.logs, F.n_logs, &F.cap_logs, sizeof *F.logs);
    if (!grown)
        return NULL;
    F.logs = grown;
    s = &F.logs[F.n_logs];
    *s = (struct mstream){strdup(kind), strdup(project ? project : ""), strdup(name),
                          strdup(stream), copy_bytes("", 0), 0, 0};
    if (!s->kind || !s->project || !s->name || !s->stream || !s->data) {
        free(s->kind), free(s->project), free(s->name), free(s->stream), free(s->data);
        return NULL;
    }
    F.n_logs++;
    return s;
}

static int log_append(cube_plugin *self, const char *kind, const char *project,
                      const char *name, const char *stream, const void *data, size_t len)
{
    (void)self;
    if ((!data && len) || !log_names_ok(kind, project, name, stream))
        return CUBE_EINVAL;
    if (len == 0)
        return CUBE_OK;
    struct mstream *s = find_or_add_log(kind, project, name, stream);
    char *grown = s ? realloc(s->data, s->len + len + 1) : NULL;
    if (!grown)
        return CUBE_ENOMEM;
    memcpy(grown + s->len, data, len);
    s->data = grown;
    s->len += len;
    s->data[s->len] = '\0';
    s->closed = 0; /* appending reopens a finished stream */
    return CUBE_OK;
}

static char *log_read(cube_plugin *self, const char *kind, const char *project,
                      const char *name, const char *stream, uint64_t offset, size_t max,
                      size_t *len, int *rc)
{
    (void)self;
    int dummy;
    if (!rc)
        rc = &dummy;
    if (len)
        *len = 0;
    if (!log_names_ok(kind, project, name, stream))
        return *rc = CUBE_EINVAL, NULL;
    const struct mstream *s = find_log(kind, project, name, stream);
    if (!s)
        return *rc = CUBE_ENOTFOUND, NULL;
    size_t n = offset >= s->len ? 0 : s->len - (size_t)offset < max ? s->len - (size_t)offset : max;
    char *out = copy_bytes(s->data + (n ? offset : 0), n);
    if (!out)
        return *rc = CUBE_ENOMEM, NULL;
    if (len)
        *len = n;
    *rc = CUBE_OK;
    return out;
}

static int resp_log(cube_req *req, const char *kind, const char *project, const char *name,
                    const char *stream, uint64_t offset, int follow)
{
    (void)follow; /* the mock answers with what the stream holds now */
    if (!req || !log_names_ok(kind, project, name, stream))
        return CUBE_EINVAL;
    const struct mstream *s = find_log(kind, project, name, stream);
    if (!s)
        return F.host->resp_error(req, 404, "NotFound", "no such log");
    size_t from = offset >= s->len ? s->len : (size_t)offset;
    return F.host->resp_bytes(req, 200, "text/plain; charset=utf-8", s->data + from,
                              s->len - from);
}

static int log_close(cube_plugin *self, const char *kind, const char *project,
                     const char *name, const char *stream)
{
    (void)self;
    if (!log_names_ok(kind, project, name, stream))
        return CUBE_EINVAL;
    struct mstream *s = find_or_add_log(kind, project, name, stream);
    if (!s)
        return CUBE_ENOMEM;
    s->closed = 1;
    return CUBE_OK;
}

int cube_mock_log_closed(const char *kind, const char *project, const char *name,
                         const char *stream)
{
    const struct mstream *s = log_names_ok(kind, project, name, stream)
                              ? find_log(kind, project, name, stream) : NULL;
    return s ? s->closed : -1;
}

void mock_files_forget_object(const char *kind, const char *project, const char *name)
{
    for (int i = 0; i < F.n_logs;) {
        struct mstream *s = &F.logs[i];
        if (strcmp(s->kind, kind) || strcmp(s->project, project ? project : "") ||
            strcmp(s->name, name)) {
            i++;
            continue;
        }
        free(s->kind), free(s->project), free(s->name), free(s->stream), free(s->data);
        memmove(s, s + 1, (size_t)(F.n_logs - i - 1) * sizeof *s);
        F.n_logs--;
    }
}

/* -- project files ------------------------------------------------------ */

/* Relative, '/'-separated, no empty segment and none starting with '.'
 * (so no "." or ".."), at most 1024 bytes. */
static int path_ok(const char *path)
{
    if (!path || !*path || strlen(path) > 1024)
        return 0;
    for (const char *seg = path;; seg = strchr(seg, '/') + 1) {
        if (seg[0] == '.' || seg[0] == '/' || seg[0] == '\0')
            return 0;
        if (!strchr(seg, '/'))
            return 1;
    }
}

/* Nonzero when `dir` is a proper parent directory of `path`. */
static int under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && path[n] == '/';
}

static struct mfile *find_file(const char *project, const char *path)
{
    for (int i = 0; i < F.n_files; i++)
        if (!strcmp(F.files[i].project, project) && !strcmp(F.files[i].path, path))
            return &F.files[i];
    return NULL;
}

/* Nonzero when some file of the project lies under dir. */
static int is_dir(const char *project, const char *dir)
{
    for (int i = 0; i < F.n_files; i++)
        if (!strcmp(F.files[i].project, project) && under(F.files[i].path, dir))
            return 1;
    return 0;
}

static int file_write(cube_plugin *self, const char *project, const char *path,
                      const void *data, size_t len)
{
    (void)self;
    if ((!data && len) || !name_ok(project) || !path_ok(path))
        return CUBE_EINVAL;
    for (int i = 0; i < F.n_files; i++)
        if (!strcmp(F.files[i].project, project) && under(path, F.files[i].path))
            return CUBE_EEXIST; /* a parent directory is a file */
    if (is_dir(project, path))
        return CUBE_EEXIST;
    char *bytes = copy_bytes(data, len);
    if (!bytes)
        return CUBE_ENOMEM;
    struct mfile *f = find_file(project, path);
    if (f) {
        free(f->data);
        f->data = bytes, f->len = len;
        return CUBE_OK;
    }
    struct mfile *grown = mock_grow(F.files, F.n_files, &F.cap_files, sizeof *F.files);
    if (!grown)
        return free(bytes), CUBE_ENOMEM;
    F.files = grown;
    f = &F.files[F.n_files];
    *f = (struct mfile){strdup(project), strdup(path), bytes, len};
    if (!f->project || !f->path) {
        free(f->project), free(f->path), free(bytes);
        return CUBE_ENOMEM;
    }
    F.n_files++;
    return CUBE_OK;
}

static char *file_read(cube_plugin *self, const char *project, const char *path,
                       size_t *len, int *rc)
{
    (void)self;
    int dummy;
    if (!rc)
        rc = &dummy;
    if (len)
        *len = 0;
    if (!name_ok(project) || !path_ok(path))
        return *rc = CUBE_EINVAL, NULL;
    const struct mfile *f = find_file(project, path);
    if (!f)
        return *rc = is_dir(project, path) ? CUBE_EINVAL : CUBE_ENOTFOUND, NULL;
    char *out = copy_bytes(f->data, f->len);
    if (!out)
        return *rc = CUBE_ENOMEM, NULL;
    if (len)
        *len = f->len;
    *rc = CUBE_OK;
    return out;
}

static int file_delete(cube_plugin *self, const char *project, const char *path)
{
    (void)self;
    if (!name_ok(project) || !path_ok(path))
        return CUBE_EINVAL;
    struct mfile *f = find_file(project, path);
    if (!f) /* directories exist only while they hold files: never empty */
        return is_dir(project, path) ? CUBE_ECONFLICT : CUBE_ENOTFOUND;
    free(f->project), free(f->path), free(f->data);
    memmove(f, f + 1, (size_t)(F.n_files - (f - F.files) - 1) * sizeof *f);
    F.n_files--;
    return CUBE_OK;
}

struct entry { char name[256]; size_t size; int dir; };

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

static char *file_list(cube_plugin *self, const char *project, const char *dir, int *rc)
{
    (void)self;
    int dummy, n = 0;
    if (!rc)
        rc = &dummy;
    if (!name_ok(project) || (dir && *dir && !path_ok(dir)))
        return *rc = CUBE_EINVAL, NULL;
    size_t dl = dir && *dir ? strlen(dir) : 0;
    struct entry *ents = calloc((size_t)F.n_files + 1, sizeof *ents);
    if (!ents)
        return *rc = CUBE_ENOMEM, NULL;
    for (int i = 0; i < F.n_files; i++) {
        const struct mfile *f = &F.files[i];
        if (strcmp(f->project, project) != 0 || (dl && !under(f->path, dir)))
            continue;
        const char *rel = f->path + (dl ? dl + 1 : 0);
        size_t len = strcspn(rel, "/");
        int j = 0;
        while (j < n && !(strlen(ents[j].name) == len && !strncmp(ents[j].name, rel, len)))
            j++;
        if (j < n)
            continue;
        snprintf(ents[n].name, sizeof ents[n].name, "%.*s", (int)len, rel);
        ents[n].dir = rel[len] == '/';
        ents[n].size = ents[n].dir ? 0 : f->len;
        n++;
    }
    if (dl && n == 0) {
        free(ents);
        return *rc = CUBE_ENOTFOUND, NULL;
    }
    qsort(ents, (size_t)n, sizeof *ents, entry_cmp);
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", ents[i].name);
        cJSON_AddNumberToObject(o, "size", (double)ents[i].size);
        cJSON_AddBoolToObject(o, "dir", ents[i].dir);
        cJSON_AddItemToArray(arr, o);
    }
    free(ents);
    char *out = cJSON_PrintUnformatted(arr);
    cJSON_Delete(arr);
    *rc = out ? CUBE_OK : CUBE_ENOMEM;
    return out;
}

/* ABI 1.5: log resume, with cubed's rules (cube_host.h). */
static int log_stat(cube_plugin *self, const char *kind, const char *project,
                    const char *name, const char *stream, uint64_t *size, int *closed)
{
    (void)self;
    if (size)
        *size = 0;
    if (closed)
        *closed = 0;
    if (!log_names_ok(kind, project, name, stream))
        return CUBE_EINVAL;
    const struct mstream *s = find_log(kind, project, name, stream);
    if (!s)
        return CUBE_ENOTFOUND;
    if (size)
        *size = s->len;
    if (closed)
        *closed = s->closed;
    return CUBE_OK;
}

static int log_append_at(cube_plugin *self, const char *kind, const char *project,
                         const char *name, const char *stream, uint64_t offset,
                         const void *data, size_t len)
{
    if ((!data && len) || !log_names_ok(kind, project, name, stream))
        return CUBE_EINVAL;
    if (len == 0)
        return CUBE_OK;
    const struct mstream *s = find_log(kind, project, name, stream);
    uint64_t size = s ? s->len : 0;
    if (offset > size)
        return CUBE_ECONFLICT;
    if (size - offset >= len)
        return CUBE_OK;   /* every byte is there already */
    if (s && s->closed)
        return CUBE_ESTATE;
    size_t have = (size_t)(size - offset);
    return log_append(self, kind, project, name, stream, (const char *)data + have,
                      len - have);
}

void mock_files_install(struct cube_host *h)
{
    F.host = h;
    h->log_append = log_append;
    h->log_read = log_read;
    h->resp_log = resp_log;
    h->log_close = log_close;
    h->log_stat = log_stat;
    h->log_append_at = log_append_at;
    h->file_write = file_write;
    h->file_read = file_read;
    h->file_delete = file_delete;
    h->file_list = file_list;
}

void mock_files_reset(void)
{
    for (int i = 0; i < F.n_logs; i++) {
        struct mstream *s = &F.logs[i];
        free(s->kind), free(s->project), free(s->name), free(s->stream), free(s->data);
    }
    for (int i = 0; i < F.n_files; i++)
        free(F.files[i].project), free(F.files[i].path), free(F.files[i].data);
    free(F.logs);
    free(F.files);
    memset(&F, 0, sizeof F);
}
