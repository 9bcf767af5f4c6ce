/* metrics_series.c — a metric's label-value sets and the updates to them. */
#include "metrics_priv.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Most label-value sets one metric keeps. Updates that would create more are
 * dropped, so a label fed from request data cannot exhaust memory. */
#define MAX_CHILDREN 10000

/* ---- children: label-value sets ---- */

/* A NULL array or NULL entry stands for the empty value. */
static const char *label_value(const char *const *vals, unsigned i)
{
    return vals && vals[i] ? vals[i] : "";
}

/* FNV-1a over the values, each followed by a 0xff separator so that
 * ("ab","c") and ("a","bc") differ. */
uint64_t cube_metric_label_hash(const struct cube_metric *m,
                                const char *const *vals)
{
    uint64_t h = 14695981039346656037ull;
    for (unsigned i = 0; i < m->nlabels; i++) {
        const unsigned char *p = (const unsigned char *)label_value(vals, i);
        for (; *p; p++)
            h = (h ^ *p) * 1099511628211ull;
        h = (h ^ 0xff) * 1099511628211ull;
    }
    return h;
}

static bool child_matches(const struct cube_metric *m, const struct child *c,
                          uint64_t h, const char *const *vals)
{
    if (c->hash != h)
        return false;
    for (unsigned i = 0; i < m->nlabels; i++) {
        if (strcmp(c->values[i], label_value(vals, i)) != 0)
            return false;
    }
    return true;
}

static struct child *child_new(const struct cube_metric *m,
                               const char *const *vals, uint64_t h)
{
    size_t nb = m->type == CUBE_METRIC_HISTOGRAM ? m->nbounds : 0;
    size_t head = sizeof(struct child) + nb * sizeof(uint64_t);
    size_t ptrs = (m->nlabels + 1) * sizeof(char *);
    size_t lens[CUBE_METRIC_MAX_LABELS];
    size_t size = head + ptrs;
    for (unsigned i = 0; i < m->nlabels; i++) {
        lens[i] = strlen(label_value(vals, i)) + 1;
        size += lens[i];
    }
    struct child *c = calloc(1, size);
    if (!c)
        return NULL;
    c->hash = h;
    c->values = (const char **)((char *)c + head);
    char *p = (char *)c + head + ptrs;
    for (unsigned i = 0; i < m->nlabels; i++) {
        memcpy(p, label_value(vals, i), lens[i]);
        c->values[i] = p;
        p += lens[i];
    }
    c->values[m->nlabels] = NULL;
    return c;
}

static void slot_insert(struct child **slots, size_t nslots, struct child *c)
{
    size_t i = c->hash & (nslots - 1);
    while (slots[i])
        i = (i + 1) & (nslots - 1);
    slots[i] = c;
}

static int slots_grow(struct cube_metric *m)
{
    size_t n = m->nslots * 2;
    struct child **s = calloc(n, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < m->nslots; i++) {
        if (m->slots[i])
            slot_insert(s, n, m->slots[i]);
    }
    free(m->slots);
    m->slots = s;
    m->nslots = n;
    return 0;
}

/* Finds or creates the child for vals; NULL on OOM or at MAX_CHILDREN.
 * Caller holds m->mu. */
struct child *cube_metric_child_get(struct cube_metric *m,
                                    const char *const *vals, uint64_t h)
{
    size_t mask = m->nslots - 1;
    for (size_t i = h & mask; m->slots[i]; i = (i + 1) & mask) {
        if (child_matches(m, m->slots[i], h, vals))
            return m->slots[i];
    }
    if (m->nchildren >= MAX_CHILDREN)
        return NULL;
    if ((m->nchildren + 1) * 2 > m->nslots && slots_grow(m) < 0)
        return NULL;
    struct child *c = child_new(m, vals, h);
    if (!c)
        return NULL;
    slot_insert(m->slots, m->nslots, c);
    m->nchildren++;
    return c;
}

/* ---- updates ---- */

enum op { OP_ADD, OP_SET, OP_OBSERVE };

/* Index of the first bound >= v, or nbounds when v exceeds them all. */
static unsigned bucket_index(const struct cube_metric *m, double v)
{
    unsigned lo = 0, hi = m->nbounds;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (v <= m->bounds[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static void update_child(struct cube_metric *m, const char *const *vals,
                         enum op op, double v)
{
    uint64_t h = cube_metric_label_hash(m, vals);
    unsigned b = op == OP_OBSERVE ? bucket_index(m, v) : 0;
    pthread_mutex_lock(&m->mu);
    struct child *c = cube_metric_child_get(m, vals, h);
    if (c && op == OP_ADD) {
        c->value += v;
    } else if (c && op == OP_SET) {
        c->value = v;
    } else if (c) {
        if (b < m->nbounds)
            c->buckets[b]++;
        c->count++;
        c->value += v;
    }
    pthread_mutex_unlock(&m->mu);
}

/* Prometheus rejects a whole scrape over one label value that is not UTF-8,
 * so invalid bytes become U+FFFD before the lookup. */
static void update(struct cube_metric *m, const char *const *vals, enum op op,
                   double v)
{
    const char *fixed[CUBE_METRIC_MAX_LABELS + 1];
    char *owned[CUBE_METRIC_MAX_LABELS] = {0};
    for (unsigned i = 0; i < m->nlabels; i++) {
        fixed[i] = label_value(vals, i);
        if (cube_metrics_utf8_valid(fixed[i]))
            continue;
        fixed[i] = owned[i] = cube_metrics_utf8_fix(fixed[i]);
        if (!owned[i])
            goto out;
    }
    update_child(m, fixed, op, v);
out:
    for (unsigned i = 0; i < m->nlabels; i++)
        free(owned[i]);
}

/* Adds v to a counter (v >= 0) or gauge; other cases are ignored. */
void cube_metric_add(struct cube_metric *m, const char *const *label_values,
                     double v)
{
    if (!m || m->type == CUBE_METRIC_HISTOGRAM)
        return;
    if (m->type == CUBE_METRIC_COUNTER && !(v >= 0)) /* also rejects NaN */
        return;
    update(m, label_values, OP_ADD, v);
}

/* Sets a gauge; ignored on other types. */
void cube_metric_set(struct cube_metric *m, const char *const *label_values,
                     double v)
{
    if (!m || m->type != CUBE_METRIC_GAUGE)
        return;
    update(m, label_values, OP_SET, v);
}

/* Records one histogram observation; ignored on other types and for NaN,
 * which would poison _sum forever. */
void cube_metric_observe(struct cube_metric *m,
                         const char *const *label_values, double v)
{
    if (!m || m->type != CUBE_METRIC_HISTOGRAM || isnan(v))
        return;
    update(m, label_values, OP_OBSERVE, v);
}
