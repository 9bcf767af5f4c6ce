/* watch_priv.h — the hub's records, shared by watch.c (the ring, writers
 * and SSE watchers) and watch_sink.c (in-process subscribers). Not for use
 * outside core/objects. Every field is guarded by cube_hub.mu. */
#ifndef CUBE_WATCH_PRIV_H
#define CUBE_WATCH_PRIV_H

#include <pthread.h>

#include "watch.h"

/* One published change, pre-formatted as an SSE frame shared by all. The
 * object's JSON text is frame[obj_off .. obj_off + obj_len). */
struct event {
    int64_t rv;
    enum cube_watch_type type;
    char *kind, *project;
    cJSON *labels;
    char *involved, *reason; /* Events: the involved kind and the reason */
    char *frame;
    size_t frame_len, obj_off, obj_len;
};

/* A write in flight, in rv order; done once cube_hub_end reported it. */
struct pending {
    int64_t rv;
    int done;
    struct event *ev; /* NULL when the write failed */
};

/* A subscriber: an SSE stream (stream set) or an in-process sink (notify
 * set; see cube_hub_sink_open). */
struct watcher {
    struct cube_hub *hub;
    cube_stream *stream;
    void (*notify)(void *cls);
    void *notify_cls;
    char *kind, *project;
    char *involved, *reason;  /* Event filters (NULL: any) */
    struct cube_selector *sel;
    int64_t cursor;          /* last rv delivered or skipped */
    size_t max_pending;      /* sinks: lag that ends them (0: no bound) */
    uint64_t last_send_ns;
    int gone;                /* fell behind the ring: send 410, then end */
    int ended;
    char *spill;             /* rest of a frame larger than the buffer */
    size_t spill_len, spill_off;
    struct watcher *next;
};

struct cube_hub {
    pthread_mutex_t mu;
    void (*wake)(cube_stream *);
    int64_t next_rv;         /* the next rv to hand out */
    int64_t published;       /* highest rv released */
    int64_t floor;           /* resuming from below this is 410 */
    struct event **ring;     /* ring[i % cap]: events in rv order */
    size_t cap, count;       /* count: events ever released into the ring */
    struct pending *pend;    /* deque of writes in flight, rv order */
    size_t pend_head, pend_len, pend_cap;
    struct watcher *watchers;
    size_t n_watchers;
    int shutting_down;
};

/* Index (in ring order) of the first kept event with rv > cursor. */
size_t cube_hub_first_after(const struct cube_hub *hub, int64_t cursor);
/* 1 when ev is one w asked for. */
int cube_hub_matches(const struct watcher *w, const struct event *ev);
/* Unlinks w from the hub's list (caller holds mu). */
void cube_hub_unlink(struct cube_hub *hub, struct watcher *w);

#endif
