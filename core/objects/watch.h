/* watch.h — resourceVersions and the watch hub.
 *
 * Every write takes the next resourceVersion (rv) with cube_hub_begin and
 * reports its outcome with cube_hub_end. Writes may finish in any order;
 * the hub publishes their events strictly in rv order, holding back an
 * event until every smaller rv has ended, so a watcher resuming from rv N
 * never misses a change. The last `capacity` events are kept for resuming;
 * an older resourceVersion gets 410 Gone (clients relist). */
#ifndef CUBE_WATCH_H
#define CUBE_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>

struct cube_hub;
struct cube_selector;

enum cube_watch_type {
    CUBE_WATCH_NONE = 0,      /* the write failed: nothing to publish */
    CUBE_WATCH_ADDED = 1,
    CUBE_WATCH_MODIFIED = 2,
    CUBE_WATCH_DELETED = 3,
};

/* Creates a hub whose first rv will be last_rv + 1. wake: the host's
 * stream_wake. */
struct cube_hub *cube_hub_new(int64_t last_rv, size_t capacity,
                              void (*wake)(cube_stream *));
/* Ends every watcher's stream and frees the hub (after the HTTP server
 * stopped). */
void cube_hub_free(struct cube_hub *hub);
/* Ends every watcher (shutdown begins). */
void cube_hub_shutdown(struct cube_hub *hub);
/* Allocates the next rv for a write into *rv. Returns 0, or -1 on OOM
 * (the caller answers 503 and must not call cube_hub_end). */
int cube_hub_begin(struct cube_hub *hub, int64_t *rv);
/* Reports a write's outcome: type NONE when it failed, else the event with
 * the object as JSON text (resourceVersion already set) and its labels
 * (borrowed; copied when needed). */
void cube_hub_end(struct cube_hub *hub, int64_t rv, enum cube_watch_type type,
                  const char *kind, const char *project, const char *object_json,
                  const cJSON *labels);
/* The highest rv published (what a list reports as its resourceVersion). */
int64_t cube_hub_current(struct cube_hub *hub);
/* Answers req with a Server-Sent Events watch of kind objects in project
 * (NULL: every project) matching sel (taken over; NULL: all), from rv
 * from_rv (0: from now). 410 Gone when from_rv is no longer kept. */
int cube_hub_respond(struct cube_hub *hub, cube_req *req, const char *kind,
                     const char *project, struct cube_selector *sel,
                     int64_t from_rv);
/* Number of watchers connected (for metrics and tests). */
size_t cube_hub_watchers(struct cube_hub *hub);

#endif
