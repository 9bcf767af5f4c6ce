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
/* The kind name under which Events (audit records with a reason) are
 * published; no registered kind has it. */
#define CUBE_HUB_EVENTS "Event"
/* As cube_hub_end for an Event record (ok 0: it was not stored) about an
 * object of involved_kind in project ("" for cluster objects): published
 * as ADDED of kind CUBE_HUB_EVENTS, with metadata.resourceVersion set. */
void cube_hub_end_event(struct cube_hub *hub, int64_t rv, int ok, const char *project,
                        const char *involved_kind, const char *reason,
                        const char *event_json);
/* The highest rv published (what a list reports as its resourceVersion). */
int64_t cube_hub_current(struct cube_hub *hub);
/* Answers req with a Server-Sent Events watch of kind objects in project
 * (NULL: every project) matching sel (taken over; NULL: all), from rv
 * from_rv (0: from now). 410 Gone when from_rv is no longer kept. */
int cube_hub_respond(struct cube_hub *hub, cube_req *req, const char *kind,
                     const char *project, struct cube_selector *sel,
                     int64_t from_rv);
/* -- sinks: subscribers inside the process (plugin watches) ----------- */

struct cube_hub_sink;
/* What a sink receives: events of `kind` (CUBE_HUB_EVENTS for Events) in
 * project (NULL: any) matching sel (taken over, even on failure; NULL:
 * all) and, for Events, involved kind and reason (NULL: any); after rv
 * from_rv (0: from now). A sink more than max_pending events behind (0:
 * no bound but the history) is gone. */
struct cube_hub_filter {
    const char *kind, *project, *involved_kind, *reason;
    struct cube_selector *sel;
    int64_t from_rv;
    size_t max_pending;
};
/* One event pulled from a sink: type and the object as JSON text (owned
 * by the item; free with cube_hub_items_free). */
struct cube_hub_item {
    int64_t rv;
    enum cube_watch_type type;
    char *object;
};
/* Opens a sink. notify(cls) is called with the hub's lock held whenever
 * something may be there to pull: it must be quick and must not call the
 * hub (schedule a pull elsewhere). NULL on OOM. */
struct cube_hub_sink *cube_hub_sink_open(struct cube_hub *hub,
                                         const struct cube_hub_filter *f,
                                         void (*notify)(void *cls), void *cls);
/* Pulls up to max matching events after the sink's cursor into out, in
 * rv order, advancing it. Returns the count (0: nothing now), or -1 when
 * the sink is gone (too far behind or resumed from a forgotten rv; said
 * once, then -1 every time; nothing more comes). *more is set when more
 * may be there right away. Any thread but not from notify. */
int cube_hub_sink_pull(struct cube_hub *hub, struct cube_hub_sink *sink,
                       struct cube_hub_item *out, int max, int *more);
void cube_hub_items_free(struct cube_hub_item *items, int n);
/* Closes a sink: notify is not called once this returns. */
void cube_hub_sink_close(struct cube_hub *hub, struct cube_hub_sink *sink);

/* Number of watchers connected (for metrics and tests). */
size_t cube_hub_watchers(struct cube_hub *hub);

#endif
