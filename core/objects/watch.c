/* watch.c — see watch.h. Locking: hub->mu guards everything here; it may be
 * held while calling the HTTP layer's stream wake (lock order hub -> http),
 * and is never taken while the HTTP layer holds its own lock. */
#include "watch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http_req.h"
#include "selector.h"
#include "base/clock.h"
#include "watch_priv.h"

#define HEARTBEAT_NS (15ull * 1000000000ull)

static const char *const TYPE_NAMES[] = {"", "ADDED", "MODIFIED", "DELETED"};

static void event_free(struct event *ev)
{
    if (!ev)
        return;
    free(ev->kind), free(ev->project), free(ev->frame);
    free(ev->involved), free(ev->reason);
    cJSON_Delete(ev->labels);
    free(ev);
}

struct cube_hub *cube_hub_new(int64_t last_rv, size_t capacity,
                              void (*wake)(cube_stream *))
{
    struct cube_hub *hub = calloc(1, sizeof *hub);
    if (!hub)
        return NULL;
    hub->cap = capacity ? capacity : 4096;
    hub->ring = calloc(hub->cap, sizeof *hub->ring);
    if (!hub->ring) {
        free(hub);
        return NULL;
    }
    pthread_mutex_init(&hub->mu, NULL);
    hub->wake = wake;
    hub->next_rv = last_rv + 1;
    hub->published = last_rv;
    hub->floor = last_rv; /* history from before this start is lost */
    return hub;
}

/* Makes room for one more pending write. Caller holds mu. */
static int pend_reserve(struct cube_hub *hub)
{
    if (hub->pend_len < hub->pend_cap)
        return 0;
    size_t ncap = hub->pend_cap ? hub->pend_cap * 2 : 64;
    struct pending *grown = malloc(ncap * sizeof *grown);
    if (!grown)
        return -1;
    for (size_t i = 0; i < hub->pend_len; i++)
        grown[i] = hub->pend[(hub->pend_head + i) % hub->pend_cap];
    free(hub->pend);
    hub->pend = grown;
    hub->pend_cap = ncap;
    hub->pend_head = 0;
    return 0;
}

int cube_hub_begin(struct cube_hub *hub, int64_t *rv)
{
    pthread_mutex_lock(&hub->mu);
    if (pend_reserve(hub) < 0) {
        pthread_mutex_unlock(&hub->mu);
        return -1;
    }
    *rv = hub->next_rv++;
    hub->pend[(hub->pend_head + hub->pend_len++) % hub->pend_cap] =
        (struct pending){.rv = *rv};
    pthread_mutex_unlock(&hub->mu);
    return 0;
}

/* "event: TYPE\nid: RV\ndata: {"type":"TYPE","object":OBJECT}\n\n" (malloc'd;
 * its length in *len), put together without printf: one per write. */
static char *sse_frame(enum cube_watch_type type, int64_t rv, const char *object_json,
                       size_t *len, size_t *obj_off)
{
    char id[24];
    int idn = snprintf(id, sizeof id, "%lld", (long long)rv);
    const char *t = TYPE_NAMES[type];
    size_t tn = strlen(t), on = strlen(object_json);
#define LIT(l) (memcpy(p, (l), sizeof(l) - 1), p += sizeof(l) - 1)
#define PUT(s, l) (memcpy(p, (s), (l)), p += (l))
    char *f = malloc(sizeof "event: \nid: \ndata: {\"type\":\"\",\"object\":}\n\n" + 2 * tn +
                     (size_t)idn + on), *p = f;
    if (!f)
        return NULL;
    LIT("event: "), PUT(t, tn), LIT("\nid: "), PUT(id, (size_t)idn);
    LIT("\ndata: {\"type\":\""), PUT(t, tn), LIT("\",\"object\":");
    *obj_off = (size_t)(p - f);
    PUT(object_json, on), LIT("}\n\n");
#undef PUT
#undef LIT
    *p = '\0';
    *len = (size_t)(p - f);
    return f;
}

