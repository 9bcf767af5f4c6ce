/* metrics.h — the metrics registry and its Prometheus text exposition.
 * Thread-safe: registration, updates and rendering may run concurrently. */
#ifndef CUBE_METRICS_CORE_H
#define CUBE_METRICS_CORE_H

#include <stddef.h>

#include <cube/cube_metrics.h>

struct cube_metrics;

struct cube_metrics *cube_metrics_new(void);
/* Frees the registry and every metric in it. */
void cube_metrics_free(struct cube_metrics *reg);

/* Registers a metric (desc copied, size-checked as in the ABI: a desc smaller
 * than the 1.0 fields is rejected). `owner` names the registrant in errors.
 * Returns NULL and writes a reason to err on a bad field or duplicate name. */
struct cube_metric *cube_metrics_register(struct cube_metrics *reg,
                                          const struct cube_metric_desc *desc,
                                          const char *owner, char *err,
                                          size_t errlen);
/* Updates; label_values has the metric's label_count entries. Wrong type
 * (e.g. observe on a counter) or a negative counter add is ignored. */
void cube_metric_add(struct cube_metric *m, const char *const *label_values,
                     double v);
void cube_metric_set(struct cube_metric *m, const char *const *label_values,
                     double v);
void cube_metric_observe(struct cube_metric *m,
                         const char *const *label_values, double v);
/* Renders every metric in registration order in the Prometheus text format
 * 0.0.4 (HELP, TYPE, escaped label values, histogram _bucket/_sum/_count
 * with le="+Inf"). Returns a malloc'd NUL-terminated string; *len its length. */
char *cube_metrics_render(struct cube_metrics *reg, size_t *len);

#endif
