/* logstore_priv.h — the store's record, shared by the logstore*.c files,
 * and the hooks the unit tests use to drive a
 * follower without an HTTP server. Not for other core files. */
#ifndef CUBE_LOGSTORE_PRIV_H
#define CUBE_LOGSTORE_PRIV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cube/cube.h>

#include "logstore.h"

#define CUBE_LS_BUCKETS 256

struct cube_ls_stream;

struct ls_follower {
    struct cube_logstore *ls;
    struct cube_ls_stream *st;
    cube_stream *handle;      /* st->mu; NULL until the HTTP layer gave it */
    uint64_t off;             /* next byte to send (read callback only) */
    int follow;
    int linked;               /* st->mu: in st->followers */
    int in_setup;             /* ls->mu + st->mu: respond still holds it */
    int host_closed;          /* ls->mu + st->mu: close callback ran */
    unsigned wakes_missed;    /* st->mu: wakes while handle was NULL */
    struct ls_follower *next;
};

struct cube_ls_stream {
    struct cube_ls_stream *next; /* bucket chain (ls->mu) */
    char *path;               /* immutable: acquire reads it under ls->mu only */
    unsigned hash;
    int refs;                 /* ls->mu */
    int in_table;             /* ls->mu */
    pthread_mutex_t mu;
    int dead;                 /* removed with its object: get a new one */
    int fd;                   /* -1 while the file does not exist */
    int writable;             /* fd is O_RDWR|O_APPEND */
    uint64_t size;            /* bytes fully appended */
    int closed;               /* finished (or the store is going) */
    struct ls_follower *followers;
};

struct cube_logstore {
    char *data_dir;
    char *logs_dir;          /* <data>/logs */
    uint64_t max_stream_bytes; /* 0: no limit */
    /* Guards the table, every stream's refs and table membership. Lock
     * order: mu, then a stream's mu, then the HTTP layer's stream_mu (taken
     * by cube_http_stream_wake). Nothing is ever taken in the other order. */
    pthread_mutex_t mu;
    pthread_cond_t idle_cv;  /* signalled when a follower goes */
    struct cube_ls_stream *buckets[CUBE_LS_BUCKETS];
    size_t count;            /* streams in the table */
    size_t evict_at;         /* count at which idle streams are dropped */
    size_t followers;        /* followers alive (free waits for them) */
    /* Finished streams that never had a byte (logstore_empty.c): loaded
     * on first use. Lock order: ls->mu or a stream's mu, then empty_mu. */
    pthread_mutex_t empty_mu;
    struct ls_empty *empty;
};

/* Shared by logstore.c and logstore_follow.c. */
/* The file of a stream (new string), or NULL with *rc (bad name, OOM). */
char *cube_ls_stream_path(struct cube_logstore *ls, const char *kind,
                          const char *project, const char *name,
                          const char *stream, int *rc);
/* Takes a reference on the stream at path (creating its entry), then locks
 * its mu; pending_ok allows a stream whose file does not exist yet. */
int cube_ls_acquire_locked(struct cube_logstore *ls, const char *path,
                           int pending_ok, struct cube_ls_stream **out);
/* cube_ls_stream_path, then cube_ls_acquire_locked on it: the stream of
 * (kind, project, name, stream) referenced and locked in *out. */
int cube_ls_open_locked(struct cube_logstore *ls, const char *kind, const char *project,
                        const char *name, const char *stream, int pending_ok,
                        struct cube_ls_stream **out);
/* Drops a reference (caller holds ls->mu, or not: the plain variant). */
void cube_ls_release_locked(struct cube_logstore *ls, struct cube_ls_stream *st);
void cube_ls_release(struct cube_logstore *ls, struct cube_ls_stream *st);

/* logstore_resume.c: the resume rule of cube_logstore_append_at for a
 * stream whose mu the caller holds: trims the bytes st already has off
 * *data and *len (*len may become 0). CUBE_OK, CUBE_ECONFLICT (a gap: offset
 * past the size), CUBE_ESTATE (closed, with bytes past its end). */
int cube_ls_resume_trim(const struct cube_ls_stream *st, uint64_t offset,
                        const void **data, size_t *len);

/* logstore_empty.c: a stream file's path listed as finished and empty
 * (1/0); listing one (CUBE_EINVAL for names the list cannot hold, the
 * caller then makes an empty file); dropping an object's entries (its
 * directory's path); freeing the list. */
int cube_ls_empty_has(struct cube_logstore *ls, const char *path);
int cube_ls_empty_mark(struct cube_logstore *ls, const char *path);
void cube_ls_empty_forget(struct cube_logstore *ls, const char *object_dir);
void cube_ls_empty_free(struct cube_logstore *ls);


/* Test hooks. Creates a follower of the stream as cube_logstore_respond
 * would, without an HTTP request: fills *desc with its read and close
 * callbacks (the caller must call close exactly once). Wakes it would get
 * are counted instead (cube_ls_follower_wakes). CUBE_ENOTFOUND when the
 * stream is missing and follow is 0. */
int cube_ls_follower_open(struct cube_logstore *ls, const char *kind,
                          const char *project, const char *name,
                          const char *stream, uint64_t offset, int follow,
                          struct cube_stream_desc *desc);
/* Wakes a follower made by cube_ls_follower_open has received (desc.cls). */
unsigned cube_ls_follower_wakes(void *cls);

#endif