static struct event *event_new(int64_t rv, enum cube_watch_type type,
                               const char *kind, const char *project,
                               const char *object_json, const cJSON *labels)
{
    struct event *ev = calloc(1, sizeof *ev);
    if (!ev)
        return NULL;
    ev->rv = rv;
    ev->kind = strdup(kind);
    ev->project = strdup(project ? project : "");
    ev->labels = labels ? cJSON_Duplicate(labels, 1) : NULL;
    ev->type = type;
    ev->obj_len = strlen(object_json);
    ev->frame = sse_frame(type, rv, object_json, &ev->frame_len, &ev->obj_off);
    if (!ev->frame || !ev->kind || !ev->project || (labels && !ev->labels)) {
        event_free(ev);
        return NULL;
    }
    return ev;
}

/* Moves finished writes at the head of the queue into the ring. Caller
 * holds mu. Returns 1 when something was published. */
static int release(struct cube_hub *hub)
{
    int any = 0;
    while (hub->pend_len && hub->pend[hub->pend_head].done) {
        struct pending *p = &hub->pend[hub->pend_head];
        if (p->ev) {
            struct event **slot = &hub->ring[hub->count % hub->cap];
            if (*slot) {
                hub->floor = (*slot)->rv; /* resuming before this is lost */
                event_free(*slot);
            }
            *slot = p->ev;
            hub->count++;
            any = 1;
        }
        hub->published = p->rv;
        hub->pend_head = (hub->pend_head + 1) % hub->pend_cap;
        hub->pend_len--;
    }
    return any;
}

/* Marks the pending write p done with ev (NULL: nothing to publish) and
 * wakes the watchers when something was released. Caller holds mu. */
static void publish(struct cube_hub *hub, struct pending *p, struct event *ev)
{
    p->done = 1;
    p->ev = ev;
    if (release(hub))
        for (struct watcher *w = hub->watchers; w; w = w->next) {
            if (w->stream)
                hub->wake(w->stream);
            else if (w->notify)
                w->notify(w->notify_cls);
        }
}

/* The pending record of rv. Caller holds mu. */
static struct pending *pending_of(struct cube_hub *hub, int64_t rv)
{
    int64_t first = hub->pend[hub->pend_head].rv;
    return &hub->pend[(hub->pend_head + (size_t)(rv - first)) % hub->pend_cap];
}

void cube_hub_end(struct cube_hub *hub, int64_t rv, enum cube_watch_type type,
                  const char *kind, const char *project, const char *object_json,
                  const cJSON *labels)
{
    struct event *ev = NULL;
    if (type != CUBE_WATCH_NONE)
        ev = event_new(rv, type, kind, project, object_json, labels);
    /* An event lost to OOM is still ended, so later ones are not held. */
    pthread_mutex_lock(&hub->mu);
    publish(hub, pending_of(hub, rv), ev);
    pthread_mutex_unlock(&hub->mu);
}

/* event_json with "resourceVersion":"rv" put first in its metadata (the
 * stored record has none), or a copy when it does not start that way. */
static char *with_rv(const char *event_json, int64_t rv)
{
    static const char head[] = "{\"metadata\":{";
    size_t n = strlen(event_json);
    char *out = malloc(n + 48);
    if (!out)
        return NULL;
    if (strncmp(event_json, head, sizeof head - 1) != 0)
        return memcpy(out, event_json, n + 1);
    snprintf(out, n + 48, "%s\"resourceVersion\":\"%lld\",%s", head, (long long)rv,
             event_json + sizeof head - 1);
    return out;
}

