/* logstore_priv.h — the store's record, shared by logstore.c (log streams)
 * and files.c (project files), and the hooks the unit tests use to drive a
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

struct cube_logstore {
    char *data_dir;
    char *logs_dir;          /* <data>/logs */
    char *projects_dir;      /* <data>/projects */
    uint64_t max_stream_bytes; /* 0: no limit */
    uint64_t max_file_bytes;   /* 0: no limit */
    /* Guards the table, every stream's refs and table membership. Lock
     * order: mu, then a stream's mu, then the HTTP layer's stream_mu (taken
     * by cube_http_stream_wake). Nothing is ever taken in the other order. */
    pthread_mutex_t mu;
    pthread_cond_t idle_cv;  /* signalled when a follower goes */
    struct cube_ls_stream *buckets[CUBE_LS_BUCKETS];
    size_t count;            /* streams in the table */
    size_t evict_at;         /* count at which idle streams are dropped */
    size_t followers;        /* followers alive (free waits for them) */
};

/* 1 when s is a valid kind/project/name/stream word (see logstore.h). */
int cube_ls_name_ok(const char *s);

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
