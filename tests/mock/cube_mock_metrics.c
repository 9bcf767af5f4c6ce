/* cube_mock_metrics.c — the fake host's Job metrics (ABI 1.5, see
 * cube_mock.h): points a test reports for a Job with
 * cube_mock_job_metrics_report, checked as cubed checks a POST of
 * .../jobs/{name}/metrics, kept in memory per (project, job), read back
 * with the job_metrics slot; each batch queues the reconcile of the
 * owners of the Job object (when the test created one). Test-only. */
#include "cube_mock.h"
#include "cube_mock_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define BATCH_MAX 1000
#define JOB_MAX 100000

static cJSON *jobs;   /* "project/job" -> array of {name, step, value, ts} */

static int name_ok(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 128)
        return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr("_.-/:", *p)))
            return 0;
    return 1;
}

/* The field of the first bad point of a batch, or NULL. */
static const char *bad_field(const cJSON *list, char *buf, size_t len)
{
    const cJSON *m;
    int i = 0, n = cJSON_GetArraySize(list);
    if (!cJSON_IsArray(list) || n < 1 || n > BATCH_MAX)
        return "metrics";
    cJSON_ArrayForEach(m, list) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "value");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(m, "step");
        const char *what = !cJSON_IsObject(m) ? ""
            : !name_ok(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "name"))) ? ".name"
            : !cJSON_IsNumber(v) || !isfinite(v->valuedouble) ? ".value"
            : st && (!cJSON_IsNumber(st) || st->valuedouble < 0 ||
                     st->valuedouble != floor(st->valuedouble)) ? ".step" : NULL;
        if (what) {
            snprintf(buf, len, "metrics[%d]%s", i, what);
            return buf;
        }
        i++;
    }
    return NULL;
}

int cube_mock_job_metrics_report(const char *project, const char *job, const char *body,
                                 char *field, size_t field_len)
{
    char key[256], buf[64];
    cJSON *doc = body ? cJSON_Parse(body) : NULL, *m;
    const char *bad = bad_field(cJSON_GetObjectItemCaseSensitive(doc, "metrics"), buf,
                                sizeof buf);
    snprintf(key, sizeof key, "%s/%s", project ? project : "", job ? job : "");
    if (!jobs)
        jobs = cJSON_CreateObject();
    cJSON *have = cJSON_GetObjectItemCaseSensitive(jobs, key);
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "metrics"));
    if (!bad && cJSON_GetArraySize(have) + n > JOB_MAX)
        bad = "metrics";
    if (bad || !project || !job) {
        if (field)
            snprintf(field, field_len, "%s", bad ? bad : "metrics");
        cJSON_Delete(doc);
        return CUBE_EINVAL;
    }
    if (!have)
        have = cJSON_AddArrayToObject(jobs, key);
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(doc, "metrics")) {
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(m, "step");
        const cJSON *ts = cJSON_GetObjectItemCaseSensitive(m, "ts");
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "name", cJSON_GetObjectItemCaseSensitive(m, "name")->valuestring);
        cJSON_AddNumberToObject(p, "step", st ? st->valuedouble : 0);
        cJSON_AddNumberToObject(p, "value", cJSON_GetObjectItemCaseSensitive(m, "value")->valuedouble);
        cJSON_AddNumberToObject(p, "ts", cJSON_IsNumber(ts) ? ts->valuedouble : 0);
        cJSON_AddItemToArray(have, p);
    }
    cJSON_Delete(doc);
    mock_queue_owners("Job", project, job);
    return CUBE_OK;
}

static int by_name_step(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    int c = strcmp(cJSON_GetObjectItemCaseSensitive(x, "name")->valuestring,
                   cJSON_GetObjectItemCaseSensitive(y, "name")->valuestring);
    double d = cJSON_GetObjectItemCaseSensitive(x, "step")->valuedouble -
               cJSON_GetObjectItemCaseSensitive(y, "step")->valuedouble;
    return c ? c : d < 0 ? -1 : d > 0 ? 1 : x < y ? -1 : 1;
}

static char *job_metrics(cube_plugin *self, const char *project, const char *job,
                         const char *name, int64_t since_step, int *rc)
{
    (void)self;
    char key[256];
    if (!project || !job || (name && !name_ok(name)) || since_step < -1) {
        *rc = CUBE_EINVAL;
        return NULL;
    }
    snprintf(key, sizeof key, "%s/%s", project, job);
    const cJSON *have = cJSON_GetObjectItemCaseSensitive(jobs, key);
    if (!have && !mock_object_exists("Job", project, job)) {
        *rc = CUBE_ENOTFOUND;
        return NULL;
    }
    int n = cJSON_GetArraySize(have), k = 0;
    const cJSON **pick = calloc((size_t)n + 1, sizeof *pick), *p;
    cJSON_ArrayForEach(p, have)
        if ((!name || !strcmp(cJSON_GetObjectItemCaseSensitive(p, "name")->valuestring, name)) &&
            cJSON_GetObjectItemCaseSensitive(p, "step")->valuedouble > (double)since_step)
            pick[k++] = p;
    qsort(pick, (size_t)k, sizeof *pick, by_name_step);
    cJSON *doc = cJSON_CreateObject(), *items;
    cJSON_AddStringToObject(doc, "kind", "JobMetrics");
    cJSON_AddStringToObject(doc, "project", project);
    cJSON_AddStringToObject(doc, "job", job);
    items = cJSON_AddArrayToObject(doc, "metrics");
    for (int i = 0; i < k; i++)
        cJSON_AddItemToArray(items, cJSON_Duplicate(pick[i], 1));
    free(pick);
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    *rc = text ? CUBE_OK : CUBE_ENOMEM;
    return text;
}

void mock_metrics_install(struct cube_host *h)
{
    h->job_metrics = job_metrics;
}

void mock_metrics_reset(void)
{
    cJSON_Delete(jobs);
    jobs = NULL;
}
