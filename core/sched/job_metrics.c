/* job_metrics.c — what the scheduler and the accelerators show at GET
 * /metrics: jobs pending and running (from the policy engine), and each
 * device's utilisation and memory in use (from the accelerator plugins'
 * usage callbacks), refreshed by the scheduling loop every few seconds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx/ctx.h"
#include "jobs.h"
#include "base/log.h"
#include "metrics/metrics.h"
#include "base/quantity.h"

static const char *const STATE_LABEL[] = {"state"};
static const char *const DEVICE_LABELS[] = {"resource", "device"};

int sched_metrics_init(struct cube_sched *s)
{
    const struct cube_metric_desc descs[] = {
        {sizeof descs[0], CUBE_METRIC_GAUGE, "cube_sched_jobs",
         "Jobs the scheduler holds, by state (pending, running)", STATE_LABEL, 1, NULL, 0},
        {sizeof descs[0], CUBE_METRIC_GAUGE, "cube_accel_utilization",
         "Device utilisation (0..1) reported by its accelerator plugin", DEVICE_LABELS, 2,
         NULL, 0},
        {sizeof descs[0], CUBE_METRIC_GAUGE, "cube_accel_memory_used_bytes",
         "Device memory in use reported by its accelerator plugin", DEVICE_LABELS, 2, NULL, 0},
        {sizeof descs[0], CUBE_METRIC_GAUGE, "cube_accel_healthy",
         "1 while a device of this machine may be allocated, 0 once its accelerator plugin "
         "reports it unhealthy", DEVICE_LABELS, 2, NULL, 0},
    };
    struct cube_metric **slots[] = {&s->m_jobs, &s->m_util, &s->m_mem, &s->m_health};
    char err[256];
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
        if (!(*slots[i] = cube_metrics_register(s->ctx->metrics, &descs[i], "core", err,
                                                sizeof err))) {
            cube_log(CUBE_LOG_ERROR, "jobs", "metric %s: %s", descs[i].name, err);
            return -1;
        }
    return 0;
}

/* One accelerator's usage document into the device gauges. */
static void device_usage(struct cube_sched *s, const char *resource, const char *json)
{
    cJSON *list = cJSON_Parse(json), *d;
    cJSON_ArrayForEach(d, list) {
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "id"));
        const cJSON *util = cJSON_GetObjectItemCaseSensitive(d, "utilization");
        const cJSON *mem = cJSON_GetObjectItemCaseSensitive(d, "memoryUsed");
        const char *labels[] = {resource, id};
        const char *why;
        int64_t bytes;
        if (!id)
            continue;
        if (cJSON_IsNumber(util))
            cube_metric_set(s->m_util, labels, util->valuedouble);
        if (mem && cube_qty_bytes(mem, &bytes, &why) == 0)
            cube_metric_set(s->m_mem, labels, (double)bytes);
    }
    cJSON_Delete(list);
}

void sched_metrics_refresh(struct cube_sched *s)
{
    struct cube_sp_stats st;
    pthread_mutex_lock(&s->mu);
    cube_sp_stats(s->policy, &st);
    size_t n = s->n_accels;
    struct sched_accel **accels = n ? malloc(n * sizeof *accels) : NULL;
    if (accels)
        memcpy(accels, s->accels, n * sizeof *accels);
    pthread_mutex_unlock(&s->mu);
    cube_metric_set(s->m_jobs, (const char *const[]){"pending"}, (double)st.pending);
    cube_metric_set(s->m_jobs, (const char *const[]){"running"}, (double)st.running);
    for (size_t i = 0; accels && i < n; i++) {
        char *json = NULL;
        if (accels[i]->desc.usage &&
            accels[i]->desc.usage(accels[i]->plugin->state, &json) == CUBE_OK && json)
            device_usage(s, accels[i]->desc.resource, json);
        free(json);
    }
    free(accels);
}
