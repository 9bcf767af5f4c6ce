/*
 * cube_watch.h — watches of objects and events for plugins (since 1.5).
 *
 * Part of the Cube plugin ABI. A plugin subscribes with host->watch and a
 * struct cube_watch_desc; the host calls desc->fn for each change, in
 * resourceVersion order, until host->watch_cancel. Descriptors are
 * versioned by their `size` field: set it to sizeof the struct.
 */
#ifndef CUBE_WATCH_ABI_H
#define CUBE_WATCH_ABI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A watch (opaque; from host->watch, released by host->watch_cancel). */
typedef struct cube_watch cube_watch;

/** The kind name that subscribes to Events (the records obj_event and the
 *  core write: {"kind":"Event","involvedObject":{...},"reason":...}). */
#define CUBE_WATCH_EVENTS "Event"

/** One change. `type` is "ADDED", "MODIFIED" or "DELETED" with the object
 *  as JSON text (as stored, metadata.resourceVersion set; for DELETED the
 *  object as it was last); Events always come as "ADDED". Or "ERROR" with
 *  a Status {"kind":"Status","code":410,"reason":"Gone","message":...}:
 *  the resume point is no longer kept or the subscription fell more than
 *  max_pending changes behind. After an ERROR no further callback of the
 *  watch runs: the plugin relists (obj_list_page), cancels this watch and
 *  subscribes again from the list's metadata.resourceVersion.
 *  `state` is the plugin's state (as for timer_add), `arg` the
 *  descriptor's. Both strings are borrowed for the duration of the call.
 *  Thread: a host worker thread (the pool that runs timers and submit),
 *  never the thread of the write and never with a store or hub lock held.
 *  Callbacks of one watch never overlap and come in resourceVersion
 *  order; callbacks of different watches may run concurrently. A callback
 *  may call any slot, including watch_cancel of its own watch; it should
 *  not block for long (it holds a worker, and its watch falls behind). */
typedef void (*cube_watch_fn)(void *state, void *arg, const char *type,
                              const char *object_json);

/** What to watch. Strings are copied by host->watch. */
struct cube_watch_desc {
    size_t size;                /* sizeof(struct cube_watch_desc) */
    /** A registered kind ("Job", "Model"), or CUBE_WATCH_EVENTS. */
    const char *kind;
    /** A project, or NULL for every project (every project: plugins see
     *  all of them). Ignored for cluster kinds. For Events: the project of
     *  the involved object (NULL: any, cluster objects included). */
    const char *project;
    /** A label selector as in the API's labelSelector ("app=x,tier!=db");
     *  NULL or "": everything. Objects only (Events have no labels). */
    const char *label_selector;
    /** Where to start: NULL, "" or "0" for "now" (changes after the call);
     *  else a resourceVersion (a list's metadata.resourceVersion, or the
     *  last one the plugin saw): changes after it. A resourceVersion the
     *  host's history no longer holds gives one ERROR callback at once. */
    const char *resource_version;
    /** Events only: the involved object's kind and the reason ("Started");
     *  NULL: any. */
    const char *involved_kind;
    const char *reason;
    /** How many changes may be published past the last one delivered to
     *  this watch before it gets ERROR (instead of the host buffering
     *  without bound). 0: 1024. The host's history also bounds it. */
    unsigned max_pending;
    cube_watch_fn fn;           /* required */
    void *arg;                  /* handed to fn */
};

#ifdef __cplusplus
}
#endif

#endif /* CUBE_WATCH_ABI_H */
