/* logstore_empty.c — finished streams that never had a byte, kept without
 * a file. Closing a stream nobody wrote to used to make its object's
 * directory and an empty 0440 file: two inodes for each Job that printed
 * nothing (a pipeline of `true` tasks: most of them), and on ext4 without
 * a journal, right after many deletions, creating an inode costs a scan
 * over the recently deleted ones. Such a stream is instead one line in
 * <logs>/.finished-empty, an append-only file:
 *
 *   +<project>/<kind>/<name>\t<stream>    finished, empty
 *   -<project>/<kind>/<name>              the object's logs were removed
 *
 * read back once, on first use, into a hash set keyed by the object. A
 * stream whose file is missing but that the set lists is finished and
 * empty: reading gives "", a follower ends at once, an append makes its
 * file as for any stream (the file then wins). When the file holds many
 * more lines than entries (at load, or after a removal), it is rewritten.
 * The set costs memory per listed stream (about 100 bytes) for as long as
 * its object's logs are kept. Names with a tab or a newline are not listed
 * (their stream gets an empty file, as before). */
#include "logstore_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/fs.h"

#define EMPTY_FILE ".finished-empty"
#define EMPTY_BUCKETS 4096
#define COMPACT_SLACK 1024   /* rewrite when lines > 2 * entries + this */

struct ls_empty_entry {
    struct ls_empty_entry *next;
    unsigned hash;            /* of obj */
    char *obj;                /* "<project>/<kind>/<name>" */
    char *stream;
};

struct ls_empty {
    struct ls_empty_entry *bucket[EMPTY_BUCKETS];
    size_t entries;
    size_t lines;             /* in the file */
    char *file;               /* <logs>/.finished-empty */
};

static unsigned hash_obj(const char *s, size_t n)
{
    unsigned h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static struct ls_empty_entry *find(struct ls_empty *e, const char *obj, size_t olen,
                                   const char *stream, size_t slen)
{
    unsigned h = hash_obj(obj, olen);
    for (struct ls_empty_entry *x = e->bucket[h % EMPTY_BUCKETS]; x; x = x->next)
        if (x->hash == h && strlen(x->obj) == olen && !memcmp(x->obj, obj, olen) &&
            strlen(x->stream) == slen && !memcmp(x->stream, stream, slen))
            return x;
    return NULL;
}

static int add(struct ls_empty *e, const char *obj, size_t olen, const char *stream,
               size_t slen)
{
    if (find(e, obj, olen, stream, slen))
        return 0;
    struct ls_empty_entry *x = calloc(1, sizeof *x);
    if (!x || !(x->obj = strndup(obj, olen)) || !(x->stream = strndup(stream, slen))) {
        if (x)
            free(x->obj);
        free(x);
        return -1;
    }
    x->hash = hash_obj(obj, olen);
    x->next = e->bucket[x->hash % EMPTY_BUCKETS];
    e->bucket[x->hash % EMPTY_BUCKETS] = x;
    e->entries++;
    return 0;
}

/* Drops every entry of obj; how many. */
static size_t forget(struct ls_empty *e, const char *obj, size_t olen)
{
    unsigned h = hash_obj(obj, olen);
    size_t n = 0;
    for (struct ls_empty_entry **p = &e->bucket[h % EMPTY_BUCKETS]; *p;) {
        struct ls_empty_entry *x = *p;
        if (x->hash == h && strlen(x->obj) == olen && !memcmp(x->obj, obj, olen)) {
            *p = x->next;
            free(x->obj);
            free(x->stream);
            free(x);
            e->entries--;
            n++;
        } else {
            p = &x->next;
        }
    }
    return n;
}

/* Applies one line of the file (without its newline). */
static void replay(struct ls_empty *e, const char *line, size_t n)
{
    const char *tab = n ? memchr(line, '\t', n) : NULL;
    if (n > 1 && line[0] == '+' && tab && tab > line + 1)
        add(e, line + 1, (size_t)(tab - line - 1), tab + 1, n - (size_t)(tab - line) - 1);
    else if (n > 1 && line[0] == '-' && !tab)
        forget(e, line + 1, n - 1);
}

/* Writes the entries to a new file and renames it over the old one, when
 * the file has many more lines than entries. */
static void compact(struct ls_empty *e)
{
    if (e->lines <= 2 * e->entries + COMPACT_SLACK)
        return;
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.tmp", e->file) < 0)
        return;
    FILE *f = fopen(tmp, "we");
    int ok = f != NULL;
    for (size_t b = 0; ok && b < EMPTY_BUCKETS; b++)
        for (struct ls_empty_entry *x = e->bucket[b]; ok && x; x = x->next)
            ok = fprintf(f, "+%s\t%s\n", x->obj, x->stream) > 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok || rename(tmp, e->file) < 0) {
        unlink(tmp);
        cube_log(CUBE_LOG_WARN, "core", "log store: cannot rewrite %s: %s", e->file,
                 strerror(errno));
    } else {
        e->lines = e->entries;
    }
    free(tmp);
}

