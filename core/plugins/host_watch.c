/* host_watch.c — the ABI 1.5 watch slots: a plugin's subscription is a
 * sink of the core's watch hub (objects/watch.h) drained on the host's
 * worker pool (ctx->tasks, the threads that run timers and submit).
 *
 * Life of a watch: the hub calls on_notify (hub lock held) when events are
 * published; it schedules one drain task at a time. A drain pulls a batch
 * from the hub, then calls the plugin's fn per event with no lock held,
 * and reschedules itself while more is there, so one busy watch does not
 * keep a worker from the others. watch_cancel marks the watch cancelled,
 * waits for a drain running on another thread, and closes the sink; the
 * record is freed when the last reference (the plugin's handle, a queued
 * drain) is dropped. Lock order: hub -> watch->mu -> tasks. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/tasks.h"
#include "ctx/ctx.h"
#include "host_slots.h"
#include "objects/kinds.h"
#include "objects/selector.h"
#include "objects/watch.h"

#define BATCH 64
#define DEFAULT_MAX_PENDING 1024

struct cube_watch {
    cube_plugin *plugin;
    struct cube_hub *hub;
    struct cube_hub_sink *sink;     /* closed by cancel */
    cube_watch_fn fn;
    void *arg;
    pthread_mutex_t mu;
    pthread_cond_t idle;            /* signalled when running drops to 0 */
    int refs;                       /* the handle + a scheduled drain */
    int scheduled, dirty, running, cancelled, ended;
    pthread_t runner;
    struct cube_watch *next;        /* the plugin's watches */
};

/* Guards every plugin's `watches` list (short sections only). */
static pthread_mutex_t lists_mu = PTHREAD_MUTEX_INITIALIZER;

static const char GONE_STATUS[] =
    "{\"apiVersion\":\"cube/v1\",\"kind\":\"Status\",\"code\":410,\"reason\":\"Gone\","
    "\"message\":\"too old resource version or too far behind: relist and watch again\"}";

static const char *type_name(enum cube_watch_type t)
{
    return t == CUBE_WATCH_ADDED ? "ADDED" : t == CUBE_WATCH_MODIFIED ? "MODIFIED" : "DELETED";
}

/* Drops one reference; caller holds w->mu, which this releases. */
static void unref_unlock(struct cube_watch *w)
{
    int last = --w->refs == 0;
    pthread_mutex_unlock(&w->mu);
    if (last) {
        pthread_cond_destroy(&w->idle);
        pthread_mutex_destroy(&w->mu);
        free(w);
    }
}

static void drain(void *a, void *b);

/* Queues a drain; caller holds w->mu and has set scheduled. */
static void schedule_locked(struct cube_watch *w)
{
    w->refs++;
    if (cube_tasks_submit(w->plugin->ctx->tasks, drain, w, NULL) < 0) {
        w->refs--; /* shutting down: nothing more is delivered */
        w->scheduled = 0;
    }
}

static void on_notify(void *cls)
{
    struct cube_watch *w = cls;
    pthread_mutex_lock(&w->mu);
    w->dirty = 1;
    if (!w->scheduled && !w->cancelled && !w->ended) {
        w->scheduled = 1;
        schedule_locked(w);
    }
    pthread_mutex_unlock(&w->mu);
}

static int is_cancelled(struct cube_watch *w)
{
    pthread_mutex_lock(&w->mu);
    int c = w->cancelled;
    pthread_mutex_unlock(&w->mu);
    return c;
}

/* Delivers one pulled batch (or the ERROR) with no lock held. */
static void deliver(struct cube_watch *w, struct cube_hub_item *items, int n)
{
    if (n < 0) {
        pthread_mutex_lock(&w->mu);
        w->ended = 1;
        int cancelled = w->cancelled;
        pthread_mutex_unlock(&w->mu);
        if (!cancelled)
            w->fn(w->plugin->state, w->arg, "ERROR", GONE_STATUS);
        return;
    }
    for (int i = 0; i < n && !is_cancelled(w); i++)
        w->fn(w->plugin->state, w->arg, type_name(items[i].type), items[i].object);
}

static void drain(void *a, void *b)
{
    (void)b;
    struct cube_watch *w = a;
    pthread_mutex_lock(&w->mu);
    if (w->cancelled || w->ended) {
        w->scheduled = 0;
        unref_unlock(w);
        return;
    }
    w->running = 1;
    w->runner = pthread_self();
    w->dirty = 0;
    pthread_mutex_unlock(&w->mu);

    struct cube_hub_item items[BATCH];
    int more = 0;
    int n = cube_hub_sink_pull(w->hub, w->sink, items, BATCH, &more);
    deliver(w, items, n);
    if (n > 0)
        cube_hub_items_free(items, n);

    pthread_mutex_lock(&w->mu);
    w->running = 0;
    pthread_cond_broadcast(&w->idle);
    if (!w->cancelled && !w->ended && (more || w->dirty)) {
        w->refs--; /* this run's reference passes to the next */
        schedule_locked(w);
        pthread_mutex_unlock(&w->mu);
        return;
    }
    w->scheduled = 0;
    unref_unlock(w);
}