void cube_hub_end_event(struct cube_hub *hub, int64_t rv, int ok, const char *project,
                        const char *involved_kind, const char *reason,
                        const char *event_json)
{
    struct event *ev = NULL;
    char *doc = ok ? with_rv(event_json, rv) : NULL;
    if (doc)
        ev = event_new(rv, CUBE_WATCH_ADDED, CUBE_HUB_EVENTS, project, doc, NULL);
    free(doc);
    if (ev && (!(ev->involved = strdup(involved_kind)) ||
               (reason && !(ev->reason = strdup(reason))))) {
        event_free(ev);
        ev = NULL;
    }
    pthread_mutex_lock(&hub->mu);
    publish(hub, pending_of(hub, rv), ev);
    pthread_mutex_unlock(&hub->mu);
}

int64_t cube_hub_current(struct cube_hub *hub)
{
    pthread_mutex_lock(&hub->mu);
    int64_t rv = hub->published;
    pthread_mutex_unlock(&hub->mu);
    return rv;
}

size_t cube_hub_watchers(struct cube_hub *hub)
{
    pthread_mutex_lock(&hub->mu);
    size_t n = hub->n_watchers;
    pthread_mutex_unlock(&hub->mu);
    return n;
}

/* Index (in ring order) of the first kept event with rv > cursor. */
size_t cube_hub_first_after(const struct cube_hub *hub, int64_t cursor)
{
    size_t lo = hub->count > hub->cap ? hub->count - hub->cap : 0, hi = hub->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (hub->ring[mid % hub->cap]->rv <= cursor)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int cube_hub_matches(const struct watcher *w, const struct event *ev)
{
    if (strcmp(w->kind, ev->kind) != 0)
        return 0;
    if (w->project && strcmp(w->project, ev->project) != 0)
        return 0;
    if (w->involved && (!ev->involved || strcmp(w->involved, ev->involved) != 0))
        return 0;
    if (w->reason && (!ev->reason || strcmp(w->reason, ev->reason) != 0))
        return 0;
    return !w->sel || cube_selector_match(w->sel, ev->labels);
}

static const char GONE_FRAME[] =
    "event: ERROR\ndata: {\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\","
    "\"code\":410,\"reason\":\"Gone\",\"message\":\"too old resource version: "
    "relist and watch again\"}}\n\n";

/* Copies as much of a frame as fits; the rest goes to the spill buffer. */
static size_t put_frame(struct watcher *w, char *buf, size_t max, size_t used,
                        const char *frame, size_t len)
{
    size_t n = len < max - used ? len : max - used;
    memcpy(buf + used, frame, n);
    if (n < len) {
        w->spill = malloc(len - n);
        if (!w->spill) {
            w->ended = 1; /* cannot deliver it whole: end, the client relists */
            return n;
        }
        memcpy(w->spill, frame + n, len - n);
        w->spill_len = len - n;
        w->spill_off = 0;
    }
    return n;
}

/* Fills buf with pending frames for w. Caller holds hub->mu. */
static size_t fill(struct cube_hub *hub, struct watcher *w, char *buf, size_t max)
{
    size_t used = 0;
    if (w->spill) {
        size_t n = w->spill_len - w->spill_off < max ? w->spill_len - w->spill_off : max;
        memcpy(buf, w->spill + w->spill_off, n);
        w->spill_off += n;
        if (w->spill_off == w->spill_len) {
            free(w->spill);
            w->spill = NULL;
        }
        return n;
    }
    if (w->cursor < hub->floor)
        w->gone = 1;
    if (w->gone) {
        w->ended = 1;
        return put_frame(w, buf, max, 0, GONE_FRAME, sizeof GONE_FRAME - 1);
    }
    for (size_t i = cube_hub_first_after(hub, w->cursor); i < hub->count && used < max && !w->spill; i++) {
        const struct event *ev = hub->ring[i % hub->cap];
        if (cube_hub_matches(w, ev))
            used += put_frame(w, buf, max, used, ev->frame, ev->frame_len);
        w->cursor = ev->rv;
    }
    if (hub->published > w->cursor && used < max && !w->spill)
        w->cursor = hub->published; /* later rvs were failed writes */
    return used;
}

static long watcher_read(void *cls, char *buf, size_t max)
{
    struct watcher *w = cls;
    struct cube_hub *hub = w->hub;
    pthread_mutex_lock(&hub->mu);
    long n;
    if (w->ended && !w->spill)
        n = CUBE_STREAM_END;
    else if (hub->shutting_down)
        n = CUBE_STREAM_END;
    else
        n = (long)fill(hub, w, buf, max);
    uint64_t now = cube_now_ns();
    if (n > 0) {
        w->last_send_ns = now;
    } else if (n == 0 && now - w->last_send_ns >= HEARTBEAT_NS && max >= 8) {
        memcpy(buf, ": ping\n\n", 8); /* keeps proxies from closing it */
        n = 8;
        w->last_send_ns = now;
    }
    pthread_mutex_unlock(&hub->mu);
    return n;
}

void cube_hub_unlink(struct cube_hub *hub, struct watcher *w)
{
    for (struct watcher **p = &hub->watchers; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            if (!w->notify)
                hub->n_watchers--; /* sinks are not counted */
            break;
        }
}

static void watcher_close(void *cls)
{
    struct watcher *w = cls;
    struct cube_hub *hub = w->hub;
    pthread_mutex_lock(&hub->mu);
    cube_hub_unlink(hub, w);
    pthread_mutex_unlock(&hub->mu);
    cube_selector_free(w->sel);
    free(w->kind), free(w->project), free(w->spill);
    free(w);
}

int cube_hub_respond(struct cube_hub *hub, cube_req *req, const char *kind,
                     const char *project, struct cube_selector *sel,
                     int64_t from_rv)
{
    struct watcher *w = calloc(1, sizeof *w);
    if (!w || !(w->kind = strdup(kind)) || (project && !(w->project = strdup(project)))) {
        if (w)
            free(w->kind);
        free(w);
        cube_selector_free(sel);
        return CUBE_ENOMEM;
    }
    w->hub = hub;
    w->sel = sel;
    w->last_send_ns = cube_now_ns();
    pthread_mutex_lock(&hub->mu);
    w->cursor = from_rv > 0 ? from_rv : hub->published;
    int too_old = from_rv > 0 && from_rv < hub->floor;
    int rc = CUBE_OK;
    if (too_old) {
        rc = cube_http_answer_error(req, 410, "Gone", "too old resource version: "
                                    "relist and watch again");
    } else {
        const struct cube_stream_desc desc = {
            .size = sizeof desc, .read = watcher_read, .close = watcher_close,
            .cls = w, .idle_ms = 5000,
        };
        rc = cube_http_answer_stream(req, 200, "text/event-stream", &desc, &w->stream);
        if (rc == CUBE_OK) {
            w->next = hub->watchers;
            hub->watchers = w;
            hub->n_watchers++;
        }
    }
    pthread_mutex_unlock(&hub->mu);
    if (too_old || rc != CUBE_OK) {
        cube_selector_free(w->sel);
        free(w->kind), free(w->project), free(w);
    }
    return rc;
}

void cube_hub_shutdown(struct cube_hub *hub)
{
    pthread_mutex_lock(&hub->mu);
    hub->shutting_down = 1;
    for (struct watcher *w = hub->watchers; w; w = w->next)
        if (w->stream)
            hub->wake(w->stream);
    pthread_mutex_unlock(&hub->mu);
}

void cube_hub_free(struct cube_hub *hub)
{
    if (!hub)
        return;
    /* Watchers are gone: the HTTP server stopped (closing every stream). */
    for (size_t i = 0; i < hub->cap; i++)
        event_free(hub->ring[i]);
    for (size_t i = 0; i < hub->pend_len; i++)
        event_free(hub->pend[(hub->pend_head + i) % hub->pend_cap].ev);
    free(hub->ring);
    free(hub->pend);
    pthread_mutex_destroy(&hub->mu);
    free(hub);
}
