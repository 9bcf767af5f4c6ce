/*
 * cube_metrics.h — descriptors for plugin metrics (Prometheus text format).
 *
 * Part of the Cube plugin ABI (append-only; see cube_plugin.h).
 */
#ifndef CUBE_METRICS_H
#define CUBE_METRICS_H

#include "cube_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Metric types, as in Prometheus. */
enum cube_metric_type {
    CUBE_METRIC_COUNTER = 1,   /**< only goes up: use metric_add with v >= 0 */
    CUBE_METRIC_GAUGE = 2,     /**< metric_set or metric_add (may be negative) */
    CUBE_METRIC_HISTOGRAM = 3, /**< metric_observe */
};

/** Maximum number of labels on one metric. */
#define CUBE_METRIC_MAX_LABELS 8

/** Describes a metric; passed to cube_host.metric_register. */
struct cube_metric_desc {
    /* since 1.0 */
    size_t size;                 /**< sizeof(struct cube_metric_desc) */
    enum cube_metric_type type;  /**< required */
    /** Full metric name, [a-zA-Z_:][a-zA-Z0-9_:]*. Counters end in
     *  "_total". Must not collide with another registered metric. */
    const char *name;
    const char *help;            /**< required, one line */
    /** Label names ([a-zA-Z_][a-zA-Z0-9_]*, not starting "__"); may be NULL
     *  when label_count is 0. At most CUBE_METRIC_MAX_LABELS. */
    const char *const *label_names;
    unsigned label_count;
    /** Histogram upper bounds, strictly increasing; NULL or 0 count for the
     *  default buckets (0.005 .. 10 seconds). Ignored for other types. */
    const double *buckets;
    unsigned bucket_count;
};

#ifdef __cplusplus
}
#endif

#endif /* CUBE_METRICS_H */
