/* logstore_resume.c — what an executor needs to go on shipping a stream
 * after a restart (logstore.h): a stream's size and state, and the rule
 * that makes appending from a known offset idempotent. */
#include "logstore_priv.h"

#include <stdlib.h>

/* The resume rule of cube_logstore_append_at, for a stream whose size is
 * known (caller holds st->mu): trims the bytes the stream already has off
 * *data and *len. CUBE_OK (maybe nothing left), CUBE_ECONFLICT (a gap),
 * CUBE_ESTATE (closed, with bytes past its end). */
int cube_ls_resume_trim(const struct cube_ls_stream *st, uint64_t offset,
                        const void **data, size_t *len)
{
    if (offset > st->size)
        return CUBE_ECONFLICT;
    uint64_t have = st->size - offset;
    if (have >= *len) {
        *len = 0;
        return CUBE_OK;
    }
    if (st->closed)
        return CUBE_ESTATE;
    *data = (const char *)*data + have;
    *len -= (size_t)have;
    return CUBE_OK;
}

int cube_logstore_stat(struct cube_logstore *ls, const char *kind,
                       const char *project, const char *name,
                       const char *stream, uint64_t *size, int *closed)
{
    if (size)
        *size = 0;
    if (closed)
        *closed = 0;
    if (!ls)
        return CUBE_EINVAL;
    struct cube_ls_stream *st = NULL;
    int rc = cube_ls_open_locked(ls, kind, project, name, stream, 0, &st);
    if (rc != CUBE_OK)
        return rc;
    if (st->fd < 0 && !st->closed) {
        rc = CUBE_ENOTFOUND;   /* only a follower waits for it */
    } else {
        if (size)
            *size = st->size;
        if (closed)
            *closed = st->closed;
    }
    pthread_mutex_unlock(&st->mu);
    cube_ls_release(ls, st);
    return rc;
}
