/* watch_sink.c — in-process subscribers of the watch hub (see "sinks" in
 * watch.h). A sink reads the same ring as the SSE watchers: nothing is
 * queued per sink, so a slow one costs no memory; once it is more than
 * max_pending events behind, or its cursor left the ring, it is gone and
 * its owner relists. Locking: hub->mu, as in watch.c; notify is called with
 * it held. */
#include <stdlib.h>
#include <string.h>

#include "selector.h"
#include "watch_priv.h"

struct cube_hub_sink {
    struct watcher w;
};

static char *dup_or_null(const char *s, int *oom)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *oom = 1;
    return d;
}

static void sink_free(struct cube_hub_sink *s)
{
    cube_selector_free(s->w.sel);
    free(s->w.kind), free(s->w.project), free(s->w.involved), free(s->w.reason);
    free(s);
}

struct cube_hub_sink *cube_hub_sink_open(struct cube_hub *hub,
                                         const struct cube_hub_filter *f,
                                         void (*notify)(void *cls), void *cls)
{
    struct cube_hub_sink *s = calloc(1, sizeof *s);
    int oom = !s;
    if (!s) {
        cube_selector_free(f->sel);
        return NULL;
    }
    s->w.sel = f->sel;
    s->w.kind = dup_or_null(f->kind, &oom);
    s->w.project = dup_or_null(f->project, &oom);
    s->w.involved = dup_or_null(f->involved_kind, &oom);
    s->w.reason = dup_or_null(f->reason, &oom);
    if (oom || !s->w.kind) {
        sink_free(s);
        return NULL;
    }
    s->w.hub = hub;
    s->w.notify = notify;
    s->w.notify_cls = cls;
    s->w.max_pending = f->max_pending;
    pthread_mutex_lock(&hub->mu);
    s->w.cursor = f->from_rv > 0 ? f->from_rv : hub->published;
    if (f->from_rv > 0 && f->from_rv < hub->floor)
        s->w.gone = 1;
    s->w.next = hub->watchers;
    hub->watchers = &s->w;
    pthread_mutex_unlock(&hub->mu);
    return s;
}

/* Events published after the sink's cursor, matching or not. */
static size_t lag(const struct cube_hub *hub, const struct watcher *w)
{
    return hub->count - cube_hub_first_after(hub, w->cursor);
}

static char *object_text(const struct event *ev)
{
    char *t = malloc(ev->obj_len + 1);
    if (t) {
        memcpy(t, ev->frame + ev->obj_off, ev->obj_len);
        t[ev->obj_len] = '\0';
    }
    return t;
}

int cube_hub_sink_pull(struct cube_hub *hub, struct cube_hub_sink *sink,
                       struct cube_hub_item *out, int max, int *more)
{
    struct watcher *w = &sink->w;
    int n = 0;
    *more = 0;
    pthread_mutex_lock(&hub->mu);
    if (!w->gone && (w->cursor < hub->floor || (w->max_pending && lag(hub, w) > w->max_pending)))
        w->gone = 1;
    if (w->gone) {
        pthread_mutex_unlock(&hub->mu);
        return -1;
    }
    size_t i = cube_hub_first_after(hub, w->cursor);
    for (; i < hub->count && n < max; i++) {
        const struct event *ev = hub->ring[i % hub->cap];
        if (cube_hub_matches(w, ev)) {
            char *text = object_text(ev);
            if (!text)
                break; /* retried on the next pull */
            out[n++] = (struct cube_hub_item){ev->rv, ev->type, text};
        }
        w->cursor = ev->rv;
    }
    if (i < hub->count)
        *more = 1;
    else if (hub->published > w->cursor)
        w->cursor = hub->published; /* later rvs were failed writes */
    pthread_mutex_unlock(&hub->mu);
    return n;
}

void cube_hub_items_free(struct cube_hub_item *items, int n)
{
    for (int i = 0; i < n; i++)
        free(items[i].object);
}

void cube_hub_sink_close(struct cube_hub *hub, struct cube_hub_sink *sink)
{
    if (!sink)
        return;
    pthread_mutex_lock(&hub->mu);
    cube_hub_unlink(hub, &sink->w);
    pthread_mutex_unlock(&hub->mu);
    sink_free(sink);
}