/* Parses a resume point: NULL, "" or "0" is 0 (now). -1 when malformed. */
static long long parse_rv(const char *s)
{
    if (!s || !*s)
        return 0;
    long long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*p - '0');
    }
    return v;
}

/* Checks desc against the kinds; fills f (f->sel parsed). */
static int filter_of(cube_plugin *self, const struct cube_watch_desc *d,
                     struct cube_hub_filter *f)
{
    char err[200];
    int events = d->kind && strcmp(d->kind, CUBE_WATCH_EVENTS) == 0;
    const struct cube_kind *k = events || !d->kind ? NULL
                                : cube_kinds_by_kind(&self->ctx->kinds, d->kind);
    long long rv = parse_rv(d->resource_version);
    const char *why = !d->fn ? "fn is required"
                      : !events && !k ? "kind: not a registered kind"
                      : rv < 0 ? "resource_version: not a resourceVersion"
                      : events && d->label_selector && *d->label_selector
                          ? "label_selector: Events have no labels"
                      : !events && (d->involved_kind || d->reason)
                          ? "involved_kind, reason: for Events only" : NULL;
    if (why) {
        cube_log(CUBE_LOG_INFO, self->log_component, "watch: %s", why);
        return CUBE_EINVAL;
    }
    *f = (struct cube_hub_filter){
        .kind = events ? CUBE_HUB_EVENTS : k->kind,
        .project = k && k->scope == CUBE_SCOPE_CLUSTER ? NULL : d->project,
        .involved_kind = d->involved_kind, .reason = d->reason, .from_rv = rv,
        .max_pending = d->max_pending ? d->max_pending : DEFAULT_MAX_PENDING,
    };
    if (!(f->sel = cube_selector_parse(events ? NULL : d->label_selector, err, sizeof err))) {
        cube_log(CUBE_LOG_INFO, self->log_component, "watch: label_selector: %s", err);
        return CUBE_EINVAL;
    }
    return CUBE_OK;
}

cube_watch *cube_slot_watch(cube_plugin *self, const struct cube_watch_desc *desc, int *rc)
{
    struct cube_watch_desc d = {0};
    struct cube_hub_filter f;
    if (!desc || desc->size < offsetof(struct cube_watch_desc, arg) + sizeof desc->arg) {
        cube_log(CUBE_LOG_INFO, self->log_component, "watch: desc.size too small");
        return *rc = CUBE_EINVAL, NULL;
    }
    memcpy(&d, desc, desc->size < sizeof d ? desc->size : sizeof d);
    if (atomic_load(&self->tasks_closed))
        return *rc = CUBE_ESTATE, NULL;
    if ((*rc = filter_of(self, &d, &f)) != CUBE_OK)
        return NULL;
    struct cube_watch *w = calloc(1, sizeof *w);
    if (!w) {
        cube_selector_free(f.sel);
        return *rc = CUBE_ENOMEM, NULL;
    }
    *w = (struct cube_watch){.plugin = self, .hub = self->ctx->hub, .fn = d.fn,
                             .arg = d.arg, .refs = 1};
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->idle, NULL);
    if (!(w->sink = cube_hub_sink_open(w->hub, &f, on_notify, w))) {
        pthread_mutex_lock(&w->mu);
        unref_unlock(w);
        return *rc = CUBE_ENOMEM, NULL;
    }
    pthread_mutex_lock(&lists_mu);
    w->next = self->watches;
    self->watches = w;
    pthread_mutex_unlock(&lists_mu);
    on_notify(w); /* a resume point may have history, or be gone */
    *rc = CUBE_OK;
    return w;
}

static void unlist(cube_plugin *self, struct cube_watch *w)
{
    pthread_mutex_lock(&lists_mu);
    for (struct cube_watch **p = &self->watches; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    pthread_mutex_unlock(&lists_mu);
}

void cube_slot_watch_cancel(cube_plugin *self, cube_watch *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->cancelled = 1;
    int own = w->running && pthread_equal(w->runner, pthread_self());
    while (w->running && !own)
        pthread_cond_wait(&w->idle, &w->mu);
    pthread_mutex_unlock(&w->mu);
    /* No drain touches the sink now: a running one (own) has pulled, a
     * queued one sees cancelled. After this no notify comes. */
    cube_hub_sink_close(w->hub, w->sink);
    unlist(self, w);
    pthread_mutex_lock(&w->mu);
    unref_unlock(w);
}

void cube_host_watch_cancel_all(cube_plugin *self)
{
    for (;;) {
        pthread_mutex_lock(&lists_mu);
        struct cube_watch *w = self->watches;
        pthread_mutex_unlock(&lists_mu);
        if (!w)
            return;
        cube_slot_watch_cancel(self, w);
    }
}
