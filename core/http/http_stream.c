/* http_stream.c — streaming answers (SSE, log follow, downloads).
 *
 * A stream whose plugin has no data yet is parked: the connection is
 * suspended (no thread is held) until the plugin calls stream_wake or the
 * stream's idle_ms passes, when the waker thread resumes it. All parking
 * state is guarded by http->stream_mu. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http_hold.h"
#include "http_req.h"
#include "base/log.h"
#include "base/clock.h"

#define STREAM_BLOCK 32768
#define DEFAULT_IDLE_MS 1000

struct cube_stream {
    struct cube_http *http;
    struct MHD_Connection *conn;
    struct cube_stream_desc desc;
    int parked;               /* connection suspended by us */
    int wake_pending;         /* woken while not parked */
    uint64_t deadline_ns;
    struct cube_stream *next_parked;
};

static void unlink_parked(struct cube_http *http, struct cube_stream *s)
{
    for (struct cube_stream **p = &http->parked; *p; p = &(*p)->next_parked)
        if (*p == s) {
            *p = s->next_parked;
            break;
        }
    s->next_parked = NULL;
}

/* Resumes a parked stream. Caller holds stream_mu. */
static void unpark(struct cube_http *http, struct cube_stream *s)
{
    if (!s->parked)
        return;
    s->parked = 0;
    unlink_parked(http, s);
    cube_http_resume(s->conn);
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct cube_stream *s = cls;
    struct cube_http *http = s->http;
    for (;;) {
        if (atomic_load(&http->stopping))
            return MHD_CONTENT_READER_END_OF_STREAM;
        pthread_mutex_lock(&http->stream_mu);
        s->wake_pending = 0;
        pthread_mutex_unlock(&http->stream_mu);
        long n = s->desc.read(s->desc.cls, buf, max);
        if (n > 0)
            return n > (long)max ? (ssize_t)max : (ssize_t)n;
        if (n == CUBE_STREAM_END)
            return MHD_CONTENT_READER_END_OF_STREAM;
        if (n < 0)
            return MHD_CONTENT_READER_END_WITH_ERROR;
        pthread_mutex_lock(&http->stream_mu);
        if (s->wake_pending || atomic_load(&http->stopping)) {
            pthread_mutex_unlock(&http->stream_mu);
            continue; /* data arrived while we were reading: read again */
        }
        s->parked = 1;
        s->deadline_ns = cube_now_ns() + (uint64_t)s->desc.idle_ms * 1000000u;
        s->next_parked = http->parked;
        http->parked = s;
        MHD_suspend_connection(s->conn);
        pthread_cond_signal(&http->stream_cv);
        pthread_mutex_unlock(&http->stream_mu);
        return 0;
    }
}

static void stream_free(void *cls)
{
    struct cube_stream *s = cls;
    struct cube_http *http = s->http;
    pthread_mutex_lock(&http->stream_mu);
    if (s->parked)
        unlink_parked(http, s);
    s->parked = 0;
    pthread_mutex_unlock(&http->stream_mu);
    if (s->desc.close)
        s->desc.close(s->desc.cls);
    free(s);
}

int cube_http_answer_stream(cube_req *req, int status, const char *ctype,
                            const struct cube_stream_desc *desc,
                            cube_stream **out)
{
    if (req->answered)
        return CUBE_ESTATE;
    if (!desc || desc->size < offsetof(struct cube_stream_desc, idle_ms) +
                                  sizeof desc->idle_ms || !desc->read ||
        status < 100 || status > 599)
        return CUBE_EINVAL;
    struct cube_stream *s = calloc(1, sizeof *s);
    if (!s)
        return CUBE_ENOMEM;
    memcpy(&s->desc, desc, desc->size < sizeof s->desc ? desc->size
                                                        : sizeof s->desc);
    if (!s->desc.idle_ms)
        s->desc.idle_ms = DEFAULT_IDLE_MS;
    s->http = req->http;
    s->conn = req->conn;
    struct MHD_Response *resp = MHD_create_response_from_callback(
        MHD_SIZE_UNKNOWN, STREAM_BLOCK, stream_read, s, stream_free);
    if (!resp) {
        free(s);
        return CUBE_ENOMEM;
    }
    MHD_add_response_header(resp, "Content-Type",
                            ctype ? ctype : "application/octet-stream");
    MHD_add_response_header(resp, "Cache-Control", "no-cache");
    MHD_add_response_header(resp, "X-Accel-Buffering", "no");
    if (out)
        *out = s;
    return cube_http_queue(req, status, resp);
}

void cube_http_stream_wake(cube_stream *s)
{
    struct cube_http *http = s->http;
    pthread_mutex_lock(&http->stream_mu);
    if (s->parked)
        unpark(http, s);
    else
        s->wake_pending = 1;
    pthread_mutex_unlock(&http->stream_mu);
}

static void *waker_main(void *arg)
{
    struct cube_http *http = arg;
    pthread_mutex_lock(&http->stream_mu);
    while (http->waker_running) {
        uint64_t now = cube_now_ns(), next = now + 1000000000u;
        for (struct cube_stream *s = http->parked, *nx; s; s = nx) {
            nx = s->next_parked;
            if (s->deadline_ns <= now)
                unpark(http, s);
            else if (s->deadline_ns < next)
                next = s->deadline_ns;
        }
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t wait = next - now;
        ts.tv_sec += (time_t)(wait / 1000000000u);
        ts.tv_nsec += (long)(wait % 1000000000u);
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&http->stream_cv, &http->stream_mu, &ts);
    }
    pthread_mutex_unlock(&http->stream_mu);
    return NULL;
}

int cube_http_streams_init(struct cube_http *http)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_destroy(&http->stream_cv);
    pthread_cond_init(&http->stream_cv, &attr);
    pthread_condattr_destroy(&attr);
    http->waker_running = 1;
    if (pthread_create(&http->waker, NULL, waker_main, http) != 0) {
        http->waker_running = 0;
        return -1;
    }
    return 0;
}

void cube_http_streams_shutdown(struct cube_http *http)
{
    pthread_mutex_lock(&http->stream_mu);
    int was_running = http->waker_running;
    http->waker_running = 0;
    while (http->parked)
        unpark(http, http->parked);
    pthread_cond_broadcast(&http->stream_cv);
    pthread_mutex_unlock(&http->stream_mu);
    if (was_running)
        pthread_join(http->waker, NULL);
}
