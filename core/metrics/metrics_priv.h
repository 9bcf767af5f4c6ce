/* metrics_priv.h — registry types shared by metrics.c, metrics_series.c and
 * metrics_render.c. Not part of the core's interface.
 *
 * Each metric owns a mutex and an open-addressing hash table of "children",
 * one per label-value set, so the hot path (an HTTP request bumping a counter
 * and a histogram) costs one hash, one probe and one uncontended lock, and
 * updates to different metrics never contend. The registry mutex only guards
 * the metric list: it is taken by registration and rendering, never by
 * updates. Metrics are never removed before cube_metrics_free, so a handle
 * stays valid for the life of the registry. */
#ifndef CUBE_METRICS_PRIV_H
#define CUBE_METRICS_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"

/* One label-value set, allocated as a single block: this struct, the
 * histogram's bucket counts, the value pointers, then the value strings. */
struct child {
    uint64_t hash;
    double value;        /* counter/gauge value; histogram sum */
    uint64_t count;      /* histogram observations */
    const char **values; /* nlabels strings, NULL-terminated (for sorting) */
    uint64_t buckets[];  /* histogram: per-bound counts, not cumulative */
};

struct cube_metric {
    struct cube_metric *next; /* registration order */
    enum cube_metric_type type;
    char *name;
    char *help;
    char *owner;
    char **labels;
    unsigned nlabels;
    double *bounds; /* histogram upper bounds, without +Inf */
    unsigned nbounds;
    pthread_mutex_t mu; /* guards slots, nslots, nchildren and children */
    struct child **slots;
    size_t nslots; /* power of two, at least twice nchildren */
    size_t nchildren;
};

struct cube_metrics {
    pthread_mutex_t mu; /* guards the list; held while rendering */
    struct cube_metric *head;
    struct cube_metric *tail;
};

/* metrics.c */

/* True when str is valid UTF-8 (no overlongs, surrogates or code points
 * past U+10FFFF). */
bool cube_metrics_utf8_valid(const char *str);
/* A malloc'd copy of str with every invalid byte replaced by U+FFFD; NULL on
 * OOM. */
char *cube_metrics_utf8_fix(const char *str);

/* metrics_series.c */

/* Hash of the label-value set vals (m->nlabels entries; a NULL array or
 * entry is the empty value), as child lookup expects it. */
uint64_t cube_metric_label_hash(const struct cube_metric *m,
                                const char *const *vals);
/* Finds or creates the child for vals, whose hash is h; NULL on OOM or once
 * the metric holds its maximum of children. Caller holds m->mu (or is the
 * only thread that can see m). */
struct child *cube_metric_child_get(struct cube_metric *m,
                                    const char *const *vals, uint64_t h);

#endif