/* The set, read from its file on first use. Caller holds ls->empty_mu. */
static struct ls_empty *loaded(struct cube_logstore *ls)
{
    if (ls->empty)
        return ls->empty;
    struct ls_empty *e = calloc(1, sizeof *e);
    if (!e || asprintf(&e->file, "%s/%s", ls->logs_dir, EMPTY_FILE) < 0) {
        free(e);
        return NULL;
    }
    FILE *f = fopen(e->file, "re");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while (f && (n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] == '\n')
            n--;
        replay(e, line, (size_t)n);
        e->lines++;
    }
    free(line);
    if (f)
        fclose(f);
    compact(e);
    return ls->empty = e;
}

/* Appends a line to the file; 0 or -1. */
static int append_line(struct cube_logstore *ls, struct ls_empty *e, const char *text,
                       size_t n)
{
    int fd = open(e->file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0 && errno == ENOENT && cube_mkdir_p(ls->logs_dir, 0750) == 0)
        fd = open(e->file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0)
        return -1;
    ssize_t w = write(fd, text, n);   /* one write: O_APPEND keeps lines whole */
    close(fd);
    if (w > 0)
        e->lines++;
    return w == (ssize_t)n ? 0 : -1;
}

/* Splits a stream file's path into its object ("<project>/<kind>/<name>",
 * relative to the logs dir) and stream name; -1 when it is not one. */
static int split(struct cube_logstore *ls, const char *path, const char **obj, size_t *olen,
                 const char **stream, size_t *slen)
{
    size_t root = strlen(ls->logs_dir), n = strlen(path);
    const char *slash = strrchr(path, '/');
    if (n <= root + 1 || strncmp(path, ls->logs_dir, root) != 0 || path[root] != '/' ||
        !slash || slash <= path + root || n < 5 || strcmp(path + n - 4, ".log") != 0 ||
        strpbrk(path + root, "\t\n"))
        return -1;
    *obj = path + root + 1;
    *olen = (size_t)(slash - *obj);
    *stream = slash + 1;
    *slen = (size_t)(path + n - 4 - *stream);
    return *slen ? 0 : -1;
}

int cube_ls_empty_has(struct cube_logstore *ls, const char *path)
{
    const char *obj, *stream;
    size_t olen, slen;
    if (split(ls, path, &obj, &olen, &stream, &slen) < 0)
        return 0;
    pthread_mutex_lock(&ls->empty_mu);
    struct ls_empty *e = loaded(ls);
    int has = e && find(e, obj, olen, stream, slen);
    pthread_mutex_unlock(&ls->empty_mu);
    return has;
}

int cube_ls_empty_mark(struct cube_logstore *ls, const char *path)
{
    const char *obj, *stream;
    size_t olen, slen;
    if (split(ls, path, &obj, &olen, &stream, &slen) < 0)
        return CUBE_EINVAL;
    char *line = NULL;
    int n = asprintf(&line, "+%.*s\t%.*s\n", (int)olen, obj, (int)slen, stream);
    if (n < 0)
        return CUBE_ENOMEM;
    int rc = CUBE_OK;
    pthread_mutex_lock(&ls->empty_mu);
    struct ls_empty *e = loaded(ls);
    if (!e)
        rc = CUBE_ENOMEM;
    else if (!find(e, obj, olen, stream, slen) &&
             (append_line(ls, e, line, (size_t)n) < 0 || add(e, obj, olen, stream, slen) < 0))
        rc = CUBE_EIO;
    pthread_mutex_unlock(&ls->empty_mu);
    free(line);
    return rc;
}

void cube_ls_empty_forget(struct cube_logstore *ls, const char *object_dir)
{
    size_t root = strlen(ls->logs_dir);
    if (strncmp(object_dir, ls->logs_dir, root) != 0 || object_dir[root] != '/')
        return;
    const char *obj = object_dir + root + 1;
    pthread_mutex_lock(&ls->empty_mu);
    struct ls_empty *e = loaded(ls);
    char *line = NULL;
    int n = e ? asprintf(&line, "-%s\n", obj) : -1;
    if (n > 0 && forget(e, obj, strlen(obj)) > 0 && append_line(ls, e, line, (size_t)n) < 0)
        cube_log(CUBE_LOG_WARN, "core", "log store: cannot write %s: %s", e->file,
                 strerror(errno));
    if (e)
        compact(e);   /* a long-lived store whose objects come and go */
    pthread_mutex_unlock(&ls->empty_mu);
    free(line);
}

void cube_ls_empty_free(struct cube_logstore *ls)
{
    struct ls_empty *e = ls->empty;
    for (size_t b = 0; e && b < EMPTY_BUCKETS; b++)
        for (struct ls_empty_entry *x = e->bucket[b], *nx; x; x = nx) {
            nx = x->next;
            free(x->obj);
            free(x->stream);
            free(x);
        }
    if (e)
        free(e->file);
    free(e);
    ls->empty = NULL;
}
