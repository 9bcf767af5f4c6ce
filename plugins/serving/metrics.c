/* metrics.c — the serving series at cubed's /metrics (the metrics ABI),
 * per project, service and predictor: requests by status class, errors,
 * a latency histogram, requests in flight and replicas (ready, desired).
 * Recorded from the proxy's done callback (non-blocking) and the
 * controller. */
#include <stdio.h>

#include "serving.h"

static const char *const LBL[] = {"project", "service", "predictor", "code"};
static const char *const RLBL[] = {"project", "service", "predictor", "state"};
static const double BUCKETS[] = {0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 5};

int sv_metrics_register(struct sv *sv)
{
    const struct cube_metric_desc d[] = {
        {.size = sizeof d[0], .type = CUBE_METRIC_COUNTER, .name = "cube_serving_requests_total",
         .help = "Requests served by inference services, by status class", .label_names = LBL,
         .label_count = 4},
        {.size = sizeof d[0], .type = CUBE_METRIC_COUNTER, .name = "cube_serving_errors_total",
         .help = "Requests that ended 5xx or broke off", .label_names = LBL, .label_count = 3},
        {.size = sizeof d[0], .type = CUBE_METRIC_HISTOGRAM,
         .name = "cube_serving_request_duration_seconds",
         .help = "Request latency through cubed's proxy", .label_names = LBL, .label_count = 3,
         .buckets = BUCKETS, .bucket_count = sizeof BUCKETS / sizeof BUCKETS[0]},
        {.size = sizeof d[0], .type = CUBE_METRIC_GAUGE, .name = "cube_serving_inflight",
         .help = "Requests in flight to a predictor", .label_names = LBL, .label_count = 3},
        {.size = sizeof d[0], .type = CUBE_METRIC_GAUGE, .name = "cube_serving_replicas",
         .help = "Replicas of a predictor (state ready or desired)", .label_names = RLBL,
         .label_count = 4},
    };
    cube_metric **out[] = {&sv->m.requests, &sv->m.errors, &sv->m.latency, &sv->m.inflight,
                           &sv->m.replicas};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (!(*out[i] = sv->host->metric_register(sv->self, &d[i])))
            return -1;
    return 0;
}

void sv_metrics_done(struct sv *sv, int stat, int status, int error, uint64_t us)
{
    const struct sv_stat *st = &sv->table.stats[stat];
    char code[4] = {(char)('0' + (status / 100) % 10), 'x', 'x', '\0'};
    const char *lv[] = {st->project, st->service, st->predictor, code};
    sv->host->metric_add(sv->m.requests, lv, 1);
    if (error)
        sv->host->metric_add(sv->m.errors, lv, 1);
    sv->host->metric_observe(sv->m.latency, lv, (double)us / 1e6);
    sv->host->metric_set(sv->m.inflight, lv, (double)atomic_load(&st->inflight));
}

void sv_metrics_replicas(struct sv *sv, const char *project, const char *service,
                         const char *predictor, int ready, int desired)
{
    const char *a[] = {project, service, predictor, "ready"};
    const char *b[] = {project, service, predictor, "desired"};
    sv->host->metric_set(sv->m.replicas, a, ready);
    sv->host->metric_set(sv->m.replicas, b, desired);
}
