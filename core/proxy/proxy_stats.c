/* proxy_stats.c — counters of proxied requests (ABI 1.5): per prefix and
 * per key (the key resolve bound the request to), the proxy's /metrics
 * series, the proxy_stats slot and the plugin's done callback.
 *
 * Counters are atomics in entries that live as long as their prefix, so
 * a request (or a mirror copy in flight) keeps pointers to them and
 * updates them without a lock; only finding or adding a key takes the
 * prefix's key-table mutex, once per request. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctx/ctx.h"
#include "http/http_req.h"
#include "metrics/metrics.h"
#include "proxy_priv.h"
#include "base/clock.h"
#include "base/text.h"

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int proxy_metrics_register(struct cube_proxies *px, struct cube_metrics *reg, char *err,
                           size_t errlen)
{
    static const char *const by_code[] = {"prefix", "code"};
    static const char *const by_prefix[] = {"prefix"};
    static const char *const by_result[] = {"prefix", "result"};
    const struct cube_metric_desc d[] = {
        {sizeof d[0], CUBE_METRIC_COUNTER, "cube_proxy_requests_total",
         "Requests relayed under plugin-registered prefixes, by prefix and status",
         by_code, 2, NULL, 0},
        {sizeof d[0], CUBE_METRIC_GAUGE, "cube_proxy_inflight",
         "Proxied requests resolved and not ended, parked ones included", by_prefix, 1,
         NULL, 0},
        {sizeof d[0], CUBE_METRIC_GAUGE, "cube_proxy_parked",
         "Proxied requests parked until their plugin wakes them", by_prefix, 1, NULL, 0},
        {sizeof d[0], CUBE_METRIC_COUNTER, "cube_proxy_errors_total",
         "Proxied requests that ended with 5xx or a broken answer", by_prefix, 1, NULL, 0},
        {sizeof d[0], CUBE_METRIC_COUNTER, "cube_proxy_mirror_total",
         "Copies of proxied requests for a mirror upstream, by outcome (ok, error, "
         "skipped: the body was too large)", by_result, 2, NULL, 0},
    };
    struct cube_metric **out[] = {&px->m_requests, &px->m_inflight, &px->m_parked,
                                  &px->m_errors, &px->m_mirror};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (!(*out[i] = cube_metrics_register(reg, &d[i], "core", err, errlen)))
            return -1;
    return 0;
}

void proxy_stats_init(struct proxy_prefix *p)
{
    pthread_mutex_init(&p->keys.mu, NULL);
}

void proxy_stats_free(struct proxy_prefix *p)
{
    for (size_t i = 0; p->keys.buckets && i < PROXY_KEY_BUCKETS; i++)
        while (p->keys.buckets[i]) {
            struct proxy_stat *e = p->keys.buckets[i];
            p->keys.buckets[i] = e->next;
            free(e);
        }
    free(p->keys.buckets);
    pthread_mutex_destroy(&p->keys.mu);
}

static size_t bucket_of(const char *key)
{
    uint64_t h = 14695981039346656037ull;
    for (const unsigned char *c = (const unsigned char *)key; *c; c++)
        h = (h ^ *c) * 1099511628211ull;
    return (size_t)(h % PROXY_KEY_BUCKETS);
}

/* The key's entry; created when `create` and the table has room. */
static struct proxy_stat *key_entry(struct proxy_prefix *p, const char *key, int create)
{
    struct proxy_keys *k = &p->keys;
    struct proxy_stat *e = NULL;
    pthread_mutex_lock(&k->mu);
    if (!k->buckets && create)
        k->buckets = calloc(PROXY_KEY_BUCKETS, sizeof *k->buckets);
    size_t b = bucket_of(key);
    for (e = k->buckets ? k->buckets[b] : NULL; e; e = e->next)
        if (!strcmp(e->key, key))
            break;
    if (!e && create && k->buckets && k->n < PROXY_KEYS_MAX) {
        size_t n = strlen(key) + 1;
        if ((e = calloc(1, sizeof *e + n))) {
            e->key = memcpy(e + 1, key, n);   /* one block with the entry */
            e->next = k->buckets[b];
            k->buckets[b] = e;
            k->n++;
        }
    }
    pthread_mutex_unlock(&k->mu);
    return e;
}

void proxy_count(struct cube_proxies *px, const struct proxy_prefix *p, int status)
{
    char code[12];
    cube_status_text(code, status);
    const char *labels[] = {p->tmpl, code};
    cube_metric_add(px->m_requests, labels, 1);
}

