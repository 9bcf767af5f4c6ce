/* ticks.c — GET /api/v1/hello-ticks: a Server-Sent Events stream that a
 * timer feeds, showing how a plugin parks a stream and wakes it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/cube.h>

#include "hello.h"

struct ticker {
    const struct cube_host *host;
    cube_plugin *self;
    cube_stream *stream;
    cube_timer *timer;
    pthread_mutex_t mu;
    int produced, sent, total;   /* guarded by mu */
};

/* Timer callback: one more event is ready. */
static void tick(void *state, void *arg)
{
    (void)state;
    struct ticker *t = arg;
    pthread_mutex_lock(&t->mu);
    if (t->produced < t->total)
        t->produced++;
    cube_stream *s = t->stream;
    pthread_mutex_unlock(&t->mu);
    if (s)
        t->host->stream_wake(s);
}

static long ticks_read(void *cls, char *buf, size_t max)
{
    struct ticker *t = cls;
    pthread_mutex_lock(&t->mu);
    long n = 0;
    if (t->sent < t->produced) {
        t->sent++;
        n = snprintf(buf, max, "id: %d\nevent: tick\ndata: {\"n\":%d}\n\n",
                     t->sent, t->sent);
    } else if (t->sent == t->total) {
        n = CUBE_STREAM_END;
    }
    pthread_mutex_unlock(&t->mu);
    return n;
}

static void ticks_close(void *cls)
{
    struct ticker *t = cls;
    /* Waits for a running tick, so none touches t after this. */
    t->host->timer_cancel(t->self, t->timer);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

int hello_ticks(void *state, cube_req *req)
{
    struct hello *h = state;
    const struct cube_host *host = h->host;
    struct ticker *t = calloc(1, sizeof *t);
    if (!t)
        return CUBE_ENOMEM;
    t->host = host;
    t->self = h->self;
    t->total = h->ticks;
    pthread_mutex_init(&t->mu, NULL);
    const struct cube_stream_desc desc = {
        .size = sizeof desc, .read = ticks_read, .close = ticks_close,
        .cls = t, .idle_ms = 15000,
    };
    /* Hold mu so a tick cannot see a half-set stream handle. */
    pthread_mutex_lock(&t->mu);
    int rc = host->resp_stream(req, 200, "text/event-stream", &desc, &t->stream);
    if (rc == CUBE_OK && !(t->timer = host->timer_add(h->self, 20, 20, tick, t)))
        t->produced = t->total; /* no timer: send everything at once */
    pthread_mutex_unlock(&t->mu);
    if (rc != CUBE_OK) {
        pthread_mutex_destroy(&t->mu);
        free(t);
    }
    return rc;
}
