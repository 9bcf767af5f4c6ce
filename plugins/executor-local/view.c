/* view.c — what a replica may see. A home under the data dir cannot be
 * reached by its account when a directory above it is closed to others
 * (the core makes the data dir 0700, and it holds the database). The
 * replica then gets a private mount namespace with a tmpfs over that
 * directory and only its own home and project dir bound back in. With
 * `sandbox: bubblewrap` the replica also runs inside bwrap: the system
 * read-only, home/project/workdir writable, /tmp private, and of /dev only
 * what every process needs and the device nodes pinned to it (pins.c). */
#include "executor_local.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Nonzero when path is dir or lies below it. */
static int under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0' ||
                                          (n == 1 && dir[0] == '/'));
}

/* The topmost strict ancestor of path that others may not enter, into
 * out; 0 when there is none, 1 when found, -1 on error. */
static int closed_ancestor(const char *path, char *out, size_t len)
{
    char pre[PATH_MAX];
    for (const char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        snprintf(pre, sizeof pre, "%.*s", (int)(p - path), path);
        struct stat st;
        if (stat(pre, &st) < 0)
            return -1;
        if (!(st.st_mode & S_IXOTH)) {
            snprintf(out, len, "%s", pre);
            return 1;
        }
    }
    return 0;
}

/* Adds dir to a list unless it, or a directory above it, is there; drops
 * entries below it. */
static int add_outer(char list[][PATH_MAX], int *n, const char *dir)
{
    for (int i = 0; i < *n; i++)
        if (under(dir, list[i]))
            return 0;
    for (int i = 0; i < *n;)
        if (under(list[i], dir))
            memmove(list[i], list[--*n], PATH_MAX);
        else
            i++;
    if (*n == XL_VIEW_MAX)
        return -1;
    snprintf(list[(*n)++], PATH_MAX, "%s", dir);
    return 0;
}

int xl_view_plan(struct xl_view *v, const char *home, const char *project_dir,
                 const char *workdir, char *msg, size_t len)
{
    memset(v, 0, sizeof *v);
    const char *targets[3] = {home, project_dir, workdir};
    char hidden[PATH_MAX];
    for (int i = 0; i < 3; i++) {
        if (i == 2 && (under(workdir, home) || under(workdir, project_dir)))
            break;   /* shown with its home or project dir */
        int found = closed_ancestor(targets[i], hidden, sizeof hidden);
        if (found < 0)
            return snprintf(msg, len, "cannot inspect %s: %s", targets[i], strerror(errno)), -1;
        if (!found)
            continue;
        if (add_outer(v->hide, &v->nhide, hidden) < 0 ||
            add_outer(v->bind, &v->nbind, targets[i]) < 0)
            return snprintf(msg, len, "too many directories to bind"), -1;
    }
    /* A bind must not cover a hidden directory's ancestor, and each bound
     * directory must lie below some hidden one (else it needs no bind). */
    for (int i = 0; i < v->nbind; i++) {
        int ok = 0;
        for (int j = 0; j < v->nhide; j++)
            ok |= under(v->bind[i], v->hide[j]) && strcmp(v->bind[i], v->hide[j]) != 0;
        if (!ok)
            return snprintf(msg, len, "workdir %s: cannot be shown to the replica", v->bind[i]),
                   -1;
    }
    return 0;
}

char **xl_bwrap_argv(const char *bwrap, const char *home, const char *project_dir,
                     const char *workdir, const struct xl_pins *pins, char *const *argv,
                     char *msg, size_t len)
{
    size_t argc = 0;
    while (argv[argc])
        argc++;
    char **out = calloc(argc + 32 + xl_pins_argc(pins), sizeof *out);
    size_t n = 0;
    const char *pre[] = {bwrap, "--ro-bind", "/", "/"};
    const char *own[] = {"--tmpfs", "/tmp", "--bind", home, home, "--bind", project_dir,
                         project_dir};
    snprintf(msg, len, "out of memory");
    if (!out)
        return NULL;
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
        if (!(out[n++] = strdup(pre[i])))
            goto fail;
    if (xl_pins_bwrap_dev(pins, out, &n, msg, len) < 0)
        goto fail;
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (!(out[n++] = strdup(own[i])))
            goto fail;
    if (!under(workdir, home) && !under(workdir, project_dir) && strcmp(workdir, "/tmp") != 0) {
        const char *wd[] = {"--bind", workdir, workdir};
        for (size_t i = 0; i < 3; i++)
            if (!(out[n++] = strdup(wd[i])))
                goto fail;
    }
    if (xl_pins_bwrap_mounts(pins, out, &n, msg, len) < 0)
        goto fail;
    const char *post[] = {"--unshare-ipc", "--chdir", workdir, "--"};
    for (size_t i = 0; i < sizeof post / sizeof post[0]; i++)
        if (!(out[n++] = strdup(post[i])))
            goto fail;
    for (size_t i = 0; i < argc; i++)
        if (!(out[n++] = strdup(argv[i])))
            goto fail;
    msg[0] = '\0';
    return out;
fail:
    xl_strv_free(out);
    return NULL;
}