static void started(struct proxy_stat *s, int64_t now_ms)
{
    atomic_fetch_add(&s->requests, 1);
    atomic_fetch_add(&s->inflight, 1);
    atomic_store(&s->last_ms, now_ms);
}

void proxy_stats_begin(struct proxy_call *call)
{
    const char *labels[] = {call->pfx->tmpl};
    call->resolved = 1;
    started(&call->pfx->total, wall_ms());
    cube_metric_add(call->px->m_inflight, labels, 1);
}

void proxy_stats_bind(struct proxy_call *call)
{
    call->keyed = 1;
    if ((call->kst = key_entry(call->pfx, call->key, 1)))
        started(call->kst, atomic_load(&call->pfx->total.last_ms));
}

void proxy_stats_parked(struct proxy_call *call, int delta)
{
    const char *labels[] = {call->pfx->tmpl};
    struct proxy_stat *s[] = {&call->pfx->total, call->kst};
    for (size_t i = 0; i < 2; i++)
        if (s[i] && delta > 0)
            atomic_fetch_add(&s[i]->parked, 1);
        else if (s[i])
            atomic_fetch_sub(&s[i]->parked, 1);
    cube_metric_add(call->px->m_parked, labels, delta);
}

void proxy_stats_mirror(struct cube_proxies *px, const struct proxy_prefix *p,
                        struct proxy_stat *kst, const char *result)
{
    struct proxy_stat *s[] = {(struct proxy_stat *)&p->total, kst};
    for (size_t i = 0; i < 2; i++) {
        if (!s[i])
            continue;
        if (!strcmp(result, "handed"))
            atomic_fetch_add(&s[i]->mirrored, 1);
        else if (!strcmp(result, "error"))
            atomic_fetch_add(&s[i]->mirror_errors, 1);
    }
    if (strcmp(result, "handed")) {
        const char *labels[] = {p->tmpl, result};
        cube_metric_add(px->m_mirror, labels, 1);
    }
}

static void ended(struct proxy_stat *s, int error, int64_t now_ms)
{
    atomic_fetch_sub(&s->inflight, 1);
    if (error)
        atomic_fetch_add(&s->errors, 1);
    atomic_store(&s->last_ms, now_ms);
}

void proxy_stats_end(struct proxy_call *call)
{
    cube_req *req = call->req;
    struct proxy_prefix *p = call->pfx;
    if (!call->resolved)
        return;
    int status = req->status ? req->status : 499;
    int error = status >= 500 || call->body_failed;
    int64_t now = wall_ms();
    ended(&p->total, error, now);
    if (call->kst)
        ended(call->kst, error, now);
    const char *labels[] = {p->tmpl};
    cube_metric_add(call->px->m_inflight, labels, -1);
    if (error)
        cube_metric_add(call->px->m_errors, labels, 1);
    if (!p->done)
        return;
    struct cube_proxy_done d = {
        .size = sizeof d, .prefix = p->tmpl, .key = call->key, .status = status,
        .upstream = call->from_upstream, .error = error, .mirrored = call->mirrored,
        .parked = call->was_parked,
        .duration_us = (cube_now_ns() - req->start_ns) / 1000u,
        .parked_us = call->parked_ns / 1000u, .bytes_in = call->body_bytes,
        .bytes_out = req->resp_bytes, .tag = call->tag, .credential = call->credential};
    p->done(p->plugin->state, &d);
}

int cube_slot_proxy_stats(cube_plugin *self, const char *prefix, const char *key,
                          struct cube_proxy_stats *out)
{
    size_t min = offsetof(struct cube_proxy_stats, requests) + sizeof out->requests;
    if (!prefix || !out || out->size < min)
        return CUBE_EINVAL;
    size_t size = out->size < sizeof *out ? out->size : sizeof *out;
    struct cube_proxy_stats s = {.size = size};
    struct proxy_prefix *p = proxy_prefix_of(self->ctx->proxies, self, prefix);
    struct proxy_stat *e = !p ? NULL : key ? key_entry(p, key, 0) : &p->total;
    if (e) {
        s.requests = atomic_load(&e->requests);
        s.inflight = atomic_load(&e->inflight);
        s.parked = atomic_load(&e->parked);
        s.errors = atomic_load(&e->errors);
        s.mirrored = atomic_load(&e->mirrored);
        s.mirror_errors = atomic_load(&e->mirror_errors);
        s.last_ms = atomic_load(&e->last_ms);
    }
    memcpy(out, &s, size);
    return e ? CUBE_OK : CUBE_ENOTFOUND;
}
