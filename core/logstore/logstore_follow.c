/* logstore_follow.c — followers of a log stream: the streaming answers
 * of cube_logstore_respond (read from an offset, park when caught up, wake
 * on append, end when the stream closes), and the test hooks. */
#include <errno.h>
#include <limits.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "http/http_req.h"
#include "logstore_priv.h"

#define FOLLOW_IDLE_MS 5000     /* re-read a parked follower at least this often */

static void unlink_follower(struct ls_follower *f)
{
    if (!f->linked)
        return;
    for (struct ls_follower **p = &f->st->followers; *p; p = &(*p)->next)
        if (*p == f) {
            *p = f->next;
            break;
        }
    f->linked = 0;
}

/* Frees a follower nobody uses any more. Caller holds ls->mu. */
static void follower_gone_locked(struct cube_logstore *ls,
                                 struct ls_follower *f)
{
    cube_ls_release_locked(ls, f->st);
    ls->followers--;
    pthread_cond_broadcast(&ls->idle_cv);
    free(f);
}

static long follower_read(void *cls, char *buf, size_t max)
{
    struct ls_follower *f = cls;
    struct cube_ls_stream *st = f->st;
    pthread_mutex_lock(&st->mu);
    if (st->fd >= 0 && f->off < st->size && max > 0) {
        uint64_t avail = st->size - f->off;
        size_t n = avail < (uint64_t)max ? (size_t)avail : max;
        if (n > (size_t)LONG_MAX)
            n = (size_t)LONG_MAX;
        int fd = st->fd;
        pthread_mutex_unlock(&st->mu);
        /* bytes below size are written; the fd lives while we hold a ref */
        ssize_t got;
        do
            got = pread(fd, buf, n, (off_t)f->off);
        while (got < 0 && errno == EINTR);
        if (got <= 0)
            return CUBE_STREAM_ERROR;
        f->off += (uint64_t)got;
        return (long)got;
    }
    int end = st->closed || !f->follow;
    pthread_mutex_unlock(&st->mu);
    return end ? CUBE_STREAM_END : 0;
}

static void follower_close(void *cls)
{
    struct ls_follower *f = cls;
    struct cube_logstore *ls = f->ls;
    pthread_mutex_lock(&ls->mu);
    pthread_mutex_lock(&f->st->mu);
    unlink_follower(f);
    f->handle = NULL;
    f->host_closed = 1;
    int in_setup = f->in_setup;
    pthread_mutex_unlock(&f->st->mu);
    if (!in_setup)
        follower_gone_locked(ls, f);
    pthread_mutex_unlock(&ls->mu);
}

/* Makes a follower linked to its stream, still in setup. */
static int follower_new(struct cube_logstore *ls, const char *kind,
                        const char *project, const char *name,
                        const char *stream, uint64_t offset, int follow,
                        struct ls_follower **out)
{
    if (!ls)
        return CUBE_EINVAL;
    struct ls_follower *f = calloc(1, sizeof *f);
    if (!f)
        return CUBE_ENOMEM;
    struct cube_ls_stream *st = NULL;
    int rc = cube_ls_open_locked(ls, kind, project, name, stream, follow, &st);
    if (rc != CUBE_OK) {
        free(f);
        return rc;
    }
    if (!follow && st->fd < 0 && !st->closed) {
        pthread_mutex_unlock(&st->mu);
        cube_ls_release(ls, st);
        free(f);
        return CUBE_ENOTFOUND;
    }
    f->ls = ls;
    f->st = st; /* the reference acquire took is the follower's */
    f->off = offset;
    f->follow = follow;
    f->in_setup = 1;
    f->linked = 1;
    f->next = st->followers;
    st->followers = f;
    pthread_mutex_unlock(&st->mu);
    pthread_mutex_lock(&ls->mu);
    ls->followers++;
    pthread_mutex_unlock(&ls->mu);
    *out = f;
    return CUBE_OK;
}

/* Ends setup once the HTTP layer answered (rc) and gave handle h. When it
 * refused the answer its close callback either ran already or never will:
 * either way the follower goes here. */
static void follower_setup_done(struct ls_follower *f, int rc, cube_stream *h)
{
    struct cube_logstore *ls = f->ls;
    pthread_mutex_lock(&ls->mu);
    pthread_mutex_lock(&f->st->mu);
    f->in_setup = 0;
    int gone = f->host_closed;
    if (!gone && rc != CUBE_OK) {
        unlink_follower(f);
        gone = 1;
    } else if (!gone && h) {
        f->handle = h;
        if (f->wakes_missed)
            cube_http_stream_wake(h);
    }
    pthread_mutex_unlock(&f->st->mu);
    if (gone)
        follower_gone_locked(ls, f);
    pthread_mutex_unlock(&ls->mu);
}

static void follower_desc(struct ls_follower *f, struct cube_stream_desc *desc)
{
    memset(desc, 0, sizeof *desc);
    desc->size = sizeof *desc;
    desc->read = follower_read;
    desc->close = follower_close;
    desc->cls = f;
    desc->idle_ms = FOLLOW_IDLE_MS;
}

int cube_logstore_respond(struct cube_logstore *ls, cube_req *req,
                          const char *kind, const char *project,
                          const char *name, const char *stream,
                          uint64_t offset, int follow)
{
    if (!ls || !req)
        return CUBE_EINVAL;
    struct ls_follower *f = NULL;
    int rc = follower_new(ls, kind, project, name, stream, offset, follow, &f);
    if (rc == CUBE_ENOTFOUND)
        return cube_http_answer_error(req, 404, "NotFound", "no such log");
    if (rc != CUBE_OK)
        return rc;
    struct cube_stream_desc desc;
    follower_desc(f, &desc);
    cube_stream *h = NULL;
    rc = cube_http_answer_stream(req, 200, "text/plain; charset=utf-8", &desc,
                                 &h);
    follower_setup_done(f, rc, h);
    return rc;
}

int cube_ls_follower_open(struct cube_logstore *ls, const char *kind,
                          const char *project, const char *name,
                          const char *stream, uint64_t offset, int follow,
                          struct cube_stream_desc *desc)
{
    if (!desc)
        return CUBE_EINVAL;
    struct ls_follower *f = NULL;
    int rc = follower_new(ls, kind, project, name, stream, offset, follow, &f);
    if (rc != CUBE_OK)
        return rc;
    follower_setup_done(f, CUBE_OK, NULL);
    follower_desc(f, desc);
    return CUBE_OK;
}

unsigned cube_ls_follower_wakes(void *cls)
{
    struct ls_follower *f = cls;
    pthread_mutex_lock(&f->st->mu);
    unsigned n = f->wakes_missed;
    pthread_mutex_unlock(&f->st->mu);
    return n;
}
